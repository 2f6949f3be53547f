/**
 * Kubeconfig loading as kubectl does it (client-go clientcmd's loading rules):
 *
 * - `--kubeconfig FILE`: that file alone; a missing file is an error.
 * - else `KUBECONFIG`: a path list (`:`-separated, `;` on Windows), duplicates and empty
 *   entries dropped, missing files skipped. For clusters, users and contexts the FIRST file
 *   that defines a name wins (the whole entry); `current-context` comes from the first file
 *   that sets it, preferences likewise.
 * - else `~/.kube/config`; when it is absent the configuration is empty.
 *
 * Relative paths inside a file (certificate-authority, client-certificate, client-key,
 * tokenFile) are resolved against that file's directory. Files are YAML or JSON.
 */
import type { ExecConfig } from './exec-credential.js'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { YamlAliasingError, loadYaml } from '../util/yaml.js'
import { ClientConfigError } from './errors.js'
import { goPathErrorText, isNotExist } from './file-errors.js'

export interface KubeCluster {
  server?: string
  tlsServerName?: string
  insecureSkipTlsVerify?: boolean
  /** Absolute path (relative ones are resolved against the defining file's directory). */
  certificateAuthority?: string
  certificateAuthorityData?: Buffer
  proxyUrl?: string
  disableCompression?: boolean
  /** The file this entry was read from (client-go's LocationOfOrigin). */
  origin: string
}

export interface KubeUser {
  clientCertificate?: string
  clientCertificateData?: Buffer
  clientKey?: string
  clientKeyData?: Buffer
  token?: string
  tokenFile?: string
  as?: string
  asUid?: string
  asGroups?: string[]
  asUserExtra?: Record<string, string[]>
  username?: string
  password?: string
  /** Present when the user authenticates with an auth-provider plugin (name only). */
  authProvider?: { name: string }
  /** Present when the user authenticates with an exec credential plugin. */
  exec?: ExecConfig
  origin: string
}

export interface KubeContext {
  cluster?: string
  user?: string
  namespace?: string
  origin: string
}

export interface Kubeconfig {
  clusters: Map<string, KubeCluster>
  users: Map<string, KubeUser>
  contexts: Map<string, KubeContext>
  currentContext?: string
  preferences: Record<string, unknown>
  /** Files read, in precedence order (absolute paths). */
  files: string[]
  /** Files named by KUBECONFIG (or the default file) that do not exist. */
  missing: string[]
}

export function emptyKubeconfig(): Kubeconfig {
  return { clusters: new Map(), users: new Map(), contexts: new Map(), preferences: {}, files: [], missing: [] }
}

/** The default file: `$HOME/.kube/config` (client-go's RecommendedHomeFile). */
export function defaultKubeconfigPath(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME || (process.platform === 'win32' ? env.USERPROFILE : undefined) || os.homedir()
  return path.join(home, '.kube', 'config')
}

/**
 * The files to read, in precedence order, and whether they were named explicitly
 * (`--kubeconfig`: must exist).
 */
export function kubeconfigPaths(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): { paths: string[]; explicit: boolean } {
  if (explicit) return { paths: [explicit], explicit: true }
  const list = env.KUBECONFIG
  if (list) {
    const seen = new Set<string>()
    const paths: string[] = []
    for (const p of list.split(path.delimiter)) {
      if (p === '' || seen.has(p)) continue
      seen.add(p)
      paths.push(p)
    }
    return { paths, explicit: false }
  }
  return { paths: [defaultKubeconfigPath(env)], explicit: false }
}

export interface LoadOptions {
  /** `--kubeconfig`. */
  kubeconfig?: string
  env?: NodeJS.ProcessEnv
}

