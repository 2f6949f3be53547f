/**
 * The admission control configuration (`--admission-control-config-file`), read as the
 * reference's ReadAdmissionConfiguration reads it (k8s.io/apiserver/pkg/admission/config.go):
 * an AdmissionConfiguration of apiserver.config.k8s.io/v1 or apiserver.k8s.io/v1alpha1 whose
 * plugins carry their configuration inline or by a path relative to the file's directory; or,
 * as the reference still accepts, a legacy unversioned file holding `imagePolicy` or
 * `podNodeSelectorPluginConfig`, which becomes the configuration of ImagePolicyWebhook and
 * PodNodeSelector when they are enabled. Errors carry the reference's text.
 */
import { readFileSync } from 'node:fs'
import { dirname, isAbsolute, join } from 'node:path'
import { constants } from 'node:os'
import { loadYaml } from '../util/yaml.js'
import { goJsonType } from '../util/go-json-type.js'

export class AdmissionConfigError extends Error {}

/** The apiVersions whose AdmissionConfiguration the reference's scheme knows. */
export const ADMISSION_CONFIG_API_VERSIONS = ['apiserver.config.k8s.io/v1', 'apiserver.k8s.io/v1alpha1']
/** The plugins that read the whole legacy file as their configuration. */
const LEGACY_PLUGINS = ['ImagePolicyWebhook', 'PodNodeSelector']

export interface AdmissionPluginConfiguration {
  name: string
  /** An absolute path (a relative one is resolved against the file's directory). */
  path?: string
  /** The inline configuration, as decoded. */
  configuration?: unknown
}

export interface AdmissionConfiguration {
  plugins: AdmissionPluginConfiguration[]
}

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)


/** The reference's %#v of the *fs.PathError an open or read failed with. */
function goPathError(op: string, path: string, err: NodeJS.ErrnoException): string {
  const errno = err.code ? (constants.errno as Record<string, number>)[err.code] : undefined
  return `&fs.PathError{Op:${JSON.stringify(op)}, Path:${JSON.stringify(path)}, Err:${errno !== undefined ? `0x${errno.toString(16)}` : JSON.stringify(err.message)}}`
}

/** Go's text of a failed open or read: `open <path>: no such file or directory`. */
function goOpenError(path: string, err: NodeJS.ErrnoException): string {
  const why: Record<string, string> = { ENOENT: 'no such file or directory', EACCES: 'permission denied', EISDIR: 'is a directory', ENOTDIR: 'not a directory' }
  return err.code === 'EISDIR' ? `read ${path}: is a directory` : `open ${path}: ${why[err.code ?? ''] ?? err.message}`
}

/** The reference's makeAbs: a relative path joined to the file's directory (the working directory for `.`). */
function makeAbs(path: string, base: string): string {
  if (isAbsolute(path)) return path
  return join(base === '' || base === '.' ? process.cwd() : base, path)
}

/** Decodes an AdmissionConfiguration; the plugins' fields as the reference's types take them. */
function decodePlugins(doc: Obj): AdmissionPluginConfiguration[] {
  const list = doc.plugins
  if (list === undefined || list === null) return []
  if (!Array.isArray(list)) throw new AdmissionConfigError(`json: cannot unmarshal ${goJsonType(list)} into Go struct field AdmissionConfiguration.plugins of type []v1.AdmissionPluginConfiguration`)
  return list.map((item) => {
    if (!isObj(item)) throw new AdmissionConfigError(`json: cannot unmarshal ${goJsonType(item)} into Go struct field AdmissionConfiguration.plugins of type v1.AdmissionPluginConfiguration`)
    for (const field of ['name', 'path'] as const) {
      const v = item[field]
      if (v !== undefined && v !== null && typeof v !== 'string') {
        throw new AdmissionConfigError(`json: cannot unmarshal ${goJsonType(v)} into Go struct field AdmissionPluginConfiguration.plugins.${field} of type string`)
      }
    }
    const plugin: AdmissionPluginConfiguration = { name: typeof item.name === 'string' ? item.name : '' }
    if (typeof item.path === 'string' && item.path !== '') plugin.path = item.path
    if (item.configuration !== undefined && item.configuration !== null) plugin.configuration = item.configuration
    return plugin
  })
}

