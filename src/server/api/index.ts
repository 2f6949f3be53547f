/**
 * The resource API: discovery and the REST verbs of every served kind, routed from the
 * request info the filter chain resolved, over the generic stores of a Registry.
 */
import type { Mux } from '../http/mux.js'
import { closeUnreadRequest, notFound } from '../http/respond.js'
import { pathName } from '../http/request-info.js'
import type { Handler, RequestContext } from '../http/types.js'
import type { Store } from '../store/types.js'
import type { AggregatedApis } from './aggregated-apis.js'
import type { KeyValue } from '../../core/options/types.js'
import { apiGroup, apiGroupList, apiResourceList, apiVersions } from './discovery.js'
import { aggregatedDiscoveryVersion, writeAggregatedDiscovery } from './discovery-aggregated.js'
import { createHandler } from './handlers/create.js'
import { deleteCollectionHandler, deleteHandler } from './handlers/delete.js'
import { getHandler } from './handlers/get.js'
import { listHandler } from './handlers/list.js'
import { patchHandler } from './handlers/patch.js'
import { getScaleHandler, patchScaleHandler, updateScaleHandler } from './handlers/scale.js'
import type { Scope } from './handlers/scope.js'
import { updateHandler } from './handlers/update.js'
import { podBindingHandler } from './handlers/pod-binding.js'
import { podEvictionHandler } from './handlers/pod-eviction.js'
import { componentStatusHandler } from './handlers/component-status.js'
import type { GenericStore, UpdateSubresource } from './registry/generic-store.js'
import { watchHandler } from './handlers/watch.js'
import { KINDS } from './kinds/index.js'
import { withRequester } from './requester.js'
import { bodyRefused, negotiateOutput, writeErrorNegotiated, writeObject } from './negotiation.js'
import { openApiHandler } from './openapi.js'
import type { RegistryOptions } from './registry/options.js'
import { Registry } from './registry/registry.js'
import { DEFAULT_STORAGE_MEDIA_TYPE, StorageCodec, type StorageMediaType } from './registry/storage-codec.js'
import type { Strategy } from './registry/strategy.js'
import { type EmulationOptions, enabledKinds, servedAtVersion } from './runtime-config.js'
import { ApiError, errors, toApiError, writeError } from './status-errors.js'
import { queryOf } from '../http/context.js'
import { isPromise } from '../http/maybe-promise.js'
import { tracing, withSpan } from '../tracing/spans.js'

export interface ApiDeps {
  store: () => Store | undefined
  log: (level: number, msg: string) => void
  options?: RegistryOptions
  /** `--runtime-config`: group versions and resources switched on or off. */
  runtimeConfig?: readonly KeyValue[]
  /** The effective feature gates: the beta and alpha resources tied to one need it on. */
  featureGates?: ReadonlyMap<string, boolean>
  /** `--emulated-version`'s minor: the kinds (and subresources) that release served. */
  emulatedMinor?: number
  /** --emulation-forward-compatible and --runtime-config-emulation-forward-compatible. */
  emulation?: Pick<EmulationOptions, 'forwardCompatible' | 'runtimeConfigForwardCompatible'>
  /** `--storage-media-type`: how built-in kinds are stored (protobuf when absent, as the spec's default). */
  storageMediaType?: StorageMediaType
  /**
   * Handlers of what is not stored: create-only reviews (`virtual` kinds) and subresources
   * such as serviceaccounts/token, keyed `group/version/resource[/subresource]`
   * (e.g. `authentication.k8s.io/v1/tokenreviews`, `/v1/serviceaccounts/token`).
   */
  virtualHandlers?: ReadonlyMap<string, VirtualHandler>
  /** The aggregation layer: the group versions extension servers serve are proxied there, their resources discovered. */
  aggregated?: AggregatedApis
  /**
   * The connect-type subresources served by other rooms (the node agents' `pods/log`,
   * `pods/exec`, the proxies), keyed as virtualHandlers (`/v1/pods/exec`): any method reaches
   * them, each checks its own.
   */
  connectHandlers?: ReadonlyMap<string, VirtualHandler>
}

/** What a virtual handler gets: the request, the names in its URL and the registry to read objects from. */
export interface VirtualScope {
  req: Parameters<Handler>[0]
  res: Parameters<Handler>[1]
  ctx: RequestContext
  registry: Registry
  namespace?: string
  name?: string
  query: URLSearchParams
}