/** Loads and merges the kubeconfig files kubectl would read. Throws ClientConfigError. */
export function loadKubeconfig(options: LoadOptions = {}): Kubeconfig {
  const env = options.env ?? process.env
  const { paths, explicit } = kubeconfigPaths(options.kubeconfig, env)
  if (explicit) {
    try {
      fs.statSync(paths[0])
    } catch (err) {
      // clientcmd returns os.Stat's error as it is.
      if (isNotExist(err)) throw new ClientConfigError(goPathErrorText(err, paths[0], 'stat'), { cause: err })
    }
  }
  const loaded: Kubeconfig[] = []
  const missing: string[] = []
  const errors: string[] = []
  for (const file of paths) {
    let text: string
    try {
      text = fs.readFileSync(file, 'utf8')
    } catch (err) {
      if (isNotExist(err)) {
        missing.push(file)
        continue
      }
      errors.push(`error loading config file "${file}": ${goPathErrorText(err, file)}`)
      continue
    }
    try {
      loaded.push(parseKubeconfig(text, file))
    } catch (err) {
      if (!(err instanceof KubeconfigSyntaxError)) throw err
      errors.push(`error loading config file "${file}": ${err.message}`)
    }
  }
  if (errors.length === 1) throw new ClientConfigError(errors[0])
  if (errors.length > 1) throw new ClientConfigError(`[${errors.join(', ')}]`, { problems: errors, display: errors.map((e) => `error: ${e}`).join('\n') })
  const merged = mergeKubeconfigs(loaded)
  merged.missing = missing
  return merged
}

/** Merges loaded files, highest precedence first: the first definition of a name wins. */
export function mergeKubeconfigs(configs: readonly Kubeconfig[]): Kubeconfig {
  const out = emptyKubeconfig()
  for (const config of configs) {
    for (const [name, c] of config.clusters) if (!out.clusters.has(name)) out.clusters.set(name, c)
    for (const [name, u] of config.users) if (!out.users.has(name)) out.users.set(name, u)
    for (const [name, c] of config.contexts) if (!out.contexts.has(name)) out.contexts.set(name, c)
    if (!out.currentContext && config.currentContext) out.currentContext = config.currentContext
    for (const [key, value] of Object.entries(config.preferences)) {
      if (!(key in out.preferences) && value !== undefined && value !== null) out.preferences[key] = value
    }
    out.files.push(...config.files)
  }
  return out
}

/** A file that is not a valid kubeconfig; the message is the part after the file name. */
export class KubeconfigSyntaxError extends Error {}

