/**
 * Parsing a server command line the way the reference's flag library (pflag) does:
 * `--name=value`, `--name value`, bare booleans, `-v 4` / `-v=4` / `-v4`, `_` read as `-`,
 * `--` ending the flags, lists accumulating across repeats and scalars taking the last value.
 * Every problem is collected as a finding instead of stopping at the first.
 */
import type { OptionSpec, OptionValue } from '../options/types.js'
import { ValueSyntaxError, mergeValue, parseValue } from '../options/values.js'
import { type Finding, finding } from './finding.js'
import { suggest } from './suggest.js'

interface Occurrence {
  /** The flag as typed, e.g. `--etcd-servers` or `-v`. */
  given: string
  text: string
}

interface ParsedOption {
  spec: OptionSpec
  occurrences: Occurrence[]
  value: OptionValue
}

export interface ParsedCommandLine {
  /** Explicitly given options, by canonical name. */
  options: Map<string, ParsedOption>
  positional: string[]
  findings: Finding[]
  /** Whether `-h`/`--help` or `--version` was among the flags. */
  asksForHelp: boolean
}

export class OptionIndex {
  private readonly byName = new Map<string, OptionSpec>()
  private readonly byShort = new Map<string, OptionSpec>()
  private readonly aliasOf = new Map<string, OptionSpec>()

  constructor(readonly specs: readonly OptionSpec[]) {
    for (const spec of specs) {
      this.byName.set(spec.name, spec)
      if (spec.short) this.byShort.set(spec.short, spec)
      for (const alias of spec.aliases ?? []) this.aliasOf.set(alias, spec)
    }
  }

  /** Looks a long name up (already normalised); `alias` tells whether a reference spelling matched. */
  lookup(name: string): { spec: OptionSpec; alias: boolean } | undefined {
    const spec = this.byName.get(name)
    if (spec) return { spec, alias: false }
    const aliased = this.aliasOf.get(name)
    return aliased ? { spec: aliased, alias: true } : undefined
  }

  short(letter: string): OptionSpec | undefined {
    return this.byShort.get(letter)
  }

  get(name: string): OptionSpec | undefined {
    return this.byName.get(name)
  }

  allNames(): string[] {
    return [...this.byName.keys(), ...this.aliasOf.keys()]
  }
}

const normalise = (name: string) => name.replace(/_/g, '-')

