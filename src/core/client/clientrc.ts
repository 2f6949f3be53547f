/**
 * The preferences file, `--clientrc` (kubectl's kuberc): a YAML document
 *
 *     apiVersion: kubectl.config.k8s.io/v1beta1
 *     kind: Preference
 *     defaults:                       # v1alpha1: `overrides`
 *     - command: patch
 *       options:                      # also accepted as `flags`
 *       - name: type
 *         default: merge
 *     aliases:
 *     - name: pm
 *       command: patch
 *       prependArgs: [configmap]
 *       appendArgs: [-o, name]
 *       options: [{ name: type, default: merge }]   # also accepted as `flags`
 *
 * Default path `$HOME/.client/clientrc` (kubectl: `~/.kube/kuberc`); a missing default file
 * is no preferences, a missing explicit one an error. `CLIENTRC=off` (kubectl: `KUBERC=off`)
 * switches the file off. `defaults` give a command's options a value unless the command
 * line sets them (explicit flags win); an alias runs its command with prependArgs, the
 * arguments, appendArgs, and its options as defaults.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { OptionSpec } from '../options/types.js'
import { loadYaml } from '../util/yaml.js'

export const CLIENTRC_API_VERSIONS = ['kubectl.config.k8s.io/v1beta1', 'kubectl.config.k8s.io/v1alpha1']

export interface PreferenceOption {
  name: string
  default: string
}

export interface Preferences {
  /** The file read. */
  file: string
  defaults: { command: string; options: PreferenceOption[] }[]
  aliases: { name: string; command: string; prependArgs: string[]; appendArgs: string[]; options: PreferenceOption[] }[]
}

/** A problem with the preferences file; the message names the file. */
export class ClientrcError extends Error {}

export function defaultClientrcPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.HOME || os.homedir(), '.client', 'clientrc')
}

/** The `--clientrc` (or `--kuberc`) value on a command line, if any (pflag forms, up to `--`). */
export function clientrcFlag(argv: readonly string[]): string | undefined {
  let found: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--') break
    const m = /^--(clientrc|kuberc)(?:=(.*))?$/s.exec(a)
    if (!m) continue
    if (m[2] !== undefined) found = m[2]
    else if (i + 1 < argv.length) found = argv[++i]
  }
  return found
}

/**
 * Reads the preferences in effect: none when `CLIENTRC=off`, or when the default file does
 * not exist. Throws ClientrcError.
 */
export function loadPreferences(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Preferences | undefined {
  if (env.CLIENTRC === 'off') return undefined
  const file = explicit !== undefined && explicit !== '' ? path.resolve(cwd, explicit) : defaultClientrcPath(env)
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' && (explicit === undefined || explicit === '')) return undefined
    const reason = code === 'ENOENT' ? 'no such file or directory' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : (err as Error).message
    throw new ClientrcError(`clientrc file ${JSON.stringify(file)}: open ${file}: ${reason}`)
  }
  return parsePreferences(text, file)
}