/** Parses one kubeconfig file (YAML or JSON) and resolves its relative paths. */
export function parseKubeconfig(text: string, file: string): Kubeconfig {
  const config = emptyKubeconfig()
  const origin = path.resolve(file)
  config.files.push(origin)
  let doc: unknown
  try {
    doc = loadYaml(text, { filename: file })
  } catch (err) {
    if (err instanceof YamlAliasingError) throw new KubeconfigSyntaxError(err.message)
    const e = err as { reason?: string; mark?: { line: number }; message: string }
    throw new KubeconfigSyntaxError(e.mark ? `yaml: line ${e.mark.line + 1}: ${e.reason ?? e.message}` : `yaml: ${e.message}`)
  }
  if (doc === undefined || doc === null) return config
  if (!isObject(doc)) throw new KubeconfigSyntaxError(`json: cannot unmarshal ${jsonKind(doc)} into Go value of type v1.Config`)
  const dir = path.dirname(origin)
  const resolve = (p: string | undefined): string | undefined => (p ? path.resolve(dir, p) : p)

  config.currentContext = str(doc, 'current-context', '')
  const prefs = doc.preferences
  if (prefs !== undefined && prefs !== null) {
    if (!isObject(prefs)) throw new KubeconfigSyntaxError(cannotUnmarshal(prefs, 'preferences', 'v1.Preferences'))
    config.preferences = { ...prefs }
  }

  for (const { name, body } of namedList(doc, 'clusters', 'cluster', 'Cluster')) {
    const where = `clusters[${JSON.stringify(name)}].cluster`
    config.clusters.set(name, clean({
      server: str(body, 'server', where),
      tlsServerName: str(body, 'tls-server-name', where),
      insecureSkipTlsVerify: bool(body, 'insecure-skip-tls-verify', where),
      certificateAuthority: resolve(str(body, 'certificate-authority', where)),
      certificateAuthorityData: b64(body, 'certificate-authority-data', where),
      proxyUrl: str(body, 'proxy-url', where),
      disableCompression: bool(body, 'disable-compression', where),
      origin,
    }))
  }

  for (const { name, body } of namedList(doc, 'users', 'user', 'AuthInfo')) {
    const where = `users[${JSON.stringify(name)}].user`
    const provider = body['auth-provider']
    const exec = body.exec
    if (provider !== undefined && provider !== null && !isObject(provider)) throw new KubeconfigSyntaxError(cannotUnmarshal(provider, `${where}.auth-provider`, 'v1.AuthProviderConfig'))
    if (exec !== undefined && exec !== null && !isObject(exec)) throw new KubeconfigSyntaxError(cannotUnmarshal(exec, `${where}.exec`, 'v1.ExecConfig'))
    config.users.set(name, clean({
      clientCertificate: resolve(str(body, 'client-certificate', where)),
      clientCertificateData: b64(body, 'client-certificate-data', where),
      clientKey: resolve(str(body, 'client-key', where)),
      clientKeyData: b64(body, 'client-key-data', where),
      token: str(body, 'token', where),
      tokenFile: resolve(str(body, 'tokenFile', where)),
      as: str(body, 'as', where),
      asUid: str(body, 'as-uid', where),
      asGroups: strList(body, 'as-groups', where),
      asUserExtra: strListMap(body, 'as-user-extra', where),
      username: str(body, 'username', where),
      password: str(body, 'password', where),
      authProvider: isObject(provider) ? { name: str(provider, 'name', `${where}.auth-provider`) ?? '' } : undefined,
      exec: isObject(exec) ? execConfig(exec, `${where}.exec`, dir) : undefined,
      origin,
    }))
  }

  for (const { name, body } of namedList(doc, 'contexts', 'context', 'Context')) {
    const where = `contexts[${JSON.stringify(name)}].context`
    config.contexts.set(name, clean({
      cluster: str(body, 'cluster', where),
      user: str(body, 'user', where),
      namespace: str(body, 'namespace', where),
      origin,
    }))
  }
  return config
}

type Obj = Record<string, unknown>

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date)
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'boolean') return 'bool'
  if (typeof v === 'number') return 'number'
  if (typeof v === 'string' || v instanceof Date) return 'string'
  return 'object'
}

/** encoding/json's type mismatch text. */
function cannotUnmarshal(value: unknown, field: string, goType: string): string {
  return `json: cannot unmarshal ${jsonKind(value)} into Go struct field ${field} of type ${goType}`
}

/** An exec entry; a relative command with a `/` is relative to the kubeconfig, as client-go resolves it. */
function execConfig(o: Obj, where: string, dir: string): ExecConfig {
  const command = str(o, 'command', where) ?? ''
  const env = o.env
  if (env !== undefined && env !== null && !Array.isArray(env)) throw new KubeconfigSyntaxError(cannotUnmarshal(env, field(where, 'env'), '[]v1.ExecEnvVar'))
  return clean({
    command: command.includes('/') && !path.isAbsolute(command) ? path.resolve(dir, command) : command,
    args: strList(o, 'args', where),
    env: Array.isArray(env)
      ? env.map((e, i) => {
          if (!isObject(e)) throw new KubeconfigSyntaxError(cannotUnmarshal(e, `${where}.env[${i}]`, 'v1.ExecEnvVar'))
          return { name: str(e, 'name', `${where}.env[${i}]`) ?? '', value: str(e, 'value', `${where}.env[${i}]`) ?? '' }
        })
      : undefined,
    apiVersion: str(o, 'apiVersion', where),
    installHint: str(o, 'installHint', where),
    provideClusterInfo: bool(o, 'provideClusterInfo', where),
    interactiveMode: str(o, 'interactiveMode', where),
  })
}

function clean<T extends object>(o: T): T {
  for (const key of Object.keys(o) as (keyof T)[]) if (o[key] === undefined) delete o[key]
  return o
}

