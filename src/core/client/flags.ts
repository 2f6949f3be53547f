/**
 * The general client options as parsed by a command (the one source of their names, types
 * and help is the option catalogue; src/cli/client-flags.ts declares them to oclif), and the conversion of parsed flags into
 * ClientFlags. Kept light: commands import it at load time, before any request is made.
 */
import { CLIENT_OPTIONS } from '../options/catalogue/client.js'
import { goQuote, readCsvRecord } from '../options/go-syntax.js'
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
 * Options accepted for compatibility that change nothing in the commands declaring the
 * client flags through src/cli/client-flags.ts. `patch` implements cache-dir, clientrc,
 * match-server-version, profile and profile-output itself (src/core/patch-command/run.ts,
 * server.ts); the storage-driver options have no effect anywhere.
 */
export function hasNoEffect(name: string): boolean {
  return actsNowhere(name) || NO_EFFECT.has(name)
}

/** kubectl's leftover storage-driver options: accepted, acting in no command. */
export function actsNowhere(name: string): boolean {
  return name.startsWith('storage-driver-')
}

const NO_EFFECT = new Set(['cache-dir', 'clientrc', 'match-server-version', 'profile', 'profile-output'])

export function camelCase(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())
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
