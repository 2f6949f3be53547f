/**
 * `--encryption-provider-config`: the reference's EncryptionConfiguration file (YAML or JSON,
 * apiserver.config.k8s.io/v1), validated with the reference's field errors, turned into one
 * transformer per group/resource (`secrets`, `*.apps`, `*.` for the core group, `*.*`).
 * KMS providers need a plugin this server cannot talk to: they are refused by name.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { loadYaml } from '../../core/util/yaml.js'
import {
  type PrefixTransformer,
  type Transformer,
  aesCbcTransformer,
  aesGcmTransformer,
  identityTransformer,
  prefixTransformers,
  secretboxTransformer,
} from './transformers.js'

export const API_VERSION = 'apiserver.config.k8s.io/v1'
export const KIND = 'EncryptionConfiguration'

/** A configuration that cannot be used; the message is the reference's. */
export class EncryptionConfigError extends Error {}

export interface EncryptionConfig {
  /** Transformers by group/resource as written in the file (`secrets`, `*.apps`, `*.`, `*.*`). */
  readonly transformers: ReadonlyMap<string, Transformer>
  /** sha256 of the file's bytes: a reload of identical content changes nothing. */
  readonly contentHash: string
}

const AES_SIZES = [16, 24, 32]
const SECRETBOX_SIZES = [32]
const PROVIDERS = ['kms', 'aesgcm', 'aescbc', 'secretbox', 'identity'] as const

interface GroupResource {
  group: string
  resource: string
}

/** schema.ParseGroupResource: the part before the first dot is the resource. */
export function parseGroupResource(s: string): GroupResource {
  const dot = s.indexOf('.')
  return dot < 0 ? { group: '', resource: s } : { group: s.slice(dot + 1), resource: s.slice(0, dot) }
}

/** The map key of a group/resource, and the reference's way of printing it. */
export function grString(gr: GroupResource): string {
  if (gr.group === '' && gr.resource === '*') return '*.'
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`
}

/** The transformer of a stored resource: exact, then every resource of its group, then everything. */
export function transformerFor(config: EncryptionConfig, group: string, resource: string): Transformer | undefined {
  return (
    config.transformers.get(grString({ group, resource })) ??
    config.transformers.get(grString({ group, resource: '*' })) ??
    config.transformers.get('*.*')
  )
}

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** field.ErrorList's aggregate: one error as is, several in brackets. */
class FieldErrors {
  readonly list: string[] = []
  required(path: string, detail: string) {
    this.list.push(`${path}: Required value: ${detail}`)
  }
  invalid(path: string, value: unknown, detail: string) {
    this.list.push(`${path}: Invalid value: ${JSON.stringify(value) ?? 'null'}: ${detail}`)
  }
  message(): string | undefined {
    if (this.list.length === 0) return undefined
    return this.list.length === 1 ? this.list[0] : `[${this.list.join(', ')}]`
  }
}

const atLeastOne = (what: string) => `at least one ${what} is required`

function strictFields(obj: Obj, allowed: readonly string[], path: string, unknown: string[]) {
  for (const k of Object.keys(obj)) if (!allowed.includes(k)) unknown.push(`unknown field "${path}${path ? '.' : ''}${k}"`)
}

/** Parses and validates the file's content; throws EncryptionConfigError with the reference's message. */
export function parseEncryptionConfig(text: string, file: string): EncryptionConfig {
  if (text.length === 0) throw new EncryptionConfigError(`encryption provider configuration file "${file}" is empty`)
  let doc: unknown
  try {
    doc = loadYaml(text)
  } catch (err) {
    throw new EncryptionConfigError(`error converting YAML to JSON: ${(err as Error).message.split('\n')[0]}`)
  }
  if (!isObj(doc)) throw new EncryptionConfigError(`couldn't get version/kind; json parse error: the file is not an object`)
  const kind = doc.kind
  const apiVersion = doc.apiVersion
  if (typeof kind !== 'string' || kind === '') throw new EncryptionConfigError(`Object 'Kind' is missing in '${JSON.stringify(doc)}'`)
  if (apiVersion !== API_VERSION || kind !== KIND) {
    throw new EncryptionConfigError(`no kind "${kind}" is registered for version "${String(apiVersion ?? '')}"`)
  }
  const unknown: string[] = []
  strictFields(doc, ['apiVersion', 'kind', 'resources'], '', unknown)
  const errs = new FieldErrors()
  const resources = Array.isArray(doc.resources) ? (doc.resources as unknown[]) : []
  if (resources.length === 0) {
    errs.required('resources', atLeastOne('resources'))
    throw new EncryptionConfigError(errs.message())
  }
  const entries: { resources: string[]; providers: Obj[] }[] = []
  resources.forEach((raw, i) => {
    const entry = isObj(raw) ? raw : {}
    strictFields(entry, ['resources', 'providers'], `resources[${i}]`, unknown)
    const r = `resources[${i}].resources`
    const p = `resources[${i}].providers`
    const names = Array.isArray(entry.resources) ? entry.resources.map(String) : []
    const providers = Array.isArray(entry.providers) ? entry.providers.map((x) => (isObj(x) ? x : {})) : []
    if (names.length === 0) errs.required(r, atLeastOne(r))
    validateOverlap(names, r, errs)
    validateNames(names, r, errs)
    if (providers.length === 0) errs.required(p, atLeastOne(p))
    providers.forEach((provider, j) => {
      const path = `${p}[${j}]`
      strictFields(provider, PROVIDERS, path, unknown)
      const given = PROVIDERS.filter((name) => provider[name] !== undefined && provider[name] !== null)
      if (given.length === 0) {
        errs.invalid(path, provider, 'provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity')
        return
      }
      if (given.length > 1) {
        errs.invalid(path, provider, 'more than one provider specified in a single element, should split into different list elements')
        return
      }
      const name = given[0]!
      if (name === 'aesgcm' || name === 'aescbc' || name === 'secretbox') {
        const body = isObj(provider[name]) ? (provider[name] as Obj) : {}
        strictFields(body, ['keys'], `${path}.${name}`, unknown)
        validateKeys(body.keys, `${path}.${name}.keys`, name === 'secretbox' ? SECRETBOX_SIZES : AES_SIZES, errs, unknown)
      }
    })
    entries.push({ resources: names, providers })
  })
  if (unknown.length > 0) throw new EncryptionConfigError(`strict decoding error: ${unknown.join(', ')}`)
  const message = errs.message()
  if (message) throw new EncryptionConfigError(message)
  return { transformers: buildTransformers(entries), contentHash: createHash('sha256').update(text).digest('hex') }
}

