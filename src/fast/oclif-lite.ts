/**
 * The part of oclif that `flags validate` and `health check` use, for their fast entries
 * (dist/fast/*.cjs): the build bundles the commands' own classes with `@oclif/core` replaced by
 * this file (scripts/bundle-commands.js), so the command code is the same on both paths.
 *
 * Flag parsing is oclif's only for the plain forms, where its result is certain: known flags
 * as `--name value`, `--name=value`, `-c value`, `-cvalue` or `-c=value`, each non-repeatable
 * flag once, values among the allowed ones, no exclusive pair, no deprecated flag, and for a
 * strict command no positional argument. Any other command line (an unknown or misspelled
 * flag, a missing value, a conflict) is handed back to oclif whole, before anything has been
 * printed, so that its errors and warnings are oclif's own.
 */
import type { FastContext, FastOutcome } from './outcome.js'

/** A flag definition, as oclif's Flags builders make it (the fields this parser reads). */
export interface LiteFlag {
  type: 'boolean' | 'option'
  name?: string
  char?: string
  aliases?: string[]
  charAliases?: string[]
  multiple?: boolean
  options?: readonly string[]
  default?: unknown
  exclusive?: string[]
  parse?: (input: string, context: unknown, flag: LiteFlag) => Promise<unknown>
  [key: string]: unknown
}

type FlagOptions = Partial<LiteFlag> & Record<string, unknown>

/** oclif's `Flags.string` / `Flags.boolean` / `Flags.option` / `Flags.custom`, as plain definitions. */
function custom(defaults: FlagOptions = {}) {
  return (options: FlagOptions = {}): LiteFlag => ({
    parse: async (input: string) => input,
    ...defaults,
    ...options,
    multiple: Boolean(options.multiple === undefined ? (defaults.multiple ?? false) : options.multiple),
    type: 'option',
  })
}

export const Flags = {
  custom,
  option: custom,
  string: custom(),
  boolean: (options: FlagOptions = {}): LiteFlag => ({ parse: async (b: unknown) => b, ...options, allowNo: Boolean(options.allowNo), type: 'boolean' }) as LiteFlag,
}

/** Thrown by `exit`: the status to end with (oclif's ExitError). */
export class LiteExit extends Error {
  constructor(readonly exitCode: number) {
    super(`EEXIT: ${exitCode}`)
  }
}

/** Thrown by `parse` for a command line this parser leaves to oclif. */
export class HandToOclif extends Error {
  constructor(why: string) {
    super(`left to oclif: ${why}`)
  }
}

/** The fields of oclif's Config the commands read. */
export interface LiteConfig {
  bin: string
  version: string
}

type RawToken = { type: 'flag'; flag: string; input: string } | { type: 'arg'; input: string }

interface CommandClass {
  new (argv: string[], config: LiteConfig): Command
  id?: string
  flags?: Record<string, LiteFlag>
  strict?: boolean
}

export abstract class Command {
  static id?: string
  static flags?: Record<string, LiteFlag>
  static args = {}
  static strict = true
  static summary?: string
  static description?: string
  static usage?: string | string[]
  static examples?: string[]

  id: string | undefined

  constructor(
    public argv: string[],
    public config: LiteConfig,
  ) {
    this.id = (this.constructor as CommandClass).id
  }

  abstract run(): Promise<unknown>

  async init(): Promise<void> {}

  async catch(err: Error): Promise<unknown> {
    throw err
  }

  async finally(_err: Error | undefined): Promise<void> {}

  exit(code = 0): never {
    throw new LiteExit(code)
  }

  async _run(): Promise<unknown> {
    let err: Error | undefined
    try {
      await this.init()
      return await this.run()
    } catch (error) {
      err = error as Error
      return await this.catch(err)
    } finally {
      await this.finally(err)
    }
  }

