import { Flags } from '@oclif/core'
import { KubectlStyleCommand } from '../../cli/kubectl-style-command.js'
import { usageHint } from '../../cli/usage-errors.js'
import { clientFlagDefinitions } from '../../cli/client-flags.js'
import { clientFlagsFrom } from '../../core/client/flags.js'
import { runHealthWatch } from '../../core/health/run.js'
import type { HealthEndpoint } from '../../core/health/report.js'
import { alphabetical } from '../../cli/flag-order.js'

export default class HealthWatch extends KubectlStyleCommand {
  static override summary = 'Watch the checks of an API server live in the terminal.'
  static override description = `Polls /livez and /readyz (and /healthz with --healthz) every --interval and shows one row per check with its state, the time since it last changed and its recent history. Keys: q quits, v switches endpoint, e excludes or re-includes the selected check, arrow keys select.

When standard output is not a terminal, prints one line per change instead (for logs). --once prints one snapshot and exits with the exit codes of \`client health check\` (0 healthy, 1 unhealthy, 2 usage error, 3 unreachable).`
  static override examples = ['<%= config.bin %> health watch', '<%= config.bin %> health watch --once --healthz', '<%= config.bin %> health watch --interval 500ms > health.log']
  static override flags = alphabetical({
    interval: Flags.string({ description: 'Time between polls (a duration, or seconds).', default: '2s' }),
    healthz: Flags.boolean({ description: 'Also poll the deprecated /healthz.', default: false }),
    exclude: Flags.string({ description: 'Exclude this check from the start (repeatable; e toggles it live).', multiple: true, default: [] }),
    once: Flags.boolean({ description: 'Print one snapshot and exit with the check exit codes.', default: false }),
    ...clientFlagDefinitions(),
  })

  async run(): Promise<void> {
    const parsed = await this.parse(HealthWatch)
    const flags = { ...parsed.flags, ...this.booleanValues }
    const endpoints: HealthEndpoint[] = flags.healthz ? ['livez', 'readyz', 'healthz'] : ['livez', 'readyz']
    const code = await runHealthWatch(
      { client: clientFlagsFrom(flags), endpoints, exclude: flags.exclude, interval: flags.interval, once: flags.once, version: this.config.version },
      { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t), isTTY: Boolean(process.stdout.isTTY), usageHint: usageHint(this.commandName) },
    )
    this.exit(code)
  }
}