/** Reads and parses the file, with the reference's wording for a file that cannot be read. */
export function loadEncryptionConfig(file: string): EncryptionConfig {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    const reason = e.code === 'ENOENT' ? 'no such file or directory' : e.code === 'EACCES' ? 'permission denied' : e.code === 'EISDIR' ? 'is a directory' : e.message
    throw new EncryptionConfigError(`error while parsing file: error opening encryption provider configuration file "${file}": open ${file}: ${reason}`)
  }
  try {
    return parseEncryptionConfig(text, file)
  } catch (err) {
    if (err instanceof EncryptionConfigError && !err.message.startsWith('error while building transformers')) {
      throw new EncryptionConfigError(`error while parsing file: ${err.message}`)
    }
    throw err
  }
}

function validateOverlap(resources: string[], path: string, errs: FieldErrors) {
  if (resources.length < 2) return
  const grs = resources.map(parseGroupResource)
  let overlap = false
  let duplicate = false
  grs.forEach((a, i) =>
    grs.forEach((b, j) => {
      if (i === j) return
      if (a.group === b.group && a.resource === b.resource && !duplicate) {
        duplicate = true
        return
      }
      if (overlap) return
      if (a.group === '*' && a.resource === '*') overlap = true
      else if (a.group === b.group && (a.resource === '*' || b.resource === '*')) overlap = true
    }),
  )
  const list = `[]string{${resources.map((r) => JSON.stringify(r)).join(', ')}}`
  if (duplicate) errs.list.push(`${path}: Invalid value: ${list}: the same resource cannot be specified multiple times`)
  if (overlap) errs.list.push(`${path}: Invalid value: ${list}: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked`)
}

