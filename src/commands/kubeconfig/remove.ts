import { Flags } from '@oclif/core'
import { KubectlStyleCommand } from '../../cli/kubectl-style-command.js'
import { alphabetical } from '../../cli/flag-order.js'

export default class KubeconfigRemove extends KubectlStyleCommand {
  static override usageExitCode = 1
  static override summary = 'Remove the context that server start --merge-kubeconfig merged into a kubeconfig.'
  static override description = `Deletes the cluster, user and context named --name ("client") from the kubeconfig, as kind's delete cluster does for its own; other entries are left as they were. When the context was the current one, no context is current afterwards (kubectl config use-context selects another). The messages are kubectl config's.`
  static override examples = ['<%= config.bin %> kubeconfig remove', '<%= config.bin %> kubeconfig remove --kubeconfig ~/.kube/config --name client']
  static override flags = alphabetical({
    kubeconfig: Flags.string({ description: 'The kubeconfig to remove the entries from (default: the first file of KUBECONFIG, or ~/.kube/config).' }),
    name: Flags.string({ description: 'Name of the cluster, user and context to remove.', default: 'client' }),
  })

  async run(): Promise<void> {
    const { flags } = await this.parse(KubeconfigRemove)
    const { homedir } = await import('node:os')
    const { delimiter, join } = await import('node:path')
    const { removeServerKubeconfig } = await import('../../core/client/kubeconfig-merge.js')
    const file = flags.kubeconfig ?? (process.env.KUBECONFIG ?? '').split(delimiter).find((f) => f !== '') ?? join(homedir(), '.kube', 'config')
    let removed: ReturnType<typeof removeServerKubeconfig>
    try {
      removed = removeServerKubeconfig(file, flags.name)
    } catch (err) {
      process.stderr.write(`error: ${(err as Error).message}\n`)
      return this.exit(1)
    }
    if (!removed.context && !removed.cluster && !removed.user) {
      process.stderr.write(`error: cannot delete context ${flags.name}, not in ${file}\n`)
      return this.exit(1)
    }
    // kubectl config delete-context's, delete-cluster's and delete-user's words.
    if (removed.wasCurrent) process.stderr.write('warning: this removed your active context, use "kubectl config use-context" to select a different one\n')
    if (removed.context) process.stdout.write(`deleted context ${flags.name} from ${file}\n`)
    if (removed.cluster) process.stdout.write(`deleted cluster ${flags.name} from ${file}\n`)
    if (removed.user) process.stdout.write(`deleted user ${flags.name} from ${file}\n`)
  }
}
