import { Flags } from '@oclif/core'
import { KubectlStyleCommand } from '../../cli/kubectl-style-command.js'
import { directWriter } from '../../core/util/direct-output.js'
import { UsageError, gatherCommandLine } from '../../core/flags/input.js'
import { passes, toJson, toText } from '../../core/flags/render.js'
import { loadConfigFileParsers, namesConfigFile } from '../../core/flags/rules/config-files.js'
import { validateServerCommandLine } from '../../core/flags/validate.js'
import { SERVER_OPTIONS } from '../../core/options/catalogue/index.js'
import { alphabetical } from '../../cli/flag-order.js'

export default class FlagsValidate extends KubectlStyleCommand {
  static override summary = 'Check an API server command line before starting a server with it.'
  static override description = `Applies the server's own start-up checks (types, ranges, names, combinations, versions, feature gates) and reports every problem with the rule it breaks. Reference spellings (--etcd-*, --kubelet-*, --kubernetes-service-node-port) are accepted and reported as aliases.

Exit status: 0 valid (warnings allowed), 1 invalid, 2 usage error (unreadable file, manifest without an API server container).`
  static override strict = false
  static override usage = ['flags validate [FLAGS] -- [SERVER FLAGS...]', 'flags validate [FLAGS] --file FILE', 'flags validate [FLAGS] --manifest FILE']
  static override examples = [
    '<%= config.bin %> flags validate -- --secure-port=6443 --authorization-mode=Node,RBAC',
    '<%= config.bin %> flags validate --manifest /etc/kubernetes/manifests/kube-apiserver.yaml -o json',
    '<%= config.bin %> flags validate --profile cis --strict -- --anonymous-auth=false --profiling=false',
    "<%= config.bin %> flags validate --command cluster -- --nodes=3 --controllers='*,-cronjob-controller'",
  ]
  static override flags = alphabetical({
    file: Flags.string({ description: 'Read the command line from a file: one line, or one flag per line (# starts a comment). - reads standard input.', exclusive: ['manifest'] }),
    manifest: Flags.string({ description: "Read the flags of the API server container's command and args from a static-pod manifest (YAML).", exclusive: ['file'] }),
    output: Flags.string({ char: 'o', description: 'Output format.', options: ['text', 'json'], default: 'text' }),
    profile: Flags.string({ description: 'Also report the security-posture findings of this benchmark (as warnings).', options: ['cis'] }),
    strict: Flags.boolean({ description: 'Fail (exit 1) on warnings too.', default: false }),
    command: Flags.string({
      description: 'The command the line is for: server (client server start) or cluster (client cluster start, which also takes the cluster options).',
      options: ['server', 'cluster'],
      default: 'server',
    }),
    target: Flags.string({
      description: 'The server the line is for: client (embedded store by default) or reference (requires a store and service-account token issuance, as the reference server does).',
      options: ['client', 'reference'],
      default: 'client',
    }),
  })

  /** A server option given before `--` is the likeliest unknown flag here: say where it goes. */
  protected override usageNotes(err: Error): string[] {
    const token = String((err as Error & { flags?: unknown[] }).flags?.[0] ?? '')
    const name = /^--([^=]+)/.exec(token)?.[1]
    const known = name !== undefined && SERVER_OPTIONS.some((o) => o.name === name || o.aliases?.includes(name))
    const serverArgs = this.argv.filter((a) => a !== '--' && SERVER_OPTIONS.some((o) => a === `--${o.name}` || a.startsWith(`--${o.name}=`)))
    return known ? [`Server options go after '--': client flags validate -- ${serverArgs.length > 0 ? serverArgs.join(' ') : token}`] : []
  }

  async run(): Promise<void> {
    const { flags, raw } = await this.parse(FlagsValidate)
    if (this.booleanValues.strict !== undefined) flags.strict = this.booleanValues.strict
    // The parser's own argv moves a second `--` to the front; the raw tokens keep their order.
    const argv = raw.filter((token) => token.type === 'arg').map((token) => token.input)
    let commandLine: string[]
    try {
      commandLine = gatherCommandLine({ argv, file: flags.file, manifest: flags.manifest })
    } catch (err) {
      if (err instanceof UsageError) this.usageError(err.message)
      throw err
    }
    const target = flags.target as 'client' | 'reference'
    if (namesConfigFile(commandLine)) await loadConfigFileParsers()
    const report = validateServerCommandLine(commandLine, { target, profile: flags.profile as 'cis' | undefined, command: flags.command as 'server' | 'cluster' })
    const out = flags.output === 'json' ? `${JSON.stringify(toJson(report, flags.strict, target), null, 2)}\n` : toText(report, flags.strict)
    // Straight to fd 1: process.stdout would load Node's stream modules for this one write.
    directWriter(1)(out)
    if (!passes(report, flags.strict)) this.exit(1)
  }
}