/** `clusters: [{name, cluster: {...}}]` and the like; a name defined twice is an error, as in client-go. */
function namedList(doc: Obj, listKey: string, itemKey: string, struct: string): Array<{ name: string; body: Obj }> {
  const list = doc[listKey]
  if (list === undefined || list === null) return []
  if (!Array.isArray(list)) throw new KubeconfigSyntaxError(cannotUnmarshal(list, listKey, `[]v1.Named${struct}`))
  const seen = new Set<string>()
  const out: Array<{ name: string; body: Obj }> = []
  for (const item of list) {
    if (!isObject(item)) throw new KubeconfigSyntaxError(cannotUnmarshal(item, listKey, `v1.Named${struct}`))
    const name = str(item, 'name', listKey) ?? ''
    if (seen.has(name)) throw new KubeconfigSyntaxError(`duplicate name "${name}" in list: ${listKey}`)
    seen.add(name)
    const body = item[itemKey]
    if (body !== undefined && body !== null && !isObject(body)) {
      throw new KubeconfigSyntaxError(cannotUnmarshal(body, `${listKey}[${JSON.stringify(name)}].${itemKey}`, `v1.${struct}`))
    }
    out.push({ name, body: (body as Obj | null | undefined) ?? {} })
  }
  return out
}

function field(where: string, key: string): string {
  return where ? `${where}.${key}` : key
}

function str(o: Obj, key: string, where: string): string | undefined {
  const v = o[key]
  if (v === undefined || v === null) return undefined
  if (typeof v === 'string') return v
  throw new KubeconfigSyntaxError(cannotUnmarshal(v, field(where, key), 'string'))
}

// go-yaml v2 reads YAML 1.1 booleans, which js-yaml (YAML 1.2) leaves as strings.
const YAML11_TRUE = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON'])
const YAML11_FALSE = new Set(['n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF'])

function bool(o: Obj, key: string, where: string): boolean | undefined {
  const v = o[key]
  if (v === undefined || v === null) return undefined
  if (typeof v === 'boolean') return v
  if (typeof v === 'string' && YAML11_TRUE.has(v)) return true
  if (typeof v === 'string' && YAML11_FALSE.has(v)) return false
  throw new KubeconfigSyntaxError(cannotUnmarshal(v, field(where, key), 'bool'))
}

function strList(o: Obj, key: string, where: string): string[] | undefined {
  const v = o[key]
  if (v === undefined || v === null) return undefined
  if (!Array.isArray(v)) throw new KubeconfigSyntaxError(cannotUnmarshal(v, field(where, key), '[]string'))
  return v.map((item) => {
    if (typeof item !== 'string') throw new KubeconfigSyntaxError(cannotUnmarshal(item, field(where, key), 'string'))
    return item
  })
}

function strListMap(o: Obj, key: string, where: string): Record<string, string[]> | undefined {
  const v = o[key]
  if (v === undefined || v === null) return undefined
  if (!isObject(v)) throw new KubeconfigSyntaxError(cannotUnmarshal(v, field(where, key), 'map[string][]string'))
  const out: Record<string, string[]> = {}
  for (const k of Object.keys(v)) out[k] = strList(v, k, field(where, key)) ?? []
  return out
}

const BASE64_ALPHABET = /[A-Za-z0-9+/]/

/** `[]byte` fields: standard base64 with padding, line breaks ignored (encoding/json's rules). */
function b64(o: Obj, key: string, where: string): Buffer | undefined {
  const raw = str(o, key, where)
  if (raw === undefined) return undefined
  const s = raw.replace(/[\r\n]/g, '')
  for (let i = 0; i < s.length; i++) {
    const c = s[i]
    if (BASE64_ALPHABET.test(c)) continue
    // Padding: only one or two `=` closing the last quantum.
    const padded = c === '=' && s.length % 4 === 0 && i >= s.length - 2 && /^=+$/.test(s.slice(i))
    if (!padded) throw new KubeconfigSyntaxError(`${where}.${key}: illegal base64 data at input byte ${i}`)
    break
  }
  if (s.length % 4 !== 0) throw new KubeconfigSyntaxError(`${where}.${key}: illegal base64 data at input byte ${s.length - (s.length % 4)}`)
  return Buffer.from(s, 'base64')
}
