import { Command } from '@oclif/core'
import { CLIENT_OPTIONS } from '../core/options/catalogue/client.js'
import { PATCH_OPTIONS } from '../core/options/catalogue/patch.js'
import { actsNowhere } from '../core/client/flags.js'
import { helpOnlyFlags } from '../cli/catalogue-flags.js'
import { alphabetical } from '../cli/flag-order.js'

// Declared for --help, the manifest and the README; the command parses its own command line
// with pflag's rules (bare --dry-run, -p values starting with "-", kubectl's error texts).
const flags = alphabetical(helpOnlyFlags([...PATCH_OPTIONS, ...CLIENT_OPTIONS], actsNowhere))

export default class Patch extends Command {
  static override summary = 'Update fields of a resource with a strategic merge, JSON merge or JSON patch.'
  static override description = `Form: patch (TYPE NAME | TYPE/NAME | -f FILENAME | -k DIR) (-p PATCH | --patch-file FILE) [--local] [--type strategic|merge|json] [--subresource status|scale] [--dry-run none|server|client] [-o FORMAT]

Without --local the resource is patched on the server (the connection comes from the general client options and the kubeconfig; the namespace from -n, the context, or "default"): TYPE is a resource name, singular, short name or kind, optionally qualified as TYPE.GROUP, resolved through the server's discovery. --dry-run=server asks the server not to store the result; --dry-run=client patches a copy locally and sends no patch. The field manager is client-patch unless --field-manager says otherwise.

With --local the objects are read from files, directories (-R), stdin (-f -), URLs or a customization directory (-k), patched and printed; nothing is sent to a server. Messages and exit codes are those of kubectl patch.`
  static override strict = false
  static override flags = flags
  static override examples = [
    `<%= config.bin %> patch configmap app-config -n web -p '{"data":{"LOG_LEVEL":"debug"}}'`,
    `<%= config.bin %> patch ns team-a --type merge -p '{"metadata":{"labels":{"owner":"ops"}}}' -o yaml`,
    `<%= config.bin %> patch --local -f deployment.yaml -p '{"spec":{"replicas":3}}' -o yaml`,
    `<%= config.bin %> patch --local -f pod.json --type merge -p '{"metadata":{"labels":{"tier":"web"}}}'`,
    `<%= config.bin %> patch --local -f cm.yaml --type json -p '[{"op":"remove","path":"/data/OLD"}]' -o name`,
  ]

  async run(): Promise<void> {
    const { runPatchCommand, processIO } = await import('../core/patch-command/index.js')
    const result = await runPatchCommand(this.argv, this.config.bin, processIO())
    if (result.help) {
      await this.config.runCommand('help', ['patch'])
      return
    }
    process.exitCode = result.exitCode
  }
}