function validateNames(resources: string[], path: string, errs: FieldErrors) {
  resources.forEach((res, j) => {
    const at = `${path}[${j}]`
    const gr = parseGroupResource(res)
    if (res.toLowerCase() !== res) errs.invalid(at, res, 'resource name should not contain capital letters')
    else if (res === '*') errs.invalid(at, res, "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources")
    else if (['apiserveripinfo', 'serviceipallocations', 'servicenodeportallocations'].includes(res)) {
      errs.invalid(at, res, 'resources which do not have REST API/s cannot be encrypted')
    } else if (gr.group === 'events.k8s.io') {
      errs.invalid(at, res, "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file")
    } else if (gr.group === 'extensions') errs.invalid(at, res, "'extensions' group has been removed and cannot be used for encryption")
    else if (gr.group === '*' && gr.resource !== '*') errs.invalid(at, res, 'encrypting the same resource across groups is not supported')
  })
}

function validateKeys(raw: unknown, path: string, sizes: number[], errs: FieldErrors, unknown: string[]) {
  const keys = Array.isArray(raw) ? raw : []
  if (keys.length === 0) {
    errs.required(path, atLeastOne('keys'))
    return
  }
  keys.forEach((k, i) => {
    const key = isObj(k) ? k : {}
    const at = `${path}[${i}]`
    strictFields(key, ['name', 'secret'], at, unknown)
    if (typeof key.name !== 'string' || key.name === '') errs.required(`${at}.name`, 'name is a mandatory field for a key')
    if (typeof key.secret !== 'string' || key.secret === '') {
      errs.required(`${at}.secret`, 'secret is a mandatory field for a key')
      return
    }
    const secret = decodeStdBase64(key.secret)
    if (!secret) {
      errs.invalid(`${at}.secret`, 'REDACTED', 'secrets must be base64 encoded')
      return
    }
    if (!sizes.includes(secret.length)) {
      errs.invalid(`${at}.secret`, 'REDACTED', `secret is not of the expected length, got ${secret.length}, expected one of [${sizes.join(' ')}]`)
    }
  })
}

/** Go's base64.StdEncoding: padded, standard alphabet, nothing else. */
function decodeStdBase64(s: string): Buffer | undefined {
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return undefined
  return Buffer.from(s, 'base64')
}

function buildTransformers(entries: { resources: string[]; providers: Obj[] }[]): Map<string, Transformer> {
  const byResource = new Map<string, PrefixTransformer[]>()
  for (const entry of entries) {
    const list = entry.providers.map(providerTransformer)
    for (const res of entry.resources) {
      const gr = parseGroupResource(res)
      for (const masking of [{ group: gr.group, resource: '*' }, { group: '*', resource: '*' }]) {
        if (byResource.has(grString(masking))) {
          throw new EncryptionConfigError(`error while building transformers: resource "${grString(gr)}" is masked by earlier rule "${grString(masking)}"`)
        }
      }
      const id = grString(gr)
      byResource.set(id, [...(byResource.get(id) ?? []), ...list])
    }
  }
  return new Map([...byResource].map(([id, list]) => [id, prefixTransformers('no matching prefix found', list)]))
}

function providerTransformer(provider: Obj): PrefixTransformer {
  if (provider.kms !== undefined) {
    const name = isObj(provider.kms) && typeof provider.kms.name === 'string' ? provider.kms.name : ''
    throw new EncryptionConfigError(
      `error while building transformers: the kms provider${name ? ` "${name}"` : ''} is not supported by this server (it has no KMS plugin client); use aescbc, aesgcm, secretbox or identity`,
    )
  }
  if (provider.identity !== undefined) return { prefix: Buffer.alloc(0), transformer: identityTransformer }
  const name = provider.aesgcm !== undefined ? 'aesgcm' : provider.aescbc !== undefined ? 'aescbc' : 'secretbox'
  const make = name === 'aesgcm' ? aesGcmTransformer : name === 'aescbc' ? aesCbcTransformer : secretboxTransformer
  const keys = ((provider[name] as Obj).keys as { name: string; secret: string }[]).map((k) => ({
    prefix: Buffer.from(`${k.name}:`),
    transformer: make(Buffer.from(k.secret, 'base64')),
  }))
  const noKey = name === 'secretbox' ? 'no matching key was found for the provided Secretbox transformer' : 'no matching key was found for the provided AES transformer'
  return { prefix: Buffer.from(`k8s:enc:${name}:v1:`), transformer: prefixTransformers(noKey, keys) }
}
