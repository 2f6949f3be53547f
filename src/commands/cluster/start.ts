import { Command } from '@oclif/core'
import { CLUSTER_START_OPTIONS } from '../../core/options/catalogue/index.js'
import { helpOnlyFlags } from '../../cli/catalogue-flags.js'

// Declared for --help, the manifest and the README; the server parses its own command line.
const flags = helpOnlyFlags(CLUSTER_START_OPTIONS)

export default class ClusterStart extends Command {
  static override summary = 'Start a whole cluster in one process: the API server, the controllers, the scheduler and simulated nodes.'
  static override description = `Runs the API server of \`client server start\` (every server option is accepted the same way) and, in the same process, kube-controller-manager's controllers (--controllers, under the Lease kube-system/kube-controller-manager), the scheduler and --nodes simulated nodes: Node objects with heartbeats, whose pods move through kwok's lifecycle stages (Running and Ready; Succeeded for a Job's pods) and answer \`kubectl logs\` and \`exec\` with simulated output.

The command line is checked as \`client flags validate\` checks it, with the cluster options below; an invalid one exits 1 before anything listens.`
  static override strict = false
  static override flags = flags
  static override examples = [
    '<%= config.bin %> cluster start --bind-address=127.0.0.1',
    '<%= config.bin %> cluster start --nodes=3 --node-capacity=cpu=4,memory=16Gi,pods=110',
    "<%= config.bin %> cluster start --controllers='*,-cronjob-controller' --clock=2030-01-01T00:00:00Z",
  ]

  async run(): Promise<void> {
    const { runServer } = await import('../../server/main.js')
    const code = await runServer(this.argv, this.config.version, 'cluster')
    // Timers and sockets of a stopped server must not keep the process alive.
    process.exit(code)
  }
}
