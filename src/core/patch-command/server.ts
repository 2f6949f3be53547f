/**
 * `patch` against a server (no `--local`): kubectl's RunPatch with a REST client. The targets
 * (`TYPE NAME...`, `TYPE/NAME...`, or the objects of `-f`/`-k`) are mapped to resources through
 * discovery; for `TYPE NAME` the object is read first (GET), then the patch is sent (PATCH with
 * the patch type's content type, `fieldManager`, `dryRun=All` for `--dry-run=server`) and the
 * returned object is compared with the object as read: `patched` or `patched (no change)`.
 * `--dry-run=client` patches the object locally and sends no PATCH.
 */
import {
  type ClientFlags,
  ClientConfigError,
  type Connection,
  DiscoveryCache,
  RestClient,
  type RestResponse,
  UnreachableError,
  WarningWriter,
  clientFlagsFrom,
  clientVersionInfo,
  expandCacheDir,
  resolveConnection,
  serverVersionMismatch,
} from '../client/index.js'
import { type InputItem, isRecord } from './inputs.js'
import type { PatchCommandOptions } from './options.js'
import { UNKNOWN_REASON, apiErrorText, statusOf } from '../client/api-error-text.js'
import { LocalError, patchOne, printPatched, readItems, readPatch } from './steps.js'
import type { PatchDeps, PatchIO, RunResult, Value } from './types.js'

const CONTENT_TYPES = {
  strategic: 'application/strategic-merge-patch+json',
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
} as const

/** One resource from discovery. */
export interface Mapping {
  group: string
  version: string
  resource: string
  singular: string
  kind: string
  namespaced: boolean
  shortNames: string[]
}

/** An error with the whole text kubectl prints (no `error: ` prefix added). */
export class DisplayError extends Error {}

interface Target {
  mapping: Mapping
  name: string
  namespace: string
  /** The object from the file (-f); undefined for TYPE NAME (read from the server). */
  object?: Record<string, Value>
}