export type VirtualHandler = (scope: VirtualScope) => Promise<void>

/** A verb's handler; one that answers within its call (a GET served at once) returns nothing. */
type VerbHandler = (scope: Scope) => void | Promise<void>

const VERB_HANDLERS: Record<string, VerbHandler> = {
  get: getHandler,
  list: listHandler,
  watch: watchHandler,
  create: createHandler,
  update: updateHandler,
  patch: patchHandler,
  delete: deleteHandler,
  deletecollection: deleteCollectionHandler,
}

/** The verbs of the subresources (status, scale): get, update, patch of a named object. */
const SUBRESOURCE_HANDLERS: Record<string, Record<string, VerbHandler>> = {
  status: { get: getHandler, update: updateHandler, patch: patchHandler },
  scale: { get: getScaleHandler, update: updateScaleHandler, patch: patchScaleHandler },
  finalize: { update: updateHandler },
  approval: { get: getHandler, update: updateHandler, patch: patchHandler },
  ephemeralcontainers: { get: getHandler, update: updateHandler, patch: patchHandler },
  resize: { get: getHandler, update: updateHandler, patch: patchHandler },
}

/** The subresources whose writes go through the generic update with a restricted part of the object. */
const UPDATE_SUBRESOURCES = new Set(['status', 'finalize', 'approval', 'ephemeralcontainers', 'resize'])

/** Verbs that need a name in the URL, and those that must not have one. */
const NAMED = new Set(['get', 'update', 'patch', 'delete'])
const COLLECTION = new Set(['list', 'create', 'deletecollection'])

export const NOT_INSTALLED = 'the request has been made before all known HTTP paths have been installed, please try again'

/** The built-in kinds `--runtime-config` leaves on, and the Registry over the open store (also the offline dry-run server's, src/server/offline/). */
export interface ServedApi {
  kinds: readonly Strategy[]
  storage: StorageCodec
  registryFor(store: Store): Registry
}

export function servedApi(deps: ApiDeps): ServedApi {
  const kinds = servedAtVersion(enabledKinds(KINDS, deps.runtimeConfig ?? [], deps.featureGates), deps.emulatedMinor, { ...deps.emulation, runtimeConfig: deps.runtimeConfig ?? [] })
  let registry: Registry | undefined
  let registryStore: Store | undefined
  const storage = new StorageCodec(deps.storageMediaType ?? DEFAULT_STORAGE_MEDIA_TYPE)
  return {
    kinds,
    storage,
    registryFor(store) {
      if (!registry || registryStore !== store) {
        // A registry over a store that is gone releases what it keeps running (its informers).
        registry?.stop()
        registry = new Registry(storage.wrap(store), kinds, deps.log, deps.options)
        registryStore = store
      }
      return registry
    },
  }
}

export function apiHandler(deps: ApiDeps, served: ServedApi = servedApi(deps)): Handler {
  const { kinds, registryFor, storage } = served
  const failed = async (req: Parameters<Handler>[0], res: Parameters<Handler>[1], ctx: RequestContext, err: unknown): Promise<void> => {
    const apiErr = toApiError(err)
    // Every 500 is logged with its cause (the stack of an unexpected error), at the level the operator sees.
    if (apiErr.code === 500) deps.log(0, `${req.method ?? ''} ${ctx.url.pathname}: ${err instanceof Error && !(err instanceof ApiError) ? (err.stack ?? err.message) : apiErr.message}`)
    else if (apiErr.code > 500) deps.log(2, `${req.method ?? ''} ${ctx.url.pathname}: ${apiErr.message}`)
    const afterAnswer = bodyRefused(req) ? closeUnreadRequest(res) : undefined
    await writeErrorNegotiated(req, res, apiErr)
    afterAnswer?.()
  }
  // Not async: a request whose route answers within its call (a GET the store reads at once) makes no promise here.
  return (req, res, ctx) => {
    let done: void | Promise<void>
    try {
      const store = deps.store()
      if (!store) throw errors.serviceUnavailable(NOT_INSTALLED, 5)
      // A group version an extension server serves is proxied there, as the reference's aggregator does before its local delegate.
      const remote = ctx.info.apiPrefix === 'apis' && ctx.info.apiVersion !== undefined ? deps.aggregated?.remote(ctx.info.apiGroup ?? '', ctx.info.apiVersion) : undefined
      if (remote) return remote(req, res, ctx)
      const serve = () => route(registryFor(store), kinds, req, res, ctx, deps.virtualHandlers, deps.connectHandlers, deps.aggregated)
      const who = ctx.user ? { user: ctx.user, info: ctx.info } : undefined
      // Once the codec is loaded (every request but the first few), no promise to wait for.
      done = storage.isReady ? withRequester(who, serve) : storage.ready().then(() => withRequester(who, serve))
    } catch (err) {
      return failed(req, res, ctx, err)
    }
    if (isPromise(done)) return done.catch((err: unknown) => failed(req, res, ctx, err))
  }
}