export function parseCommandLine(argv: readonly string[], index: OptionIndex, program: string): ParsedCommandLine {
  const result: ParsedCommandLine = { options: new Map(), positional: [], findings: [], asksForHelp: false }
  const aliasesReported = new Set<string>()
  const args = [...argv]

  const set = (spec: OptionSpec, given: string, text: string) => {
    let value: OptionValue
    try {
      value = parseValue(spec.type, text)
    } catch (err) {
      if (!(err instanceof ValueSyntaxError)) throw err
      const flagName = spec.short ? `-${spec.short}, --${spec.name}` : `--${spec.name}`
      result.findings.push(
        finding('error', 'PARSE-VALUE', 'parse', `invalid argument ${JSON.stringify(text)} for ${JSON.stringify(flagName)} flag: ${err.message}`, {
          option: `--${spec.name}`,
          value: text,
        }),
      )
      return
    }
    const previous = result.options.get(spec.name)
    if (previous) {
      previous.occurrences.push({ given, text })
      previous.value = mergeValue(spec.type, previous.value, value)
    } else {
      result.options.set(spec.name, { spec, occurrences: [{ given, text }], value })
    }
  }

  const noteAlias = (given: string, spec: OptionSpec) => {
    if (aliasesReported.has(given)) return
    aliasesReported.add(given)
    result.findings.push(
      finding('notice', 'ALIAS', 'parse', `${given} is the reference spelling of --${spec.name}; it is accepted as --${spec.name}`, {
        option: `--${spec.name}`,
        remedy: `write --${spec.name}`,
      }),
    )
  }

  while (args.length > 0) {
    const token = args.shift()!
    if (token.length < 2 || !token.startsWith('-')) {
      result.positional.push(token)
      continue
    }
    if (token === '--') {
      result.positional.push(...args)
      break
    }
    if (token.startsWith('--')) {
      const body = token.slice(2)
      if (body === '' || body.startsWith('-') || body.startsWith('=')) {
        result.findings.push(finding('error', 'PARSE-SYNTAX', 'parse', `bad flag syntax: ${token}`, { value: token }))
        continue
      }
      const eq = body.indexOf('=')
      const rawName = eq === -1 ? body : body.slice(0, eq)
      const name = normalise(rawName)
      if (name === 'help' || name === 'version') {
        result.asksForHelp = true
        continue
      }
      const found = index.lookup(name)
      if (!found) {
        const guess = suggest(name, index.allNames())
        result.findings.push(
          finding('error', 'PARSE-UNKNOWN', 'parse', `unknown flag: --${rawName}`, {
            option: `--${rawName}`,
            ...(guess ? { remedy: `did you mean --${guess}?` } : {}),
          }),
        )
        continue
      }
      const { spec } = found
      if (found.alias) noteAlias(`--${rawName}`, spec)
      let text: string
      if (eq !== -1) text = body.slice(eq + 1)
      else if (spec.type === 'bool') text = 'true'
      else if (args.length > 0) text = args.shift()!
      else {
        result.findings.push(finding('error', 'PARSE-MISSING', 'parse', `flag needs an argument: ${token}`, { option: `--${spec.name}` }))
        continue
      }
      set(spec, `--${rawName}`, text)
      continue
    }
    // Shorthands: `-v4`, `-v=4`, `-v 4`, or several boolean letters together.
    let shorthands = token.slice(1)
    while (shorthands.length > 0) {
      const letter = shorthands[0]
      if (letter === 'h') {
        result.asksForHelp = true
        shorthands = shorthands.slice(1)
        continue
      }
      const spec = index.short(letter)
      if (!spec) {
        result.findings.push(
          finding('error', 'PARSE-UNKNOWN', 'parse', `unknown shorthand flag: '${letter}' in -${shorthands}`, { value: token }),
        )
        break
      }
      let text: string
      if (shorthands.length > 2 && shorthands[1] === '=') {
        text = shorthands.slice(2)
        shorthands = ''
      } else if (spec.type === 'bool') {
        text = 'true'
        shorthands = shorthands.slice(1)
      } else if (shorthands.length > 1) {
        text = shorthands.slice(1)
        shorthands = ''
      } else if (args.length > 0) {
        text = args.shift()!
        shorthands = ''
      } else {
        result.findings.push(
          finding('error', 'PARSE-MISSING', 'parse', `flag needs an argument: '${letter}' in -${shorthands}`, { option: `--${spec.name}` }),
        )
        break
      }
      set(spec, `-${letter}`, text)
    }
  }

  for (const parsed of result.options.values()) {
    const { spec, occurrences } = parsed
    if (spec.deprecated) {
      result.findings.push(
        finding('warning', 'DEPRECATED', 'parse', `Flag --${spec.name} has been deprecated, ${spec.deprecated}`, { option: `--${spec.name}` }),
      )
    }
    if (!spec.repeatable && occurrences.length > 1) {
      const last = occurrences[occurrences.length - 1].text
      result.findings.push(
        finding(
          'warning',
          'PARSE-REPEATED',
          'parse',
          `--${spec.name} is given ${occurrences.length} times (${occurrences.map((o) => JSON.stringify(o.text)).join(', ')}); only the last value, ${JSON.stringify(last)}, takes effect`,
          { option: `--${spec.name}`, value: last, remedy: `give --${spec.name} once` },
        ),
      )
    }
  }

  if (result.positional.some((arg) => arg !== '')) {
    const args = result.positional.filter((arg) => arg !== '')
    result.findings.push(
      finding(
        'error',
        'ARGS',
        'arguments',
        `${JSON.stringify(program)} does not take any arguments, got [${args.map((a) => JSON.stringify(a)).join(' ')}]`,
        { value: args.join(' '), remedy: 'join a value to its flag with `=` (for example --profiling=false)' },
      ),
    )
  }
  return result
}