/** JSON with every object's keys sorted, as Go's encoder writes a decoded map. */
function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`
  if (isObj(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${sortedJson(v[k])}`).join(',')}}`
  return JSON.stringify(v) ?? 'null'
}

/**
 * Why a document is not a registered kind (the reference's decoder errors), or undefined when
 * it is. The data they quote is the file as JSON: the file itself when it is JSON, else its
 * YAML converted.
 */
function notRegistered(doc: Obj, text: string): string | undefined {
  const kind = typeof doc.kind === 'string' ? doc.kind : ''
  const apiVersion = typeof doc.apiVersion === 'string' ? doc.apiVersion : ''
  const data = () => (text.trimStart().startsWith('{') ? text : sortedJson(doc))
  if (kind === '') return `Object 'Kind' is missing in '${data()}'`
  if (apiVersion === '') return `Object 'apiVersion' is missing in '${data()}'`
  if (kind !== 'AdmissionConfiguration' || !ADMISSION_CONFIG_API_VERSIONS.includes(apiVersion)) {
    return `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme`
  }
  return undefined
}

/**
 * Reads the file (the reference's ReadAdmissionConfiguration): `enabled` are the enabled
 * plugins' names, which a legacy file configures. No file: an empty configuration.
 */
export function readAdmissionConfiguration(enabled: readonly string[], file: string | undefined): AdmissionConfiguration {
  if (!file) return { plugins: [] }
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new AdmissionConfigError(`unable to read admission control configuration from ${JSON.stringify(file)} [${goOpenError(file, err as NodeJS.ErrnoException)}]`)
  }
  let decoded: unknown
  try {
    decoded = loadYaml(text)
  } catch (err) {
    throw new AdmissionConfigError(`error converting YAML to JSON: ${(err as Error).message}`)
  }
  if (!isObj(decoded)) throw new AdmissionConfigError(`couldn't get version/kind; json parse error: json: cannot unmarshal ${goJsonType(decoded)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`)
  const refusal = notRegistered(decoded, text)
  if (refusal === undefined) {
    const base = dirname(file)
    return { plugins: decodePlugins(decoded).map((p) => (p.path ? { ...p, path: makeAbs(p.path, base) } : p)) }
  }
  // Only a legacy plugin file is tolerated without a registered kind: the file itself is the
  // configuration of the legacy plugins that are enabled.
  if (!('imagePolicy' in decoded) && !('podNodeSelectorPluginConfig' in decoded)) throw new AdmissionConfigError(refusal)
  return { plugins: enabled.filter((name) => LEGACY_PLUGINS.includes(name)).map((name) => ({ name, path: file })) }
}

/**
 * The configuration of the plugin `name` (the reference's ConfigFor): its inline configuration,
 * else its file decoded (YAML or JSON), else undefined. A file that cannot be read stops the
 * server, as the reference's klog.Fatalf does.
 */
export function admissionPluginConfig(config: AdmissionConfiguration, name: string): unknown {
  const plugin = config.plugins.find((p) => p.name === name)
  if (!plugin) return undefined
  if (plugin.configuration !== undefined) return plugin.configuration
  if (!plugin.path) return undefined
  let text: string
  try {
    text = readFileSync(plugin.path, 'utf8')
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    throw new AdmissionConfigError(`Couldn't open admission plugin configuration ${plugin.path}: ${goPathError(e.code === 'EISDIR' ? 'read' : 'open', plugin.path, e)}`)
  }
  try {
    return loadYaml(text)
  } catch (err) {
    // The reference hands the plugin the bytes; each plugin decodes them itself. Here the file
    // is decoded for it, and a file that is no YAML is named.
    throw new AdmissionConfigError(`unable to decode admission plugin configuration ${plugin.path}: ${(err as Error).message}`)
  }
}
