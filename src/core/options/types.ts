/**
 * The shape of one entry in the option catalogue. Every command-line option of the
 * API server (and the general client options) is described once, as data, by an
 * OptionSpec; parsing, validation, --help and the README reference all read it.
 */

/**
 * Value kinds, each with the reference's syntax:
 * - int, uint: Go integer literals (base prefixes 0x, 0o, 0b, leading 0 = octal, `_` separators).
 * - float: Go float literal.
 * - bool: 1 t T TRUE true True 0 f F FALSE false False; a bare flag means true.
 * - string: any text.
 * - ip: an IPv4 or IPv6 literal (empty allowed).
 * - strings: comma-separated list (CSV rules); repeats accumulate.
 * - stringArray: each occurrence is one item, commas included; repeats accumulate.
 * - duration: Go duration (`1m0s`, `90s`, `1h30m`, `500ms`, bare `0`).
 * - quantity: a resource quantity (`64Mi`, `1G`, `0`).
 * - stringToString: `k=v,k2=v2` (value of a key may itself contain commas when quoted in CSV).
 * - mapStringString: `k=v` pairs, repeatable (e.g. --oidc-required-claim).
 * - portRange: `N`, `N1-N2` or `N1+offset`.
 * - featureGates: `[component:]Gate=bool,...`, repeatable.
 * - versions: `[component=]major.minor,...` (e.g. --emulated-version).
 * - keyValues: `key[=value],...` configuration map (e.g. --runtime-config), repeatable.
 * - namedCertKey: `cert,key[:name,...]`, repeatable.
 * - moduleLevels: `pattern=N,...` (--vmodule).
 */
export type OptionType =
  | 'int'
  | 'uint'
  | 'float'
  | 'bool'
  | 'string'
  | 'ip'
  | 'strings'
  | 'stringArray'
  | 'duration'
  | 'quantity'
  | 'stringToString'
  | 'mapStringString'
  | 'portRange'
  | 'featureGates'
  | 'versions'
  | 'keyValues'
  | 'namedCertKey'
  | 'moduleLevels'

/** Where an option belongs; used to group --help and the README reference. */
export type OptionSection =
  | 'serving'
  | 'admission'
  | 'storage'
  | 'audit'
  | 'observability'
  | 'authentication'
  | 'authorization'
  | 'limits'
  | 'cluster'
  | 'client'
  | 'patch'

/** Declarative value constraints that the generic validator checks. */
interface OptionConstraints {
  /** Inclusive numeric minimum (numbers, or durations in milliseconds). */
  min?: number
  /** Inclusive numeric maximum (numbers, or durations in milliseconds). */
  max?: number
  /** The value, or each item of a list, must be one of these (case-sensitive). */
  oneOf?: readonly string[]
}

export interface OptionSpec {
  /** Long name without the leading dashes, e.g. `secure-port`. */
  name: string
  /** One-letter short name, e.g. `v` for `--v`. */
  short?: string
  type: OptionType
  /**
   * Default as the reference prints it in --help (`6443`, `1m0s`, `[]`), or undefined when
   * there is none. For a `bool`, `true` or `false`.
   */
  default?: string
  /** One-line meaning, as in the spec. */
  help: string
  section: OptionSection
  /** When set, the option still works but using it prints this reason (pflag's deprecation). */
  deprecated?: string
  /** Other spellings accepted for it, reported as aliases (the reference's product names). */
  aliases?: readonly string[]
  constraints?: OptionConstraints
  /**
   * For list and map kinds: whether giving the option again adds to it (true for every
   * list/map kind, as in pflag); scalars are last-one-wins and repeating them is reported.
   */
  repeatable?: boolean
  /** Hidden from --help and the README (test-only switches). */
  hidden?: boolean
  /** Not from the spec but added by this product (e.g. --data-dir); documented as such. */
  productOnly?: boolean
  /** Placeholder for the value in help text, e.g. `duration`, `host:port`. */
  valueName?: string
}

/** A parsed value, by option type. */
export type OptionValue =
  | number
  | boolean
  | string
  | string[]
  | Record<string, string>
  | PortRange
  | FeatureGateSetting[]
  | VersionSetting[]
  | KeyValue[]
  | NamedCertKey[]

export interface PortRange {
  base: number
  size: number
}

export interface FeatureGateSetting {
  /** Component named by the `component:` prefix; undefined when no prefix was given. */
  component?: string
  gate: string
  /** Raw text after `=`; undefined for `Gate` without `=`. */
  value?: string
}

export interface VersionSetting {
  /** Component named by `component=`; undefined when none was given (means `core`). */
  component?: string
  version: string
  /** The item as given, e.g. `core=1.32`. */
  raw: string
}

export interface KeyValue {
  key: string
  /** Text after the first `=`; undefined for a bare key. */
  value?: string
}

export interface NamedCertKey {
  certFile: string
  keyFile: string
  names: string[]
}