  /** oclif's parse for the plain forms (see the top of this file); HandToOclif otherwise. */
  async parse(options?: CommandClass, argv: string[] = this.argv): Promise<{ flags: Record<string, any>; args: Record<string, never>; argv: string[]; raw: RawToken[] }> {
    const ctor = options ?? (this.constructor as CommandClass)
    const defs = ctor.flags ?? {}
    const strict = ctor.strict !== false
    const byName = new Map<string, [string, LiteFlag]>()
    const byChar = new Map<string, [string, LiteFlag]>()
    for (const [name, flag] of Object.entries(defs)) {
      for (const key of ['env', 'dependsOn', 'relationships', 'required', 'deprecated', 'deprecateAliases', 'allowStdin', 'delimiter', 'multipleNonGreedy']) {
        // Semantics this parser does not have: such a command is oclif's alone.
        if (flag[key] !== undefined && flag[key] !== false) throw new HandToOclif(`--${name} has ${key}`)
      }
      byName.set(name, [name, flag])
      for (const alias of flag.aliases ?? []) byName.set(alias, [name, flag])
      if (flag.char) byChar.set(flag.char, [name, flag])
      for (const alias of flag.charAliases ?? []) byChar.set(alias, [name, flag])
    }
    const raw: RawToken[] = []
    const tokens = [...argv]
    let parsingFlags = true
    // oclif gives the words after a repeatable flag's value to that flag, up to the next flag.
    let lastOptionRepeatable = false
    while (tokens.length > 0) {
      const token = tokens.shift()!
      if (!parsingFlags || !token.startsWith('-') || token === '-') {
        if (parsingFlags && (strict || lastOptionRepeatable)) throw new HandToOclif(`the argument ${token}`)
        raw.push({ type: 'arg', input: token })
        continue
      }
      if (token === '--') {
        parsingFlags = false
        continue
      }
      let found: [string, LiteFlag] | undefined
      let value: string | undefined
      const long = /^--([^=]+)(?:=(.*))?$/s.exec(token)
      if (long) {
        found = byName.get(long[1]!)
        value = long[2]
      } else {
        found = byChar.get(token[1]!)
        const rest = token.slice(2)
        value = rest === '' ? undefined : rest.startsWith('=') ? rest.slice(1) : rest
      }
      if (!found) throw new HandToOclif(`unknown flag ${token}`)
      const [name, flag] = found
      if (flag.type === 'boolean') {
        if (value !== undefined) throw new HandToOclif(`a value for the boolean --${name}`)
        if (raw.some((r) => r.type === 'flag' && r.flag === name)) throw new HandToOclif(`--${name} twice`)
        raw.push({ type: 'flag', flag: name, input: token })
        continue
      }
      if (value === undefined) value = tokens.shift()
      // oclif takes a value that is one of the flags for a missing one; any value that starts
      // with "-" is left to it.
      if (value === undefined || (value.startsWith('-') && value !== '-')) throw new HandToOclif(`--${name} without a plain value`)
      if (!flag.multiple && raw.some((r) => r.type === 'flag' && r.flag === name)) throw new HandToOclif(`--${name} twice`)
      if (flag.options && !flag.options.includes(value)) throw new HandToOclif(`--${name}=${value} is not an option`)
      raw.push({ type: 'flag', flag: name, input: value })
      lastOptionRepeatable = Boolean(flag.multiple)
    }
    const given = new Set(raw.flatMap((r) => (r.type === 'flag' ? [r.flag] : [])))
    for (const name of given) {
      if ((defs[name]!.exclusive ?? []).some((other) => given.has(other))) throw new HandToOclif(`--${name} with an exclusive flag`)
    }
    const flags: Record<string, unknown> = {}
    for (const [name, flag] of Object.entries(defs)) {
      const inputs = raw.flatMap((r) => (r.type === 'flag' && r.flag === name ? [r.input] : []))
      if (inputs.length === 0) {
        if (flag.default !== undefined) flags[name] = typeof flag.default === 'function' ? await (flag.default as () => Promise<unknown>)() : flag.default
        continue
      }
      const parse = flag.parse ?? (async (input: string) => input)
      if (flag.type === 'boolean') flags[name] = await parse(true as unknown as string, this, flag)
      else if (flag.multiple) flags[name] = await Promise.all(inputs.map((input) => parse(input, this, flag)))
      else flags[name] = await parse(inputs[inputs.length - 1]!, this, flag)
    }
    const args = raw.flatMap((r) => (r.type === 'arg' ? [r.input] : []))
    return { flags, args: {}, argv: args, raw }
  }
}

/**
 * Runs an oclif command class (compiled against this file) with `argv`: 'done' with
 * process.exitCode set, or the command line for oclif when the parser hands it over. An
 * error the command throws goes to oclif's own error handler, loaded then.
 */
export async function runCommand(command: unknown, id: string, argv: readonly string[], context: FastContext): Promise<FastOutcome> {
  const ctor = command as CommandClass
  ctor.id = id
  const instance = new ctor([...argv], { bin: context.bin, version: context.version })
  try {
    await instance._run()
    return 'done'
  } catch (err) {
    if (err instanceof HandToOclif) return { fallback: [...id.split(':'), ...argv] }
    if (err instanceof LiteExit) {
      process.exitCode = err.exitCode
      return 'done'
    }
    throw err
  }
}
