import { Command } from '@oclif/core'
import { SERVER_OPTIONS } from '../../core/options/catalogue/index.js'
import { helpOnlyFlags } from '../../cli/catalogue-flags.js'
import { COMMON_SERVER_OPTIONS } from '../../core/options/oclif-flags.js'

// Declared for --help, the manifest and the README; the server parses its own command line.
// --help lists them as kube-apiserver's does, section by section, the common ones first.
const flags = helpOnlyFlags(SERVER_OPTIONS, () => false, COMMON_SERVER_OPTIONS)

export default class ServerStart extends Command {
  static override summary = 'Start the API server.'
  static override description = `Serves HTTPS on --bind-address:--secure-port (self-signed certificates in --cert-dir unless --tls-cert-file is given) with the /healthz, /livez and /readyz status endpoints, on an embedded store in --data-dir, or on etcd with --store-servers.

The command line is checked as \`client flags validate\` checks it (same syntax: --name=value, --name value, -v 4, lists accumulate) and an invalid one exits 1 before anything listens. SIGTERM or SIGINT start a graceful shutdown (see --shutdown-delay-duration); a second signal exits at once with status 1.`
  // kube-apiserver's usage line (`kube-apiserver [flags]`): the options are listed below it.
  static override usage = 'server start [FLAGS]'
  static override strict = false
  static override flags = flags
  static override examples = [
    '<%= config.bin %> server start --bind-address=127.0.0.1',
    '<%= config.bin %> server start --secure-port=8443 --store-servers=https://127.0.0.1:2379 --store-cafile=ca.crt',
  ]

  async run(): Promise<void> {
    const { runServer } = await import('../../server/main.js')
    const code = await runServer(this.argv, this.config.version)
    // Timers and sockets of a stopped server must not keep the process alive.
    process.exit(code)
  }
}
