import { Flags } from '@oclif/core'
import { KubectlStyleCommand } from '../../cli/kubectl-style-command.js'
import { usageHint } from '../../cli/usage-errors.js'
import { clientFlagDefinitions } from '../../cli/client-flags.js'
import { clientFlagsFrom } from '../../core/client/flags.js'
import { runHealthCheck } from '../../core/health/run.js'
import type { HealthEndpoint } from '../../core/health/report.js'
import { alphabetical } from '../../cli/flag-order.js'

export default class HealthCheck extends KubectlStyleCommand {
  static override summary = 'Probe a status endpoint of an API server; the exit code is the verdict.'
  static override description = `Probes /readyz (or --endpoint) of the server named by the kubeconfig or --server and prints the verdict; with --wait, polls until it is healthy or --timeout passes.

Exit status (stable, for scripts): 0 healthy, 1 unhealthy (the server answered with a failure status), 2 usage error, 3 unreachable (connection refused, DNS, TLS verification, timeout).`
  static override examples = [
    '<%= config.bin %> health check --server https://127.0.0.1:6443 --insecure-skip-tls-verify',
    '<%= config.bin %> health check --wait --timeout 30s --endpoint readyz',
    '<%= config.bin %> health check --endpoint livez --check store -o json',
  ]
  static override flags = alphabetical({
    endpoint: Flags.string({ description: 'Status endpoint to probe.', options: ['livez', 'readyz', 'healthz'], default: 'readyz' }),
    verbose: Flags.boolean({ description: "Print the server's report, one line per check.", default: false }),
    exclude: Flags.string({ description: 'Leave this check out of the verdict (repeatable).', multiple: true, default: [] }),
    check: Flags.string({ description: 'Probe only this check, by its name as --verbose lists it (store, ping, poststarthook/...). A name the server does not have is a usage error.', exclusive: ['exclude'] }),
    wait: Flags.boolean({ description: 'Poll until healthy, or until --timeout has passed.', default: false }),
    timeout: Flags.string({ description: 'With --wait: how long to wait (a duration, or seconds).', default: '60s' }),
    interval: Flags.string({ description: 'With --wait: time between probes.', default: '500ms' }),
    output: Flags.string({ char: 'o', description: 'Output format.', options: ['text', 'json'], default: 'text' }),
    ...clientFlagDefinitions(),
  })

  async run(): Promise<void> {
    const parsed = await this.parse(HealthCheck)
    const flags = { ...parsed.flags, ...this.booleanValues }
    const code = await runHealthCheck(
      {
        client: clientFlagsFrom(flags),
        endpoint: flags.endpoint as HealthEndpoint,
        verbose: flags.verbose,
        exclude: flags.exclude,
        check: flags.check,
        wait: flags.wait,
        timeout: flags.timeout,
        interval: flags.interval,
        output: flags.output as 'text' | 'json',
        version: this.config.version,
      },
      { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t), isTTY: Boolean(process.stdout.isTTY), usageHint: usageHint(this.commandName) },
    )
    this.exit(code)
  }
}
