import { Command } from '@oclif/core'
import { WHO_CAN_OPTIONS } from '../../core/auth-can-i/options.js'
import { helpOnlyFlags } from '../../cli/catalogue-flags.js'

// Declared for --help, the manifest and the README; the command parses its own command line
// with pflag's rules.
const flags = helpOnlyFlags(WHO_CAN_OPTIONS)

export default class AuthWhoCan extends Command {
  static override summary = 'List the subjects allowed an action, from RBAC files, without a server.'
  static override description = `Form: auth who-can VERB (TYPE[.GROUP] | TYPE[.GROUP]/NAME | NONRESOURCEURL) [-n NAMESPACE | -A] [--subresource SUB] [--rbac-from FILE|DIR]...

Prints, as kubectl-who-can does, the RoleBindings (of the namespace, or of every namespace with -A) and ClusterRoleBindings whose role grants the action, one row per subject (ROLEBINDING, NAMESPACE, SUBJECT, TYPE, SA-NAMESPACE). Whether a role grants it is decided by the API server's RBAC rule matching (the same code), over --rbac-from plus the server's default policy.`
  static override strict = false
  static override flags = flags
  static override examples = [
    `<%= config.bin %> auth who-can delete secrets -n prod --rbac-from rbac/`,
    `<%= config.bin %> auth who-can get pods --subresource log -A --rbac-from rbac/`,
    `<%= config.bin %> auth who-can get /metrics --rbac-from rbac/`,
  ]

  async run(): Promise<void> {
    const { runWhoCan } = await import('../../core/auth-can-i/run-who-can.js')
    const { offlineAuthDeps } = await import('../../cli/offline-auth-deps.js')
    const { processIO } = await import('../../core/patch-command/process-io.js')
    const result = await runWhoCan(this.argv, this.config.bin, processIO(), offlineAuthDeps())
    if (result.help) {
      await this.config.runCommand('help', ['auth', 'who-can'])
      return
    }
    process.exitCode = result.exitCode
  }
}