/**
 * Routes an API request. Not async: a request for a built-in kind goes on to its verb's handler
 * within this call (a throw here is the caller's to answer); discovery and custom resources,
 * which read the registry's custom kinds, continue once they are read.
 */
function route(
  registry: Registry,
  builtin: readonly Strategy[],
  req: Parameters<Handler>[0],
  res: Parameters<Handler>[1],
  ctx: RequestContext,
  virtualHandlers?: ReadonlyMap<string, VirtualHandler>,
  connectHandlers?: ReadonlyMap<string, VirtualHandler>,
  aggregated?: AggregatedApis,
): void | Promise<void> {
  const { info } = ctx
  if (!info.isResourceRequest) return routeNonResource(registry, builtin, req, res, ctx, aggregated)
  // The `/proxy/` paths are resolved (and authorized) as the reference does, but nothing serves them since v1.10.
  if (info.verb === 'proxy') throw errors.resourceNotFound()
  const group = info.apiGroup ?? ''
  const version = info.apiVersion ?? ''
  const resource = info.resource ?? ''
  const known = registry.lookup(group, version, resource)
  if (known) return routeResource(known, registry, req, res, ctx, virtualHandlers, connectHandlers)
  return registry.resolve(group, version, resource).then(async (store) => {
    if (!store) {
      // An unknown group version is not routed at all; an unknown resource in a served one is a Status.
      const kinds = info.apiGroup ? await registry.kinds() : builtin
      if (!apiResourceList(kinds, info.apiGroup ?? '', info.apiVersion ?? '')) return notFound(res)
      throw errors.resourceNotFound()
    }
    return routeResource(store, registry, req, res, ctx, virtualHandlers, connectHandlers)
  })
}

/** Discovery: /api, /apis, a group, a group version's resources. */
async function routeNonResource(registry: Registry, builtin: readonly Strategy[], req: Parameters<Handler>[0], res: Parameters<Handler>[1], ctx: RequestContext, extensionServers?: AggregatedApis): Promise<void> {
  const { info } = ctx
  const path = info.path.replace(/\/+$/, '') || '/'
  if (req.method !== 'GET' && req.method !== 'HEAD') return notFound(res)
  const aggregated = path === '/api' || path === '/apis' ? aggregatedDiscoveryVersion(req.headers.accept) : undefined
  if (path === '/api') {
    if (aggregated) return writeAggregatedDiscovery(req, res, builtin.filter((k) => k.group === ''), aggregated)
    if (!builtin.some((k) => k.group === '')) return notFound(res)
    return writeObject(res, 200, apiVersions(req), negotiateOutput(req.headers.accept, { table: false }))
  }
  const remote = extensionServers?.discoveredKinds() ?? []
  const kinds = path.startsWith('/apis') ? (remote.length > 0 ? [...(await registry.kinds()), ...remote] : await registry.kinds()) : builtin
  if (aggregated) return writeAggregatedDiscovery(req, res, kinds.filter((k) => k.group !== ''), aggregated)
  if (path === '/apis') return writeObject(res, 200, apiGroupList(kinds), negotiateOutput(req.headers.accept, { table: false }))
  const groupOnly = /^\/apis\/([^/]+)$/.exec(path)
  if (groupOnly) {
    const group = apiGroup(kinds, groupOnly[1]!)
    if (group) return writeObject(res, 200, group, negotiateOutput(req.headers.accept, { table: false }))
    return notFound(res)
  }
  if (info.apiVersion !== undefined) {
    const list = apiResourceList(kinds, info.apiGroup ?? '', info.apiVersion)
    if (list) return writeObject(res, 200, list, negotiateOutput(req.headers.accept, { table: false }))
  }
  return notFound(res)
}

