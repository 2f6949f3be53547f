import { Command } from '@oclif/core'
import { CAN_I_OPTIONS } from '../../core/auth-can-i/options.js'
import { helpOnlyFlags } from '../../cli/catalogue-flags.js'

// Declared for --help, the manifest and the README; the command parses its own command line
// with pflag's rules, as kubectl does (-A, --as-group repeated, flags after the arguments).
const flags = helpOnlyFlags(CAN_I_OPTIONS)

export default class AuthCanI extends Command {
  static override summary = 'Check whether an action is allowed, from RBAC files, without a server.'
  static override description = `Form: auth can-i VERB (TYPE[.GROUP] | TYPE[.GROUP]/NAME | NONRESOURCEURL) --as USER [--as-group GROUP]... [-n NAMESPACE | -A] [--subresource SUB] [--rbac-from FILE|DIR]...
      auth can-i --list --as USER [-n NAMESPACE] [--no-headers]

Answers as the API server's RBAC authorizer would (the same code) for the user that --as and --as-group impersonate (a service account, system:serviceaccount:NS:NAME, gets its groups; every named user gets system:authenticated), from the Roles, ClusterRoles (aggregation resolved), RoleBindings and ClusterRoleBindings of --rbac-from plus the server's default policy. Prints yes or no (with the reason after a no, as kubectl), exit 0 or 1, as kubectl auth can-i; --list prints kubectl's table of allowed actions; --explain adds the reason a server gives in a SubjectAccessReview (kubectl has no such flag). The Node authorizer's grants to kubelets (system:node:NAME) are not modelled.`
  static override strict = false
  static override flags = flags
  static override examples = [
    `<%= config.bin %> auth can-i delete secrets -n prod --as system:serviceaccount:ci:robot --rbac-from rbac/`,
    `<%= config.bin %> auth can-i create deployments.apps --as alice --as-group team-a --rbac-from rbac/ --explain`,
    `<%= config.bin %> auth can-i get /metrics --as prometheus --as-group monitoring --rbac-from rbac/clusterroles.yaml --rbac-from rbac/bindings.yaml`,
    `<%= config.bin %> auth can-i --list -n dev --as bob --rbac-from rbac/roles.yaml --rbac-from rbac/bindings.yaml`,
  ]

  async run(): Promise<void> {
    const { runCanI } = await import('../../core/auth-can-i/run.js')
    const { offlineAuthDeps } = await import('../../cli/offline-auth-deps.js')
    const { processIO } = await import('../../core/patch-command/process-io.js')
    const result = await runCanI(this.argv, this.config.bin, processIO(), offlineAuthDeps())
    if (result.help) {
      await this.config.runCommand('help', ['auth', 'can-i'])
      return
    }
    process.exitCode = result.exitCode
  }
}