export async function runServer(options: PatchCommandOptions, io: PatchIO, deps: PatchDeps): Promise<RunResult> {
  let connection: Connection
  try {
    connection = resolveConnection(clientFlags(options))
  } catch (err) {
    if (err instanceof ClientConfigError) {
      io.err(`${err.display}\n`)
      return { exitCode: 1 }
    }
    throw err
  }
  for (const w of connection.warnings) io.err(`Warning: ${w}\n`)
  const flags = clientFlags(options)
  const { text, patch } = readPatch(options, io, deps)
  // kubectl's "to JSON" step: JSON text is sent as is, anything else as the YAML's JSON.
  const body = /^\s*\{/u.test(text) ? text : deps.compactJson(patch as Value)
  const client = new RestClient(connection)
  const warnings = new WarningWriter(io.err)
  const env = io.env ?? process.env
  const cacheDir = typeof flags.cacheDir === 'string' ? flags.cacheDir : undefined
  const cache = new DiscoveryCache(expandCacheDir(cacheDir, env), connection.server)
  try {
    if (flags.matchServerVersion === true) {
      // client-go's MatchesServerVersion, before any other request.
      const res = await client.get('/version', { headers: { accept: 'application/json' } })
      warnings.handle(res.warnings)
      const mismatch = serverVersionMismatch(clientVersionInfo(options.reportedVersion), res.status, res.body)
      if (mismatch) {
        io.err(`error: ${mismatch}\n`)
        return { exitCode: 1 }
      }
    }
    const result = await patchTargets(options, io, deps, client, connection.namespace, patch, body, warnings, cache)
    // --warnings-as-errors: kubectl's post-run check, after a successful command.
    const asError = flags.warningsAsErrors === true && result.exitCode === 0 ? warnings.asError() : undefined
    if (asError) {
      io.err(`error: ${asError}\n`)
      return { exitCode: 1 }
    }
    return result
  } catch (err) {
    if (err instanceof UnreachableError || err instanceof DisplayError) {
      io.err(`${err.message}\n`)
      return { exitCode: 1 }
    }
    throw err
  } finally {
    client.close()
  }
}

function clientFlags(options: PatchCommandOptions): ClientFlags {
  const parsed: Record<string, unknown> = {}
  for (const [name, value] of options.all) parsed[name] = value
  return clientFlagsFrom(parsed)
}

async function patchTargets(
  options: PatchCommandOptions,
  io: PatchIO,
  deps: PatchDeps,
  client: RestClient,
  namespace: string,
  patch: unknown,
  body: string,
  warnings: WarningWriter,
  cache?: DiscoveryCache,
): Promise<RunResult> {
  const discovery = new Discovery(client, deps, cache, warnings)
  const errors: string[] = []
  const targets: (Target | { error: string })[] = []
  const hasFiles = options.filenames.length > 0 || options.kustomize !== ''
  if (hasFiles && options.args.length > 0) {
    throw new LocalError('when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well')
  }
  if (hasFiles) {
    const items: InputItem[] = await readItems(options, io, deps)
    for (const item of items) {
      if ('error' in item) {
        targets.push(item)
        continue
      }
      targets.push(await fileTarget(item.object, item.source, namespace, discovery))
    }
    if (targets.length === 0) throw new LocalError('no objects passed to patch')
  } else {
    targets.push(...(await argTargets(options.args, namespace, discovery)))
  }

  for (const target of targets) {
    if ('error' in target) {
      errors.push(target.error)
      continue
    }
    try {
      io.out(await patchTarget(target, options, io, deps, client, patch, body, warnings))
    } catch (err) {
      if (err instanceof UnreachableError) throw err
      errors.push(err instanceof DisplayError ? err.message : `error: ${(err as Error).message}`)
    }
  }
  if (errors.length === 1) {
    io.err(errors[0].endsWith('\n') ? errors[0] : errors[0] + '\n')
  } else if (errors.length > 1) {
    io.err(errors.map((e) => e.replace(/^error: /, '')).map((e) => (e.endsWith('\n') ? e : e + '\n')).join(''))
  }
  return { exitCode: errors.length > 0 ? 1 : 0 }
}

async function fileTarget(object: Record<string, Value>, source: string, namespace: string, discovery: Discovery): Promise<Target | { error: string }> {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : ''
  const kind = typeof object.kind === 'string' ? object.kind : ''
  const meta = isRecord(object.metadata) ? object.metadata : {}
  const name = typeof meta.name === 'string' ? meta.name : ''
  const objectNamespace = typeof meta.namespace === 'string' ? meta.namespace : ''
  const slash = apiVersion.indexOf('/')
  const group = slash === -1 ? '' : apiVersion.slice(0, slash)
  const version = slash === -1 ? apiVersion : apiVersion.slice(slash + 1)
  const mapping = await discovery.findKind(group, version, kind)
  if (!mapping) {
    return {
      error: `error: resource mapping not found for name: ${JSON.stringify(name)} namespace: ${JSON.stringify(objectNamespace)} from ${JSON.stringify(source)}: no matches for kind ${JSON.stringify(kind)} in version ${JSON.stringify(apiVersion)}\nensure CRDs are installed first`,
    }
  }
  return { mapping, name, namespace: mapping.namespaced ? objectNamespace || namespace : '', object }
}

async function argTargets(args: readonly string[], namespace: string, discovery: Discovery): Promise<(Target | { error: string })[]> {
  if (args.length === 0) {
    throw new LocalError(
      "You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'",
    )
  }
  const pairs: [string, string][] = []
  if (args.some((a) => a.includes('/'))) {
    for (const arg of args) {
      const slash = arg.indexOf('/')
      if (slash === -1) {
        throw new LocalError(
          "there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'",
        )
      }
      if (slash === 0 || slash === arg.length - 1) throw new LocalError(`arguments in resource/name form must have a single resource and name`)
      pairs.push([arg.slice(0, slash), arg.slice(slash + 1)])
    }
  } else {
    if (args.length === 1) throw new LocalError('resource(s) were provided, but no name was specified')
    if (args[0].includes(',')) throw new LocalError('you may only specify a single resource type')
    for (const name of args.slice(1)) pairs.push([args[0], name])
  }
  const mappings = new Map<string, Mapping>()
  for (const [type] of pairs) {
    if (mappings.has(type)) continue
    const mapping = await discovery.find(type)
    if (!mapping) throw new LocalError(`the server doesn't have a resource type ${JSON.stringify(type)}`)
    mappings.set(type, mapping)
  }
  return pairs.map(([type, name]) => {
    const mapping = mappings.get(type)!
    return { mapping, name, namespace: mapping.namespaced ? namespace : '' }
  })
}

function resourcePath(target: Target, subresource: string): string {
  const { mapping } = target
  const base = mapping.group === '' ? `/api/${mapping.version}` : `/apis/${mapping.group}/${mapping.version}`
  const ns = mapping.namespaced ? `/namespaces/${encodeURIComponent(target.namespace)}` : ''
  return `${base}${ns}/${mapping.resource}/${encodeURIComponent(target.name)}${subresource ? `/${subresource}` : ''}`
}

async function patchTarget(
  target: Target,
  options: PatchCommandOptions,
  io: PatchIO,
  deps: PatchDeps,
  client: RestClient,
  patch: unknown,
  body: string,
  warnings: WarningWriter,
): Promise<string> {
  const path = resourcePath(target, options.subresource)
  let original = target.object
  if (original === undefined) {
    const got = await client.get(path, { headers: { accept: 'application/json' } })
    warnings.handle(got.warnings)
    if (got.status !== 200) throw new DisplayError(apiErrorText(got))
    original = decodeObject(got.body, deps)
  }
  if (options.dryRun === 'client') return patchOne(original, patch, options, io, deps)

  const query = new URLSearchParams()
  if (options.dryRun === 'server') query.set('dryRun', 'All')
  if (options.fieldManager !== '') query.set('fieldManager', options.fieldManager)
  const qs = query.toString()
  const res = await client.request('PATCH', `${path}${qs ? `?${qs}` : ''}`, {
    body,
    headers: { 'content-type': CONTENT_TYPES[options.type], accept: 'application/json' },
  })
  warnings.handle(res.warnings)
  if (res.status < 200 || res.status > 299) {
    if (res.status === 415) {
      const { group, version, kind } = target.mapping
      throw new DisplayError(`error: ${CONTENT_TYPES[options.type]} is not supported by ${group}/${version}, Kind=${kind}: ${statusOf(res)?.message ?? UNKNOWN_REASON[415][1]}`)
    }
    throw new DisplayError(apiErrorText(res))
  }
  const patched = decodeObject(res.body, deps)
  return printPatched(patched, !deps.equal(original, patched), options, io, deps)
}

function decodeObject(text: string, deps: PatchDeps): Record<string, Value> {
  const value = deps.decodeJson(text)
  if (!isRecord(value)) throw new Error('the server returned an object that is not a JSON object')
  return value
}

/**
 * Legacy discovery (`/api`, `/apis`, `/api/v1`, `/apis/{g}/{v}`), read once per run, and kept
 * on disk between runs in kubectl's cache layout (`--cache-dir`, see client/discovery-cache.ts).
 * As kubectl does, a type or kind not found in cached discovery invalidates the cache and
 * looks again on the server.
 */
export class Discovery {
  private preferred?: Promise<Mapping[]>
  private readonly byVersion = new Map<string, Promise<Mapping[]>>()
  /** Whether anything was answered from the disk cache (a miss then refetches). */
  private usedCache = false
  private cacheOff = false

  constructor(
    private readonly client: RestClient,
    private readonly deps: PatchDeps,
    private readonly cache?: DiscoveryCache,
    private readonly warnings?: WarningWriter,
  ) {}

  /** The resources of one group version (empty when the server does not serve it). */
  resources(group: string, version: string): Promise<Mapping[]> {
    const key = `${group}/${version}`
    let found = this.byVersion.get(key)
    if (!found) {
      found = this.load(group, version)
      this.byVersion.set(key, found)
    }
    return found
  }

  /** The resource of a kind in a group version; the cache is refreshed once on a miss. */
  async findKind(group: string, version: string, kind: string): Promise<Mapping | undefined> {
    const hit = (await this.resources(group, version)).find((m) => m.kind === kind)
    if (hit || !this.refresh()) return hit
    return (await this.resources(group, version)).find((m) => m.kind === kind)
  }

  /** The resource a command-line type names: plural, singular, short name or kind, optionally `.group` or `.version.group`. */
  async find(arg: string): Promise<Mapping | undefined> {
    const hit = await this.findOnce(arg)
    if (hit || !this.refresh()) return hit
    return this.findOnce(arg)
  }

  /** Drops what came from the disk cache, for a fresh look; false when nothing did. */
  private refresh(): boolean {
    if (!this.usedCache || !this.cache) return false
    this.cache.invalidate()
    this.usedCache = false
    this.cacheOff = true
    this.preferred = undefined
    this.byVersion.clear()
    return true
  }

  private async findOnce(arg: string): Promise<Mapping | undefined> {
    const all = await this.all()
    const lower = arg.toLowerCase()
    const parts = lower.split('.')
    const matchesName = (m: Mapping, n: string) => m.resource === n || m.singular === n || m.shortNames.includes(n)
    const tries: ((m: Mapping) => boolean)[] = []
    if (parts.length >= 3) {
      const [n, v, ...g] = parts
      tries.push((m) => m.version === v && m.group === g.join('.') && matchesName(m, n))
    }
    const [n, ...g] = parts
    const group = g.join('.')
    tries.push((m) => (parts.length === 1 || m.group === group) && matchesName(m, n))
    tries.push((m) => (parts.length === 1 || m.group === group) && m.kind.toLowerCase() === n)
    for (const t of tries) {
      const hit = all.find(t)
      if (hit) return hit
    }
    // A version that is not the group's preferred one (`resource.version.group`).
    if (parts.length >= 3) {
      const [n2, v, ...g2] = parts
      const res = await this.resources(g2.join('.'), v)
      return res.find((m) => matchesName(m, n2) || m.kind.toLowerCase() === n2)
    }
    return undefined
  }

  /** The group list as client-go's ServerGroups: the core group (name "") first, then `/apis`'s groups. */
  private async groups(): Promise<Record<string, Value>[]> {
    const file = this.cache?.groupsFile()
    if (file && !this.cacheOff) {
      const cached = this.cache!.read(file)
      if (isRecord(cached) && Array.isArray(cached.groups)) {
        this.usedCache = true
        return cached.groups.filter(isRecord)
      }
    }
    const out: Record<string, Value>[] = []
    const api = await this.json('/api')
    const coreVersions = Array.isArray(api?.versions) ? (api.versions as unknown[]).filter((v): v is string => typeof v === 'string') : []
    if (coreVersions.length > 0) {
      const versions = coreVersions.map((v) => ({ groupVersion: v, version: v }))
      out.push({ name: '', versions, preferredVersion: versions[0] })
    }
    const apis = await this.json('/apis')
    if (apis === undefined) return out
    out.push(...(Array.isArray(apis.groups) ? (apis.groups as unknown[]).filter(isRecord) : []))
    if (file) this.cache!.write(file, { kind: 'APIGroupList', apiVersion: 'v1', groups: out })
    return out
  }

  private all(): Promise<Mapping[]> {
    this.preferred ??= (async () => {
      const out: Mapping[] = []
      for (const g of await this.groups()) {
        if (typeof g.name !== 'string') continue
        const preferred = isRecord(g.preferredVersion) ? g.preferredVersion.version : undefined
        const versions = Array.isArray(g.versions) ? g.versions.filter(isRecord).map((v) => v.version).filter((v): v is string => typeof v === 'string') : []
        if (g.name === '') {
          // The core group: its preferred version only, as before.
          if (versions.length > 0) out.push(...(await this.resources('', versions[0])))
          continue
        }
        const ordered = typeof preferred === 'string' ? [preferred, ...versions.filter((v) => v !== preferred)] : versions
        for (const v of ordered) out.push(...(await this.resources(g.name, v)))
      }
      return out
    })()
    return this.preferred
  }

  private async load(group: string, version: string): Promise<Mapping[]> {
    const file = this.cache?.resourcesFile(group, version)
    let list: Record<string, Value> | undefined
    if (file && !this.cacheOff) {
      const cached = this.cache!.read(file)
      if (isRecord(cached) && Array.isArray(cached.resources)) {
        list = cached
        this.usedCache = true
      }
    }
    if (!list) {
      list = await this.json(group === '' ? `/api/${version}` : `/apis/${group}/${version}`)
      if (!list || !Array.isArray(list.resources)) return []
      if (file) this.cache!.write(file, list)
    }
    if (!Array.isArray(list.resources)) return []
    const out: Mapping[] = []
    for (const r of list.resources) {
      if (!isRecord(r) || typeof r.name !== 'string' || r.name.includes('/')) continue
      const kind = typeof r.kind === 'string' ? r.kind : ''
      out.push({
        group,
        version,
        resource: r.name,
        singular: typeof r.singularName === 'string' && r.singularName !== '' ? r.singularName : kind.toLowerCase(),
        kind,
        namespaced: r.namespaced === true,
        shortNames: Array.isArray(r.shortNames) ? r.shortNames.filter((s): s is string => typeof s === 'string') : [],
      })
    }
    return out
  }

  private async json(path: string): Promise<Record<string, Value> | undefined> {
    const res = await this.client.get(path, { headers: { accept: 'application/json' } })
    this.warnings?.handle(res.warnings)
    if (res.status !== 200) return undefined
    try {
      const v = this.deps.decodeJson(res.body)
      return isRecord(v) ? v : undefined
    } catch {
      return undefined
    }
  }
}
