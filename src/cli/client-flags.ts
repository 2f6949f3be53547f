/**
 * The general client options declared to oclif, generated from the option catalogue: the
 * commands spread these into their flags and convert the result with clientFlagsFrom.
 */
import { Flags, type Interfaces } from '@oclif/core'
import { hasNoEffect } from '../core/client/flags.js'
import { CLIENT_OPTIONS } from '../core/options/catalogue/client.js'
import { flagDescriptions } from '../core/options/oclif-flags.js'

/**
 * oclif flag definitions for every general client option of the catalogue, keyed by option
 * name: `static flags = { ...clientFlagDefinitions(), ...ownFlags }`.
 */
export function clientFlagDefinitions(): Interfaces.FlagInput {
  const descriptions = flagDescriptions(CLIENT_OPTIONS)
  const out: Interfaces.FlagInput = {}
  for (const spec of CLIENT_OPTIONS) {
    const d = descriptions[spec.name]
    if (!d) continue // hidden
    // Accepted as kubectl accepts them, but left out of --help: it lists what acts for the command.
    const common = {
      description: d.description,
      ...(hasNoEffect(spec.name) ? { hidden: true } : {}),
      helpGroup: d.helpGroup,
      ...(d.char ? { char: d.char as 'n' } : {}),
      ...(spec.aliases?.length ? { aliases: [...spec.aliases] } : {}),
      ...(d.deprecated ? { deprecated: d.deprecated } : {}),
    }
    if (spec.type === 'bool') {
      out[spec.name] = Flags.boolean(common)
      continue
    }
    // Defaults are shown in --help only: a flag not given stays unset, and the connection
    // applies the real default (`$HOME/.client/cache` is a description, not a path).
    out[spec.name] = Flags.string({
      ...common,
      helpValue: `<${d.helpValue}>`,
      ...(spec.default !== undefined ? { defaultHelp: spec.default } : {}),
      ...(spec.repeatable ? { multiple: true } : {}),
      ...(spec.constraints?.oneOf ? { options: [...spec.constraints.oneOf] } : {}),
    } as Parameters<typeof Flags.string>[0] & object)
  }
  return out
}