/** A resource request for `store`'s kind: its subresource or verb handler. */
function routeResource(
  store: GenericStore,
  registry: Registry,
  req: Parameters<Handler>[0],
  res: Parameters<Handler>[1],
  ctx: RequestContext,
  virtualHandlers?: ReadonlyMap<string, VirtualHandler>,
  connectHandlers?: ReadonlyMap<string, VirtualHandler>,
): void | Promise<void> {
  const { info } = ctx
  const { strategy } = store
  // A list's field-selector name is not the path's: the request stays a collection read.
  const name = pathName(info)
  if (name !== undefined) checkPathSegmentName(name)
  let namespace = info.namespace
  if (!strategy.namespaced) {
    // request-info reports `namespaces/<name>` as that namespace; any other namespace segment is wrong here.
    const own = strategy.resource === 'namespaces' && strategy.group === '' && name === namespace
    if (namespace !== undefined && !own) throw errors.resourceNotFound()
    namespace = undefined
  }
  const verb = info.verb
  const connect = info.subresource !== undefined && name !== undefined ? connectHandlers?.get(`${strategy.group}/${strategy.version}/${strategy.resource}/${info.subresource}`) : undefined
  if (connect) {
    return connect({ req, res, ctx, registry, ...(namespace !== undefined ? { namespace } : {}), name: name!, query: queryOf(ctx) })
  }
  // The key is built only when a virtual handler may answer (not for a plain GET of a stored kind).
  const virtual =
    strategy.virtual || info.subresource !== undefined
      ? virtualHandlers?.get(`${strategy.group}/${strategy.version}/${strategy.resource}${info.subresource !== undefined ? `/${info.subresource}` : ''}`)
      : undefined
  if (strategy.virtual || virtual) {
    if (info.subresource !== undefined && (!strategy.subresources?.includes(info.subresource) || name === undefined)) throw errors.resourceNotFound()
    if (!virtual) throw errors.resourceNotFound()
    if (verb !== 'create') throw errors.methodNotAllowed()
    if (info.subresource === undefined && name !== undefined) throw errors.methodNotAllowed()
    return virtual({
      req,
      res,
      ctx,
      registry,
      ...(namespace !== undefined ? { namespace } : {}),
      ...(name !== undefined ? { name } : {}),
      query: queryOf(ctx),
    })
  }
  const common = { req, res, ctx, store, ...(namespace !== undefined ? { namespace } : {}), query: queryOf(ctx) }
  if (strategy.group === '' && strategy.resource === 'componentstatuses' && info.subresource === undefined) {
    if (verb !== 'get' && verb !== 'list') throw errors.methodNotAllowed()
    return componentStatusHandler({ ...common, ...(name !== undefined ? { name } : {}) }, registry.store)
  }
  if (strategy.group === '' && strategy.resource === 'bindings' && info.subresource === undefined) {
    // The bindings collection binds the pod its body names.
    if (verb !== 'create' || name !== undefined || namespace === undefined) throw errors.methodNotAllowed()
    return podBindingHandler({ ...common, store: registry.lookup('', 'v1', 'pods')! }, registry.options.admission)
  }
  if (info.subresource !== undefined) {
    const sub = info.subresource
    if (!strategy.subresources?.includes(sub) || name === undefined) throw errors.resourceNotFound()
    if (sub === 'binding' || sub === 'eviction') {
      if (verb !== 'create') throw errors.methodNotAllowed()
      if (sub === 'binding') return podBindingHandler({ ...common, name }, registry.options.admission)
      return podEvictionHandler({ ...common, name }, registry.lookup('policy', 'v1', 'poddisruptionbudgets'), registry.options.admission)
    }
    const handler = SUBRESOURCE_HANDLERS[sub]?.[verb]
    if (!handler) throw errors.methodNotAllowed()
    return handler({
      req,
      res,
      ctx,
      store,
      ...(namespace !== undefined ? { namespace } : {}),
      name,
      ...(UPDATE_SUBRESOURCES.has(sub) ? { subresource: sub as UpdateSubresource } : {}),
      query: queryOf(ctx),
    })
  }
  if (!VERB_HANDLERS[verb] || !strategy.verbs.includes(verb)) throw errors.methodNotAllowed()
  if (NAMED.has(verb) && name === undefined) throw errors.methodNotAllowed()
  if (COLLECTION.has(verb) && name !== undefined) throw errors.methodNotAllowed()
  // The all-namespaces path of a namespaced kind serves list and watch only.
  if (strategy.namespaced && namespace === undefined && (verb === 'create' || verb === 'deletecollection' || name !== undefined)) {
    throw errors.methodNotAllowed()
  }
  const scope: Scope = {
    req,
    res,
    ctx,
    store,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
    query: queryOf(ctx),
    log: registry.log,
    ...(registry.options.minRequestTimeoutSeconds !== undefined ? { minRequestTimeoutSeconds: registry.options.minRequestTimeoutSeconds } : {}),
    ...(registry.options.deleteCollectionWorkers !== undefined ? { deleteCollectionWorkers: registry.options.deleteCollectionWorkers } : {}),
    ...(registry.options.authorizeCreate !== undefined ? { authorizeCreate: registry.options.authorizeCreate } : {}),
    ...(registry.options.managedFields === false ? { managedFields: false as const } : {}),
  }
  const span = tracing() ? HANDLER_SPANS[verb] : undefined
  if (!span) return VERB_HANDLERS[verb]!(scope)
  // The reference's handlers open their span (`Create`, `Get` ...) with these fields (traceFields).
  const accept = req.headers.accept
  return withSpan(span, { 'audit-id': ctx.auditId, client: req.headers['user-agent'] ?? '', accept: Array.isArray(accept) ? accept.join(', ') : accept ?? '', protocol: `HTTP/${req.httpVersion}` }, async () => VERB_HANDLERS[verb]!(scope))
}

