/**
 * The general client options as oclif flags, generated from the option catalogue (the one
 * source of their names, types and help), and the conversion of oclif's parsed flags into
 * ClientFlags. Kept light: commands import it at load time, before any request is made.
 */
import { Flags, type Interfaces } from '@oclif/core'
import { CLIENT_OPTIONS } from '../options/catalogue/client.js'
import { goQuote, readCsvRecord } from '../options/go-syntax.js'
import { flagDescriptions } from '../options/oclif-flags.js'
import type { OptionSpec } from '../options/types.js'
import { ClientConfigError } from './errors.js'

/**
 * Parsed general client options, by camelCase name (`--as-group` is `asGroup`). The options
 * the connection reads are typed; every other catalogue option is there too, by its
 * camelCase name, as parsed.
 */
export interface ClientFlags {
  kubeconfig?: string
  context?: string
  cluster?: string
  user?: string
  namespace?: string
  server?: string
  certificateAuthority?: string
  insecureSkipTlsVerify?: boolean
  tlsServerName?: string
  clientCertificate?: string
  clientKey?: string
  token?: string
  username?: string
  password?: string
  as?: string
  asGroup?: string[]
  asUid?: string
  /** `key=value` items. */
  asUserExtra?: string[]
  requestTimeout?: string
  disableCompression?: boolean
  warningsAsErrors?: boolean
  [option: string]: string | string[] | boolean | undefined
}

/**
 * Options accepted for compatibility that change nothing in this client (no discovery
 * cache, no preferences file, no profiling, no storage driver, no version negotiation).
 */
export function hasNoEffect(name: string): boolean {
  return name.startsWith('storage-driver-') || NO_EFFECT.has(name)
}

const NO_EFFECT = new Set(['cache-dir', 'clientrc', 'match-server-version', 'profile', 'profile-output'])

export function camelCase(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())
}

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
    const description = hasNoEffect(spec.name) ? `${d.description} Accepted; has no effect in this client.` : d.description
    const common = {
      description,
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

/**
 * ClientFlags from oclif's parsed flags (keys are option names, e.g. `as-group`; camelCase
 * keys are accepted too). Comma-separated list options (`strings`) are split with CSV
 * rules and accumulate across repeats, as the catalogue's type says.
 */
export function clientFlagsFrom(parsed: Readonly<Record<string, unknown>>): ClientFlags {
  const out: ClientFlags = {}
  for (const spec of CLIENT_OPTIONS) {
    const raw = parsed[spec.name] ?? parsed[camelCase(spec.name)]
    if (raw === undefined || raw === null) continue
    out[camelCase(spec.name)] = convert(spec, raw)
  }
  return out
}

function convert(spec: OptionSpec, raw: unknown): string | string[] | boolean {
  const items = Array.isArray(raw) ? raw.map(String) : [String(raw)]
  switch (spec.type) {
    case 'bool':
      return typeof raw === 'boolean' ? raw : items[items.length - 1] === 'true'
    case 'strings':
      return items.flatMap((item) => {
        try {
          return readCsvRecord(item)
        } catch (err) {
          throw new ClientConfigError(`invalid argument ${goQuote(item)} for "--${spec.name}" flag: ${(err as Error).message}`)
        }
      })
    case 'stringArray':
      return items
    default:
      // Scalars: the last occurrence wins.
      return items[items.length - 1]
  }
}
