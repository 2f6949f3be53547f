/**
 * What a validation rule sees: the options given, their effective values (given or default),
 * the effective feature gates and versions, and which server the line is meant for.
 */
import type { OptionValue } from '../options/types.js'
import { parseValue } from '../options/values.js'
import type { OptionIndex, ParsedCommandLine } from './command-line.js'

/**
 * `client`: a line for `client server start`, whose store is embedded unless --store-servers is
 * given and which runs without service-account token issuance. `reference`: a line for the
 * reference server, which requires a store and token issuance.
 */
export type ValidationTarget = 'client' | 'reference'

/** The version of the reference this server behaves as (spec: emulated versions 1.32 to 1.35). */
export const BINARY_VERSION = { major: 1, minor: 35 } as const
export const MIN_EMULATED_MINOR = 32

export class ValidationContext {
  /** Effective feature gates, filled in by the versions phase. */
  readonly gates = new Map<string, boolean>()
  emulatedMinor: number = BINARY_VERSION.minor
  minCompatibilityMinor: number = BINARY_VERSION.minor - 1

  constructor(
    readonly parsed: ParsedCommandLine,
    readonly index: OptionIndex,
    readonly target: ValidationTarget,
  ) {}

  /** Whether the option was given on the command line (under any spelling). */
  has(name: string): boolean {
    return this.parsed.options.has(name)
  }

  /** The effective value: as given, else the catalogue's default, else undefined. */
  value<T extends OptionValue>(name: string): T | undefined {
    const given = this.parsed.options.get(name)
    if (given) return given.value as T
    const spec = this.index.get(name)
    if (!spec) throw new Error(`no option --${name} in the catalogue`)
    if (spec.default === undefined) return undefined
    return parseValue(spec.type, spec.default === '[]' ? '' : spec.default) as T
  }

  /** The effective value of a list option, empty when unset. */
  list(name: string): string[] {
    return this.value<string[]>(name) ?? []
  }

  /** The text of the last occurrence, as given. */
  text(name: string): string | undefined {
    const occurrences = this.parsed.options.get(name)?.occurrences
    return occurrences?.[occurrences.length - 1]?.text
  }

  /** All occurrences' texts joined by commas, as given (for list options). */
  joinedText(name: string): string | undefined {
    return this.parsed.options.get(name)?.occurrences.map((o) => o.text).join(',')
  }

  gate(name: string): boolean {
    return this.gates.get(name) ?? false
  }

  /** Whether the line is for the reference server, which needs what our defaults provide. */
  get forReference(): boolean {
    return this.target === 'reference'
  }
}