/** The reference handlers' span names by verb (watches, long-running, have none). */
const HANDLER_SPANS: Record<string, string> = { get: 'Get', list: 'List', create: 'Create', update: 'Update', patch: 'Patch', delete: 'Delete', deletecollection: 'Delete' }

/**
 * The reference's storage key check of the name in the URL (path.IsValidPathSegmentName, as
 * its key functions apply it): `.` and `..` would name a different key, `/` and `%` cannot be
 * part of one.
 */
function checkPathSegmentName(name: string): void {
  let problems: string[]
  if (name === '.' || name === '..') problems = [`may not be '${name}'`]
  else problems = ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`)
  if (problems.length > 0) throw errors.badRequest(`Name parameter invalid: ${JSON.stringify(name)}: ${problems.join(';')}`)
}

/**
 * Serves the resource API on `mux`: `/api` and `/apis` (discovery and resources) and the
 * OpenAPI v3 documents kubectl's create/apply need. Until the store is open every API request
 * is answered 503 with Retry-After.
 */
/** Reads one object of a built-in kind through the registry (so in its served form); undefined when absent. */
export type ApiObjectReader = (group: string, version: string, resource: string, namespace: string | undefined, name: string) => Promise<Record<string, unknown> | undefined>

/** What the server's other parts use of the installed API: the registry over a store, and single reads. */
export interface InstalledApi {
  registryFor(store: Store): Registry
  readObject: ApiObjectReader
}

export function installApi(mux: Mux, deps: ApiDeps): InstalledApi {
  const served = servedApi(deps)
  const handler = apiHandler(deps, served)
  mux.handlePrefix('/api', handler)
  mux.handlePrefix('/apis', handler)
  const openapi = openApiHandler(async () => {
    const store = deps.store()
    return store ? served.registryFor(store).kinds() : served.kinds
  }, deps.aggregated)
  const serveOpenApi: Handler = async (req, res, ctx) => {
    try {
      await openapi(req, res, ctx)
    } catch (err) {
      const apiErr = toApiError(err)
      deps.log(2, `${req.method ?? ''} ${ctx.url.pathname}: ${apiErr.message}`)
      writeError(res, apiErr)
    }
  }
  mux.handle('/openapi/v2', serveOpenApi)
  mux.handle('/openapi/v3', serveOpenApi)
  mux.handlePrefix('/openapi/v3/', serveOpenApi)
  const readObject: ApiObjectReader = async (group, version, resource, namespace, name) => {
    const store = deps.store()
    if (!store) throw new Error(NOT_INSTALLED)
    await served.storage.ready()
    const generic = served.registryFor(store).lookup(group, version, resource)
    if (!generic) return undefined
    try {
      return (await generic.get(namespace, name)) as unknown as Record<string, unknown>
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return undefined
      throw err
    }
  }
  return { registryFor: (store) => served.registryFor(store), readObject }
}