/** Parses and checks a preferences document. Throws ClientrcError naming `file`. */
export function parsePreferences(text: string, file: string): Preferences {
  const fail = (msg: string): never => {
    throw new ClientrcError(`clientrc file ${JSON.stringify(file)}: ${msg}`)
  }
  let doc: unknown
  try {
    doc = loadYaml(text)
  } catch (err) {
    return fail(`invalid YAML: ${(err as Error).message.split('\n')[0]}`)
  }
  if (doc === undefined || doc === null) return { file, defaults: [], aliases: [] }
  if (!isRecord(doc)) return fail('the document is not a mapping')
  const apiVersion = typeof doc.apiVersion === 'string' ? doc.apiVersion : ''
  const kind = typeof doc.kind === 'string' ? doc.kind : ''
  if (!CLIENTRC_API_VERSIONS.includes(apiVersion) || kind !== 'Preference') {
    fail(`unsupported apiVersion ${JSON.stringify(apiVersion)} and kind ${JSON.stringify(kind)}: want apiVersion ${CLIENTRC_API_VERSIONS.join(' or ')} and kind Preference`)
  }
  const options = (v: unknown, where: string): PreferenceOption[] => {
    if (v === undefined || v === null) return []
    if (!Array.isArray(v)) return fail(`${where}: options must be a list`)
    return v.map((o, i) => {
      if (!isRecord(o) || typeof o.name !== 'string' || o.name === '') return fail(`${where}: option ${i + 1} needs a name`)
      const d = o.default
      if (d === undefined || d === null || typeof d === 'object') return fail(`${where}: option ${JSON.stringify(o.name)} needs a scalar default`)
      return { name: o.name.replace(/^--?/, ''), default: String(d) }
    })
  }
  const strings = (v: unknown, where: string): string[] => {
    if (v === undefined || v === null) return []
    if (!Array.isArray(v) || v.some((s) => typeof s === 'object' || s === null)) return fail(`${where} must be a list of strings`)
    return v.map(String)
  }
  const list = (v: unknown, name: string): Record<string, unknown>[] => {
    if (v === undefined || v === null) return []
    if (!Array.isArray(v) || !v.every(isRecord)) return fail(`${name} must be a list of mappings`)
    return v
  }
  const defaults = list(doc.defaults ?? doc.overrides, 'defaults').map((d, i) => {
    if (typeof d.command !== 'string' || d.command === '') return fail(`defaults entry ${i + 1} needs a command`)
    return { command: d.command, options: options(d.options ?? d.flags, `defaults for ${JSON.stringify(d.command)}`) }
  })
  const aliases = list(doc.aliases, 'aliases').map((a, i) => {
    if (typeof a.name !== 'string' || a.name === '') return fail(`alias ${i + 1} needs a name`)
    if (typeof a.command !== 'string' || a.command === '') return fail(`alias ${JSON.stringify(a.name)} needs a command`)
    const where = `alias ${JSON.stringify(a.name)}`
    return {
      name: a.name,
      command: a.command,
      prependArgs: strings(a.prependArgs, `${where}: prependArgs`),
      appendArgs: strings(a.appendArgs, `${where}: appendArgs`),
      options: options(a.options ?? a.flags, where),
    }
  })
  return { file, defaults, aliases }
}

/** Whether the command line sets the option (long name, catalogue alias or shorthand), up to `--`. */
export function setsOption(argv: readonly string[], spec: OptionSpec): boolean {
  const longs = [spec.name, ...(spec.aliases ?? [])]
  for (const a of argv) {
    if (a === '--') return false
    if (a.startsWith('--')) {
      const name = a.slice(2).split('=')[0]
      if (longs.includes(name)) return true
    } else if (spec.short && a.length > 1 && a.startsWith('-') && a[1] === spec.short) {
      return true
    }
  }
  return false
}

/** `--name=value` for each preference option the command line does not set, before `argv`. Throws ClientrcError for an unknown option. */
export function withDefaults(argv: readonly string[], options: readonly PreferenceOption[], specs: readonly OptionSpec[], file: string, where: string): string[] {
  const added: string[] = []
  for (const o of options) {
    const spec = specs.find((s) => s.name === o.name || (s.aliases ?? []).includes(o.name) || (s.short !== undefined && s.short === o.name))
    if (!spec) throw new ClientrcError(`clientrc file ${JSON.stringify(file)}: ${where}: unknown option ${JSON.stringify(o.name)}`)
    if (setsOption(argv, spec) || setsOption(added, spec)) continue
    added.push(`--${spec.name}=${o.default}`)
  }
  return [...added, ...argv]
}

/** The arguments of `command` with the preferences' defaults for it applied (explicit flags win). */
export function applyCommandDefaults(argv: readonly string[], command: string, prefs: Preferences | undefined, specs: readonly OptionSpec[]): string[] {
  if (!prefs) return [...argv]
  let out = [...argv]
  for (const d of prefs.defaults) {
    if (d.command === command) out = withDefaults(out, d.options, specs, prefs.file, `defaults for ${JSON.stringify(command)}`)
  }
  return out
}

/**
 * The arguments of an alias's command for `client <alias> <args>`: prependArgs, args,
 * appendArgs, the alias's options as defaults, then the command's defaults. Undefined when
 * `name` is no alias for `command`.
 */
export function expandAlias(name: string, args: readonly string[], command: string, prefs: Preferences | undefined, specs: readonly OptionSpec[]): string[] | undefined {
  const alias = prefs?.aliases.find((a) => a.name === name && a.command === command)
  if (!alias || !prefs) return undefined
  const end = args.indexOf('--')
  const before = end === -1 ? [...args] : args.slice(0, end)
  const after = end === -1 ? [] : args.slice(end)
  const expanded = [...alias.prependArgs, ...before, ...alias.appendArgs, ...after]
  const withAlias = withDefaults(expanded, alias.options, specs, prefs.file, `alias ${JSON.stringify(name)}`)
  return applyCommandDefaults(withAlias, command, prefs, specs)
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
