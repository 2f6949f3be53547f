/**
 * kubectl's answer to a bad command line, for the commands whose flags oclif parses: one line
 * `error: <what>` in pflag's and cobra's words, and one hint line `See 'client <command> --help'
 * for usage.`, instead of oclif's ` ›   Error: Nonexistent flag` and a usage dump.
 */

/** What the usage error is about, as pflag and cobra say it; undefined for errors that are not usage errors. */
export function usageErrorText(err: unknown, command: string): string | undefined {
  if (!(err instanceof Error)) return undefined
  const e = err as Error & { flags?: unknown; args?: unknown; oclif?: unknown }
  // oclif's parse errors end with its own hint; kubectl's hint replaces it.
  const message = e.message.replace(/\nSee more help with --help$/, '')
  if (Array.isArray(e.flags) && /^Nonexistent flags?:/.test(message)) return unknownFlag(String(e.flags[0]))
  if (Array.isArray(e.args) && /^Unexpected arguments?:/.test(message)) return `unknown command ${JSON.stringify(String(e.args[0]))} for ${JSON.stringify(`client ${command}`)}`
  let m = /^Expected --([^=\s]+)=(.*) to be one of: (.*)$/s.exec(message)
  if (m) return `invalid argument ${JSON.stringify(m[2])} for "--${m[1]}" flag: must be one of ${m[3]}`
  m = /^Flag --(\S+) expects a value$/.exec(message)
  if (m) return `flag needs an argument: --${m[1]}`
  m = /^Flag --(\S+) expects one of these values: (.*)$/.exec(message)
  if (m) return `flag needs an argument: --${m[1]} (one of ${m[2]})`
  m = /^Flag --(\S+) can only be specified once$/.exec(message)
  if (m) return `flag --${m[1]} can only be given once`
  if (/^The following errors? occurred:/.test(message)) return flagConstraint(message)
  return undefined
}

/** pflag's texts for a flag it does not know: `--name[=value]` or a shorthand. */
function unknownFlag(token: string): string {
  if (token.startsWith('--')) return `unknown flag: ${token.replace(/=.*$/s, '')}`
  const short = token.replace(/^-/, '').charAt(0)
  return `unknown shorthand flag: '${short}' in ${token}`
}

/** oclif's exclusive-flag failure, as cobra words a mutually exclusive group. */
function flagConstraint(message: string): string {
  // eslint-disable-next-line no-control-regex
  const reasons = message.replace(/\u001b\[[0-9;]*m/g, '').split('\n').slice(1).map((line) => line.trim()).filter(Boolean)
  const m = /^--([^=\s]+)(?:=\S*)? cannot also be provided when using --(\S+)$/.exec(reasons[0] ?? '')
  if (m) {
    const group = [m[1], m[2]].sort().join(' ')
    return `if any flags in the group [${group}] are set none of the others can be; [${group}] were all set`
  }
  return reasons.join('; ')
}

/** The hint line under a usage error. */
export function usageHint(command: string): string {
  return `See 'client ${command} --help' for usage.`
}

/** strconv.ParseBool's spellings. */
const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True'])
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False'])

export class BooleanValueError extends Error {}

/**
 * pflag's boolean flags take an optional value (`--insecure-skip-tls-verify=false`); oclif's
 * take none. This takes every `--name=value` of a boolean flag out of the command line (up to
 * `--`) and returns the values it set, the last one winning, for the caller to lay over what
 * oclif parses. A bare `--name` is left to oclif.
 */
export function takeBooleanValues(argv: readonly string[], names: ReadonlySet<string>): { argv: string[]; values: Record<string, boolean> } {
  const out: string[] = []
  const values: Record<string, boolean> = {}
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!
    if (token === '--') {
      out.push(...argv.slice(i))
      break
    }
    const m = /^--([^=]+)=(.*)$/s.exec(token)
    if (!m || !names.has(m[1]!)) {
      // A bare flag after an explicit value: the bare one is the last word.
      const bare = /^--([^=]+)$/.exec(token)
      if (bare && names.has(bare[1]!)) delete values[bare[1]!]
      out.push(token)
      continue
    }
    const [, name, value] = m as unknown as [string, string, string]
    if (TRUE.has(value)) values[name] = true
    else if (FALSE.has(value)) values[name] = false
    else throw new BooleanValueError(`invalid argument ${JSON.stringify(value)} for "--${name}" flag: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`)
    // Drop earlier bare occurrences' effect: oclif would still see them, so remove them too.
    for (let j = out.length - 1; j >= 0; j--) if (out[j] === `--${name}`) out.splice(j, 1)
  }
  return { argv: out, values }
}
