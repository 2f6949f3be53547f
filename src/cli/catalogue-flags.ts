/**
 * Catalogue options declared to oclif for --help, the manifest and the README only: the
 * commands that use them (server start, patch) parse their own command line with the
 * reference's syntax (src/core/flags/command-line.ts).
 */
import { Flags, type Interfaces } from '@oclif/core'
import { flagDescriptions, inHelpOrder } from '../core/options/oclif-flags.js'
import type { OptionSpec } from '../core/options/types.js'

export function helpOnlyFlags(options: readonly OptionSpec[], inert: (name: string) => boolean = () => false, common: readonly string[] = []): Interfaces.FlagInput {
  return Object.fromEntries(
    Object.entries(flagDescriptions(common.length > 0 ? inHelpOrder(options, common) : options, common)).map(([name, d]) => [
      name,
      Flags.string({
        description: d.description,
        // Accepted but acting for nothing in this command: not in its --help.
        ...(inert(name) ? { hidden: true } : {}),
        helpGroup: d.helpGroup,
        helpValue: `<${d.helpValue}>`,
        ...(d.char ? { char: d.char } : {}),
        ...(d.default !== undefined ? { default: d.default } : {}),
        ...(d.multiple ? { multiple: true } : {}),
        ...(d.deprecated ? { deprecated: d.deprecated } : {}),
      } as Parameters<typeof Flags.string>[0] & object),
    ]),
  )
}
