/**
 * A generic REST store over the Store for one kind (its Strategy): the key layout
 * (`/<resource>/<namespace>/<name>` or `/<resource>/<name>`), encoding by storage-codec.ts with the
 * resourceVersion taken from the key's mod revision (never stored), create / update / delete
 * with the reference's preconditions and errors, list paging with continue tokens over
 * filtered results, and the translation of store watches into API watch events.
 */
import { randomUUID } from 'node:crypto'
import { deepEqual } from '../../../core/patch/index.js'
import { listItemWithResourceVersion, withResourceVersion } from '../../../core/protobuf/resource-version.js'
import { defaultKeyPrefix } from '../../store/overrides.js'
import { CompactedError, ConflictError, StoreError } from '../../store/errors.js'
import type { KeyValue, PutOptions, Store, Watch, WatchEvent } from '../../store/types.js'
import { type FieldRequirement, type LabelRequirement, matchesFields, matchesLabels } from '../../http/selectors.js'
import { ApiError, CONTINUE_EXPIRED, type Cause, errors, toApiError } from '../status-errors.js'
import type { AdmissionAttributes, AdmissionHook, AdmissionOperation, AdmissionRequest } from './admission-hook.js'
import { SharedDecodes } from './shared-decodes.js'
import { type KubeObject, isPlainObject, nowTimestamp } from './object.js'
import { storageCodecFor } from './storage-codec.js'
import { type Strategy, validateForCreate, validateForUpdate } from './strategy.js'
import {
  type DeletionRequest,
  beforeDelete,
  finalizersForPropagation,
  finalizersOf,
  guardDeletionFields,
  markAsDeleting,
  shouldDeleteDuringUpdate,
} from './deletion.js'

export interface Selection {
  namespace?: string
  labels?: readonly LabelRequirement[]
  fields?: readonly FieldRequirement[]
}

export interface ListOptions extends Selection {
  limit?: number
  continue?: string
  resourceVersion?: string
  resourceVersionMatch?: string
}

export interface ListResult {
  items: KubeObject[]
  resourceVersion: string
  continue?: string
  remainingItemCount?: number
}

/** A list read while it is written: see GenericStore.streamList. */
export interface ListStream {
  resourceVersion: string
  /** Decoded, filtered objects, a page at a time, in key order. */
  pages: AsyncGenerator<KubeObject[]>
  /**
   * The same list for a protobuf writer, in place of `pages` (only one of the two is read):
   * each item that is stored as protobuf in the served form is its list item field (`12`, the
   * length, the message with its resourceVersion spliced in: see listItemWithResourceVersion),
   * copied from the stored bytes without decoding; any other item is the decoded object.
   */
  protobufPages(): AsyncGenerator<(Buffer | KubeObject)[]>
}

/**
 * Keys read from the store at a time for a list without a limit: large enough that paging
 * costs little, small enough that one page is a short turn of the event loop.
 */
export const LIST_PAGE_SIZE = 100
/** Objects decoded (and then encoded by the writer) between two turns of the event loop. */
export const LIST_DECODE_SLICE = 20

/** Lets other callbacks (new connections, probes) run before a long job goes on. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

export interface WriteOptions {
  dryRun?: boolean
  /** Records the write in metadata.managedFields (after defaulting, before validation). */
  trackFields?: (obj: KubeObject, current?: KubeObject) => void
  /**
   * The caller hands the object over (a request body decoded for this write alone) and keeps
   * no reference to it, so create may change it in place instead of writing on a copy.
   */
  handOver?: boolean
  /**
   * A fresh copy of the request's object (its body decoded again), for create to retry a
   * generated name already taken on; without it create keeps a copy of every generateName
   * object in case the first attempt fails, which costs more than the rare retry.
   */
  again?: () => Promise<KubeObject>
  /**
   * A create made by a PUT or an apply: the reference's createValidation beyond admission (may
   * the requester create it?), run once the object is valid and before admission.
   */
  checkCreate?: (obj: KubeObject) => Promise<void>
  /**
   * The request admission sees (its user, options, where warnings go); absent for writes made
   * inside the server. `false`: the write is not admitted (an eviction's deletion of its pod,
   * which the reference makes without admission).
   */
  admission?: AdmissionRequest | false
}

export interface UpdateOptions extends WriteOptions {
  /** Apply `produce` again to the new current object when a concurrent write won. */
  retryOnConflict?: boolean
  /**
   * `status`: the write of the status subresource. Only `.status` of the produced object is
   * taken (its resourceVersion and uid stay preconditions); spec and metadata stay the stored
   * ones and the kind's prepareForUpdate does not run. `finalize` (namespaces): the same with
   * spec.finalizers only; removing the last one of a terminating namespace deletes it.
   */
  subresource?: UpdateSubresource
}

/** The subresources written through update (see UpdateOptions.subresource). */
export type UpdateSubresource = 'status' | 'finalize' | 'approval' | 'ephemeralcontainers' | 'resize'

export interface DeleteOptions extends WriteOptions, DeletionRequest {
  preconditions?: { uid?: string; resourceVersion?: string }
}

/**
 * What a DELETE did: `deleted` when the object is gone; otherwise it stays, being deleted
 * (finalizers, a grace period, a terminating namespace). `updated` when `object` is the state
 * the request wrote (the reference answers it as is) rather than the state it found.
 */
export interface DeleteResult {
  object: KubeObject
  deleted: boolean
  updated: boolean
}

/** A change that is a deletion, or one that marks an object being deleted. */
export interface ObjectChange {
  type: 'created' | 'updated' | 'deleted'
  object: KubeObject
  strategy: Strategy
}

export type ApiWatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR'

export interface ApiWatchEvent {
  type: ApiWatchEventType
  object: KubeObject | Record<string, unknown>
  /** One of the events for the state the watch starts from (delivered at the client's pace, never dropped). */
  initial?: boolean
}

export interface WatchOptions extends Selection {
  resourceVersion?: string
  /**
   * The reference's WatchList (validated by the caller, with NotOlderThan): true starts with
   * ADDED for the current state, false starts from the resourceVersion (now for "" and "0");
   * unset is the legacy watch.
   */
  sendInitialEvents?: boolean
  /** With sendInitialEvents, the end of the initial events is marked by a BOOKMARK. */
  allowWatchBookmarks?: boolean
  /**
   * The caller only reads the objects: changes may come as objects shared with other such
   * watches (decoded once for all of them), which must not be modified.
   */
  readOnly?: boolean
}

/** The annotation of the BOOKMARK that ends a watch's initial events (metav1.InitialEventsAnnotationKey). */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end'

export interface ApiWatch extends AsyncIterable<ApiWatchEvent> {
  /** Stops the watch; the iteration ends. */
  cancel(): void
  /** The resourceVersion a bookmark may carry now, when the store knows (a watch cache does). */
  progress?(): string | undefined
  /**
   * The same events without a promise per event and watcher: iterate `initial` first (when
   * present), then `listen` hands each change to `sink` as the store pushes it, and ends it
   * once (with an ERROR event when the watch failed; not after cancel). Instead of iterating
   * the watch, never both. Absent when the store's watch cannot hand events over, or when
   * changes need an asynchronous step (a conversion).
   */
  direct?: { initial: AsyncIterable<ApiWatchEvent> | undefined; listen<S extends ApiWatchSink>(sink: S, group?: ApiWatchGroup<S>): void }
}

export interface ApiWatchSink {
  event(event: ApiWatchEvent): void
  end(error: ApiWatchEvent | undefined): void
}

/**
 * Watchers that send a change the same way (one output format): a read-only watch without
 * selectors that listens with a group may get later changes through it, translated once and
 * handed over once with every member it is for, instead of to its own sink (which still gets
 * everything else: what came before it joined, and the end). The same group object must be
 * used by every watcher that belongs to it.
 */
export interface ApiWatchGroup<S extends ApiWatchSink = ApiWatchSink> {
  event(event: ApiWatchEvent, members: readonly S[]): void
}

/** A listening watch's sink at the store: translates each change for its API sink. */
interface TranslatingSink<S extends ApiWatchSink = ApiWatchSink> {
  readonly api: S
  event(event: WatchEvent): void
  end(error: Error | undefined): void
  /** Ends the watch with the error (a change that could not be translated). */
  fail(error: unknown): void
}

/** The store-side half of an API watch group: a change translated once for all its members. */
type TranslatingGroup<S extends ApiWatchSink = ApiWatchSink> = { event(ev: WatchEvent, members: readonly TranslatingSink<S>[]): void }

/** The options every grouped watch translates with: read-only, no selectors. */
const UNSELECTIVE_READ_ONLY: WatchOptions = { readOnly: true }

export interface GenericStoreHooks {
  /**
   * The admission chain (src/server/admission/, passed in by the server), as the reference's
   * handlers and store run it: a create or an update is admitted by the mutating plugins before
   * the kind's defaulting and validation and by the validating ones just before the write; a
   * deletion by both before it deletes. It throws to refuse.
   */
  admission?: AdmissionHook
  /**
   * Takes over a DELETE (the namespace registry's): `proceed` runs the generic deletion.
   */
  delete?(current: KubeObject, options: DeleteOptions, proceed: () => Promise<DeleteResult>): Promise<DeleteResult>
  /**
   * False with --enable-garbage-collector=false: as the reference's store, the propagation
   * policy then adds no `orphan` / `foregroundDeletion` finalizer (nothing would remove it).
   */
  garbageCollection?: boolean
  /** Every write this store made (not dry runs), for the controllers. */
  changed?(change: ObjectChange): void
  /**
   * Refuses a create before anything else: a custom resource of a terminating CRD (the
   * reference's CRD handler refuses it before admission is reached).
   */
  refuseCreate?(): void
  /** Runs after defaulting and validation, before the write (allocations that need the store). */
  beforeCreate?(obj: KubeObject): Promise<void>
  /** The same for updates (not status writes), with the stored object. */
  beforeUpdate?(obj: KubeObject, old: KubeObject): Promise<void>
  /** Runs after an object was really created (not on dry run): objects that go with it. */
  afterCreate?(obj: KubeObject): Promise<void>
  /** Runs after an object was really deleted (not on dry run). */
  afterDelete?(obj: KubeObject): Promise<void>
  /** Seconds the written object lives (the reference's TTLFunc: events get --event-ttl). */
  ttlSeconds?(obj: KubeObject): number | undefined
}

/** The reference's continue token: base64 of {"v":"meta.k8s.io/v1","rv":N,"start":"<key after the prefix>"}. */
interface ContinueToken {
  v: string
  rv: number
  start: string
}

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start } satisfies ContinueToken)).toString('base64')
}

function decodeContinue(token: string): ContinueToken {
  let parsed: Partial<ContinueToken>
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as Partial<ContinueToken>
  } catch {
    throw errors.badRequest('continue key is not valid: illegal base64 data at input byte 0')
  }
  if (parsed.v !== 'meta.k8s.io/v1') throw errors.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)')
  if (typeof parsed.rv !== 'number' || parsed.rv <= 0 || typeof parsed.start !== 'string') {
    throw errors.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)')
  }
  if (parsed.start.startsWith('/') || parsed.start.includes('..')) throw errors.badRequest('continue key is not valid: path traversal not allowed')
  return parsed as ContinueToken
}

/** A resource version is a uint64 (the reference's ParseUint); past that it is as invalid as a word. */
function parseResourceVersion(rv: string, what = 'resourceVersion'): number {
  if (!/^\d+$/.test(rv) || BigInt(rv) > UINT64_MAX) throw errors.badRequest(`invalid ${what}: ${rv}`)
  return Number(rv)
}

const UINT64_MAX = 2n ** 64n - 1n

/**
 * How often an update without a precondition (a PATCH that names no resourceVersion) is
 * applied again to a fresh read when a concurrent write got there first. The reference's
 * GuaranteedUpdate retries until it applies, so such a patch never answers 409; with N
 * writers on one object a patch loses at most about N rounds, and this bound only stops a
 * loop the request deadline would end anyway.
 */
const MAX_UPDATE_RETRIES = 1000
/** getJson (and getForProtobuf) keep this many objects per resource and version, each at most this large (a few MiB at most). */
const JSON_CACHE_ENTRIES = 256
const JSON_CACHE_MAX_BYTES = 16 * 1024

const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789'
/** The reference's maxNameGenerationCreateAttempts. */
const MAX_NAME_GENERATION_CREATE_ATTEMPTS = 8

function randomSuffix(): string {
  let s = ''
  for (let i = 0; i < 5; i++) s += GENERATE_ALPHABET[Math.floor(Math.random() * GENERATE_ALPHABET.length)]
  return s
}

/** The stored object with the status (and the preconditions) of `produced`: a status write. */
function statusOnly(current: KubeObject, produced: KubeObject): KubeObject {
  const { status: _old, ...rest } = structuredClone(current)
  void _old
  const metadata = { ...rest.metadata }
  for (const k of ['resourceVersion', 'uid', 'name'] as const) {
    if (produced.metadata[k] === undefined) delete metadata[k]
    else metadata[k] = produced.metadata[k] as string
  }
  return { ...rest, metadata, ...(produced.status !== undefined ? { status: structuredClone(produced.status) } : {}) }
}

/** The stored namespace with the spec.finalizers (and the preconditions) of `produced`: a finalize write. */
function finalizeOnly(current: KubeObject, produced: KubeObject): KubeObject {
  const obj = statusOnly(current, { ...produced, status: current.status })
  const spec = isPlainObject(produced.spec) ? produced.spec : {}
  obj.spec = { ...(isPlainObject(current.spec) ? current.spec : {}), finalizers: Array.isArray(spec.finalizers) ? structuredClone(spec.finalizers) : [] }
  return obj
}

/** A CSR's approval write: only status.conditions of `produced` (the certificate stays the stored one). */
function approvalOnly(current: KubeObject, produced: KubeObject): KubeObject {
  const currentStatus = isPlainObject(current.status) ? current.status : {}
  const producedStatus = isPlainObject(produced.status) ? produced.status : {}
  const status: Record<string, unknown> = { ...structuredClone(currentStatus) }
  if (producedStatus.conditions === undefined) delete status.conditions
  else status.conditions = structuredClone(producedStatus.conditions)
  return statusOnly(current, { ...produced, status })
}

/**
 * A pod's ephemeralcontainers or resize write: only spec.ephemeralContainers, or the
 * containers' resources (and resizePolicy), of `produced`; the rest stays the stored pod.
 */
function podSpecPartOnly(current: KubeObject, produced: KubeObject, part: 'ephemeralcontainers' | 'resize'): KubeObject {
  const obj = statusOnly(current, { ...produced, status: current.status })
  const spec: Record<string, unknown> = structuredClone(isPlainObject(current.spec) ? current.spec : {})
  const producedSpec = isPlainObject(produced.spec) ? produced.spec : {}
  if (part === 'ephemeralcontainers') {
    if (producedSpec.ephemeralContainers === undefined) delete spec.ephemeralContainers
    else spec.ephemeralContainers = structuredClone(producedSpec.ephemeralContainers)
  } else {
    const byName = new Map((Array.isArray(producedSpec.containers) ? producedSpec.containers : []).filter(isPlainObject).map((c) => [c.name, c]))
    for (const c of Array.isArray(spec.containers) ? spec.containers : []) {
      if (!isPlainObject(c)) continue
      const next = byName.get(c.name)
      if (!next) continue
      for (const field of ['resources', 'resizePolicy']) {
        if (next[field] === undefined) delete c[field]
        else c[field] = structuredClone(next[field])
      }
    }
  }
  obj.spec = spec
  return obj
}

/** Keeps `bytes` for `key` at `modRevision` in one of the read caches (bounded in entries and entry size, oldest dropped first). */
function remember(cache: Map<string, { modRevision: number; json: Buffer }>, key: string, modRevision: number, bytes: Buffer): void {
  cache.delete(key)
  if (bytes.length > JSON_CACHE_MAX_BYTES) return
  if (cache.size >= JSON_CACHE_ENTRIES) cache.delete(cache.keys().next().value!)
  cache.set(key, { modRevision, json: bytes })
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/')
  return slash < 0 ? '' : apiVersion.slice(0, slash)
}

export class GenericStore {
  /** Changes decoded once for all read-only watches of this resource and version. */
  private readonly sharedDecodes = new SharedDecodes()
  /** The JSON of objects read recently, by key, with the revision it was made from (getJson). */
  private readonly jsonByKey = new Map<string, { modRevision: number; json: Buffer }>()
  /** The same for protobuf readers: the stored bytes with their resourceVersion spliced in (getForProtobuf). */
  private readonly protobufByKey = new Map<string, { modRevision: number; json: Buffer }>()
  constructor(
    private readonly store: Store,
    readonly strategy: Strategy,
    private readonly hooks: GenericStoreHooks = {},
  ) {}

  get apiVersion(): string {
    return this.strategy.group === '' ? this.strategy.version : `${this.strategy.group}/${this.strategy.version}`
  }

  private get res() {
    return { group: this.strategy.group, resource: this.strategy.resource }
  }

  /** `/configmaps/<ns>/<name>`, `/namespaces/<name>`. */
  key(namespace: string | undefined, name: string): string {
    const base = this.basePrefix
    return this.strategy.namespaced ? `${base}${namespace ?? ''}/${name}` : `${base}${name}`
  }

  /** The kind's key prefix: the store router's default layout, so overrides route its keys. */
  private get basePrefix(): string {
    return defaultKeyPrefix(this.strategy.group, this.strategy.resource)
  }

  /** Every object of the kind, or of one namespace. */
  prefix(namespace?: string): string {
    return this.strategy.namespaced && namespace ? `${this.basePrefix}${namespace}/` : this.basePrefix
  }

  decode(value: Buffer, modRevision: number): KubeObject {
    let obj = storageCodecFor(this.store).decode(value) as KubeObject
    if (!isPlainObject(obj.metadata)) obj.metadata = {}
    const stored = this.strategy.storageVersion
    if (stored && obj.apiVersion === stored.apiVersion && obj.kind === stored.kind) obj = stored.fromStorage(obj)
    obj.apiVersion ??= this.apiVersion
    // Another version of the same group and kind shares the keys (a beta version beside its
    // GA one): their fields are the same, so the conversion is the apiVersion.
    if (!this.strategy.customResource && !stored && obj.kind === this.strategy.kind && obj.apiVersion !== this.apiVersion && groupOf(String(obj.apiVersion)) === this.strategy.group) {
      obj.apiVersion = this.apiVersion
    }
    // A custom resource's versions share its keys: conversion strategy None only rewrites apiVersion.
    // With webhook conversion the stored apiVersion stays: toServed converts from it.
    if (this.strategy.customResource && !this.strategy.conversion) obj.apiVersion = this.apiVersion
    obj.kind ??= this.strategy.kind
    obj.metadata.resourceVersion = String(modRevision)
    return obj
  }

  /** The stored key-value of `name` (see get() for `resourceVersion`), or the reference's NotFound. */
  private async stored(key: string, name: string, resourceVersion?: string): Promise<KeyValue> {
    let notOlderThan: number | undefined
    if (resourceVersion === '0') notOlderThan = 0
    else if (resourceVersion) {
      notOlderThan = parseResourceVersion(resourceVersion)
      const current = await this.store.currentRevision().catch((e: unknown) => {
        throw toApiError(e, this.res, name)
      })
      if (notOlderThan > current) throw errors.tooLargeResourceVersion(notOlderThan, current)
    }
    const kv = await this.store.get(key, notOlderThan !== undefined ? { notOlderThan } : undefined).catch((e: unknown) => {
      throw toApiError(e, this.res, name)
    })
    if (!kv) throw errors.notFound(this.res, name)
    return kv
  }

  /**
   * stored() within the caller's own call, for a read of the current state (no resourceVersion)
   * from a store that answers at once; undefined when the caller must use stored().
   */
  private storedNow(key: string, name: string, resourceVersion: string | undefined): KeyValue | undefined {
    if (resourceVersion || !this.store.getNow) return undefined
    let kv: KeyValue | null | undefined
    try {
      kv = this.store.getNow(key)
    } catch (e) {
      throw toApiError(e, this.res, name)
    }
    if (kv === null) throw errors.notFound(this.res, name)
    return kv
  }

  private decodeKv(kv: KeyValue): KubeObject {
    return this.decode(kv.value, kv.modRevision)
  }

  /**
   * Stored objects in the served version (a CRD's conversion webhook; nothing to do for
   * every other kind). A failed conversion is the reference's internal error.
   */
  private async toServed(objects: KubeObject[], list = false): Promise<KubeObject[]> {
    const conversion = this.strategy.conversion
    if (!conversion || objects.every((o) => o.apiVersion === this.apiVersion)) return objects
    try {
      const converted = await conversion.converter.convert(objects, this.apiVersion, list ? `${this.strategy.kind}List` : undefined)
      return converted.map((o, i) => ({ ...o, metadata: { ...o.metadata, resourceVersion: objects[i]!.metadata.resourceVersion } }))
    } catch (err) {
      throw errors.internal((err as Error).message)
    }
  }

  private async servedOne(obj: KubeObject): Promise<KubeObject> {
    return (await this.toServed([obj]))[0]!
  }

  /** An object to write, in the storage version (see toServed). */
  private async toStorage(obj: KubeObject): Promise<KubeObject> {
    const conversion = this.strategy.conversion
    if (!conversion || obj.apiVersion === conversion.storageAPIVersion) return obj
    try {
      return (await conversion.converter.convert([obj], conversion.storageAPIVersion))[0]!
    } catch (err) {
      throw errors.internal((err as Error).message)
    }
  }

  encode(obj: KubeObject): Buffer {
    const { resourceVersion: _rv, ...metadata } = obj.metadata
    void _rv
    const stored = this.strategy.storageVersion
    const form = stored ? stored.toStorage(structuredClone({ ...obj, metadata })) : { ...obj, metadata }
    return storageCodecFor(this.store).encode(form, this.strategy.customResource)
  }

  private putOptions(obj: KubeObject): PutOptions {
    const ttlSeconds = this.hooks.ttlSeconds?.(obj)
    return ttlSeconds ? { ttlSeconds } : {}
  }

  matches(obj: KubeObject, sel: Selection): boolean {
    // The field set is only computed when a field selector asks.
    return matchesLabels(sel.labels ?? [], obj.metadata.labels) && (!sel.fields?.length || matchesFields(sel.fields, this.strategy.fields(obj)))
  }

  /**
   * GET of one object. `resourceVersion` as the reference's GetOptions: unset, the current
   * object from the store; "0", any version (the watch cache answers when on); N, a version not
   * older than N (the cache when it has reached N, else the store; 504 beyond the store's).
   */
  async get(namespace: string | undefined, name: string, resourceVersion?: string): Promise<KubeObject> {
    return this.servedOne(this.decodeKv(await this.stored(this.key(namespace, name), name, resourceVersion)))
  }

  /**
   * GET of one object for a protobuf reader: the stored bytes with the resourceVersion spliced
   * in when they already are the served form (a built-in kind stored as protobuf in the served
   * version), which spares decoding and encoding them again; otherwise the object, as get().
   */
  async getForProtobuf(namespace: string | undefined, name: string, resourceVersion?: string): Promise<{ bytes: Buffer } | { object: KubeObject }> {
    const key = this.key(namespace, name)
    const kv = await this.stored(key, name, resourceVersion)
    const bytes = this.protobufOf(key, kv)
    return bytes ? { bytes } : { object: await this.servedOne(this.decodeKv(kv)) }
  }

  /**
   * getForProtobuf within the caller's own call, when the store answers at once and the served
   * form needs no conversion; undefined when the caller must use getForProtobuf.
   */
  getForProtobufNow(namespace: string | undefined, name: string, resourceVersion?: string): { bytes: Buffer } | { object: KubeObject } | undefined {
    if (this.strategy.conversion) return undefined
    const key = this.key(namespace, name)
    const kv = this.storedNow(key, name, resourceVersion)
    if (!kv) return undefined
    const bytes = this.protobufOf(key, kv)
    // Without a conversion webhook the served object is the decoded one (servedOne changes nothing).
    return bytes ? { bytes } : { object: this.decodeKv(kv) }
  }

  /** The stored protobuf with its resourceVersion, kept per key for its revision as getJson's JSON is; undefined when not the served form. */
  private protobufOf(key: string, kv: KeyValue): Buffer | undefined {
    const s = this.strategy
    if (s.customResource || s.storageVersion || s.conversion) return undefined
    const cached = this.protobufByKey.get(key)
    if (cached && cached.modRevision === kv.modRevision) return cached.json
    const bytes = withResourceVersion(kv.value, { apiVersion: this.apiVersion, kind: s.kind }, String(kv.modRevision))
    if (bytes) remember(this.protobufByKey, key, kv.modRevision, bytes)
    return bytes
  }

  /**
   * GET of one object for a JSON reader: its JSON bytes, kept per key for the revision they were
   * made from. A stored revision of a key never changes (a new write is a new revision), so a
   * repeated GET of an unchanged object is the store read alone, without decoding and encoding
   * it again; the answer is byte for byte that of get() then JSON.stringify. Kinds whose served
   * form depends on more than the stored bytes (a conversion webhook, custom resources) are
   * encoded each time.
   */
  async getJson(namespace: string | undefined, name: string, resourceVersion?: string): Promise<Buffer> {
    const key = this.key(namespace, name)
    const kv = await this.stored(key, name, resourceVersion)
    const s = this.strategy
    if (s.customResource || s.conversion) return Buffer.from(`${JSON.stringify(await this.servedOne(this.decodeKv(kv)))}\n`)
    return this.jsonOf(key, kv)
  }

  /**
   * getJson within the caller's own call, when the store answers at once and the served form
   * is the stored object's (no conversion); undefined when the caller must use getJson.
   */
  getJsonNow(namespace: string | undefined, name: string, resourceVersion?: string): Buffer | undefined {
    const s = this.strategy
    if (s.customResource || s.conversion) return undefined
    const key = this.key(namespace, name)
    const kv = this.storedNow(key, name, resourceVersion)
    return kv && this.jsonOf(key, kv)
  }

  /** The JSON of the stored `kv`, kept per key for its revision. */
  private jsonOf(key: string, kv: KeyValue): Buffer {
    const cached = this.jsonByKey.get(key)
    if (cached && cached.modRevision === kv.modRevision) return cached.json
    const json = Buffer.from(`${JSON.stringify(this.decodeKv(kv))}\n`)
    remember(this.jsonByKey, key, kv.modRevision, json)
    return json
  }

  async list(options: ListOptions = {}): Promise<ListResult> {
    const prefix = this.prefix(options.namespace)
    const limit = options.limit && options.limit > 0 ? options.limit : 0
    let start: string | undefined
    let revision = 0
    let notOlderThan: number | undefined
    if (options.continue) {
      if (options.resourceVersion && options.resourceVersion !== '0') throw errors.badRequest('specifying resource version is not allowed when using continue')
      const token = decodeContinue(options.continue)
      revision = token.rv
      start = prefix + token.start
    } else {
      ;({ revision, notOlderThan } = await this.readPosition(options))
    }
    const filtered = (options.labels?.length ?? 0) > 0 || (options.fields?.length ?? 0) > 0
    const items: KubeObject[] = []
    let next: string | undefined
    let remaining: number | undefined
    try {
      for (;;) {
        const page = await this.store.list(prefix, {
          ...(start !== undefined ? { startKey: start } : {}),
          revision,
          limit: limit > 0 ? Math.max(limit - items.length, filtered ? 100 : 0) : notOlderThan !== undefined && start === undefined ? 0 : LIST_PAGE_SIZE,
          ...(notOlderThan !== undefined && start === undefined ? { notOlderThan } : {}),
          // A filtered list has no remaining count (the reference's neither): the store need not count.
          ...(limit === 0 || filtered ? { skipRemaining: true } : {}),
        })
        if (page.continue) await yieldToEventLoop()
        revision = page.revision
        let stoppedAt = -1
        for (let i = 0; i < page.items.length; i++) {
          const obj = this.decodeKv(page.items[i]!)
          if (this.matches(obj, options)) items.push(obj)
          if (limit > 0 && items.length === limit) {
            stoppedAt = i
            break
          }
        }
        if (stoppedAt >= 0) {
          const last = page.items[stoppedAt]!.key
          if (stoppedAt < page.items.length - 1 || page.continue) {
            next = `${last}\u0000`
            if (!filtered && stoppedAt === page.items.length - 1) remaining = page.remaining
          }
          break
        }
        if (!page.continue || page.items.length === 0) break
        start = `${page.items[page.items.length - 1]!.key}\u0000`
      }
    } catch (err) {
      if (err instanceof CompactedError) {
        throw options.continue ? errors.expired(CONTINUE_EXPIRED) : errors.expired('The resourceVersion for the provided list is too old.')
      }
      throw toApiError(err)
    }
    const result: ListResult = { items: await this.toServed(items, true), resourceVersion: String(revision) }
    if (next !== undefined) {
      result.continue = encodeContinue(revision, next.slice(prefix.length))
      if (remaining !== undefined) result.remainingItemCount = remaining
    }
    return result
  }

  /**
   * Every object whose metadata has one of `fields` (`ownerReferences`, ...), from any recent
   * state (resourceVersion 0: the watch cache's memory when it is on), for controllers that look
   * at a few objects of many (the garbage collector's owners and dependents). Stored JSON that
   * does not name a field is never decoded; other bytes (protobuf, which names no field) are
   * decoded once per stored version: `memo` (kept by the caller from one call to the next)
   * remembers the versions found without the fields.
   */
  async listWithMetadata(fields: readonly string[], memo: Map<string, number> = new Map()): Promise<KubeObject[]> {
    const page = await this.store.list(this.prefix(undefined), { notOlderThan: 0, skipRemaining: true })
    const needles = fields.map((f) => Buffer.from(JSON.stringify(f)))
    const items: KubeObject[] = []
    const seen = new Set<string>()
    for (const kv of page.items) {
      if (kv.value[0] === 0x7b) {
        if (!needles.some((n) => kv.value.includes(n))) continue
      } else {
        seen.add(kv.key)
        if (memo.get(kv.key) === kv.modRevision) continue
      }
      const obj = this.decodeKv(kv)
      if (fields.some((f) => obj.metadata[f] !== undefined)) items.push(obj)
      else if (kv.value[0] !== 0x7b) memo.set(kv.key, kv.modRevision)
    }
    for (const key of memo.keys()) if (!seen.has(key)) memo.delete(key)
    return this.toServed(items, true)
  }

  /**
   * Where a list without a continue token reads: resourceVersion "" the current revision of
   * the store, "0" any state (a watch cache may answer), NotOlderThan a state at least that
   * new (504 when the store has not reached it), Exact that revision.
   */
  private async readPosition(options: ListOptions): Promise<{ revision: number; notOlderThan: number | undefined }> {
    if (options.resourceVersion === '0') return { revision: 0, notOlderThan: 0 }
    if (!options.resourceVersion) return { revision: 0, notOlderThan: undefined }
    const rv = parseResourceVersion(options.resourceVersion)
    const current = await this.store.currentRevision()
    // A revision the store has not reached (Exact too) is the reference's 504, never a store error.
    if (rv > current) throw errors.tooLargeResourceVersion(rv, current)
    if (options.resourceVersionMatch === 'Exact') return { revision: rv, notOlderThan: undefined }
    return { revision: 0, notOlderThan: rv }
  }

  /**
   * A whole list (no limit, no continue) read page by page at one revision, for answers that
   * are written while they are read: memory holds one page, not the collection, and the event
   * loop gets a turn between pages. The first page is read before this resolves, so that its
   * errors (410, 504...) are still answers; later ones end the iteration with an ApiError.
   */
  async streamList(options: ListOptions): Promise<ListStream> {
    const prefix = this.prefix(options.namespace)
    const { revision: requested, notOlderThan } = await this.readPosition(options)
    const consistent = !options.resourceVersion
    const read = async (startKey: string | undefined, revision: number) => {
      try {
        return await this.store.list(prefix, {
          ...(startKey !== undefined ? { startKey } : {}),
          revision,
          // A state that may be older is one read from the watch cache, already in memory.
          limit: notOlderThan !== undefined && startKey === undefined ? 0 : LIST_PAGE_SIZE,
          ...(notOlderThan !== undefined && startKey === undefined ? { notOlderThan } : {}),
          // A consistent list (no resourceVersion): a fresh watch cache may answer it whole.
          ...(consistent && startKey === undefined ? { consistentWholeList: true } : {}),
          skipRemaining: true,
        })
      } catch (err) {
        if (err instanceof CompactedError) throw errors.expired('The resourceVersion for the provided list is too old.')
        throw toApiError(err)
      }
    }
    const first = await read(undefined, requested)
    const self = this
    const s = this.strategy
    // Stored protobuf is the served form only for a built-in kind without a storage version.
    const storedIsServed = !s.customResource && !s.storageVersion && !s.conversion
    const filtered = (options.labels?.length ?? 0) > 0 || (options.fields?.length ?? 0) > 0
    const expected = { apiVersion: this.apiVersion, kind: s.kind }
    async function* pages<T>(convert: (kvs: KeyValue[]) => Promise<T[]>): AsyncGenerator<T[]> {
      let page = first
      for (;;) {
        // Decoded in slices, each a short turn of the event loop (a page from a cache can hold
        // the whole collection).
        for (let i = 0; i < page.items.length; i += LIST_DECODE_SLICE) yield await convert(page.items.slice(i, i + LIST_DECODE_SLICE))
        if (!page.continue || page.items.length === 0) return
        await yieldToEventLoop()
        page = await read(`${page.items[page.items.length - 1]!.key}\u0000`, page.revision)
      }
    }
    const decoded = async (kvs: KeyValue[]): Promise<KubeObject[]> => {
      const objects: KubeObject[] = []
      for (const kv of kvs) {
        const obj = self.decodeKv(kv)
        if (self.matches(obj, options)) objects.push(obj)
      }
      return self.toServed(objects, true)
    }
    const stored = async (kvs: KeyValue[]): Promise<(Buffer | KubeObject)[]> => {
      if (!storedIsServed) return decoded(kvs)
      const out: (Buffer | KubeObject)[] = []
      for (const kv of kvs) {
        // A selector needs the object to match against; the bytes still spare the encoding.
        if (filtered && !self.matches(self.decodeKv(kv), options)) continue
        out.push(listItemWithResourceVersion(kv.value, expected, String(kv.modRevision)) ?? self.decodeKv(kv))
      }
      return out
    }
    return { resourceVersion: String(first.revision), pages: pages(decoded), protobufPages: () => pages(stored) }
  }

  private invalid(name: string, causes: Cause[]) {
    return errors.invalid(this.strategy.group, this.strategy.kind, name, causes)
  }

  // bench/validation.bench.js's server (bench/support/validation-server.js) replaces these two.
  private validateCreate(obj: KubeObject): void {
    const causes = validateForCreate(this.strategy, obj)
    if (causes.length > 0) throw this.invalid(obj.metadata.name || obj.metadata.generateName || '', causes)
  }

  private validateUpdate(obj: KubeObject, old: KubeObject, subresource: string | undefined): void {
    const causes = validateForUpdate(this.strategy, obj, old, subresource)
    if (causes.length > 0) throw this.invalid(obj.metadata.name ?? '', causes)
  }

  /**
   * The attributes of one admission (the reference's NewAttributesRecord) for `operation` on
   * `name`, with the request's user and options; undefined when nothing is admitted.
   */
  private admissionAttributes(
    operation: AdmissionOperation,
    namespace: string | undefined,
    name: string,
    objects: { object?: KubeObject; oldObject?: KubeObject },
    options: WriteOptions & { subresource?: string },
  ): AdmissionAttributes | undefined {
    if (!this.hooks.admission || options.admission === false) return undefined
    const request = options.admission
    const { group, version, kind, resource } = this.strategy
    return {
      operation,
      kind: { group, version, kind },
      resource: { group, version, resource },
      subresource: request?.subresource ?? options.subresource ?? '',
      namespace: this.strategy.namespaced ? (namespace ?? '') : '',
      name: request?.collection ? '' : name,
      ...objects,
      dryRun: options.dryRun === true,
      ...(request?.options !== undefined ? { options: request.options } : {}),
      ...(request?.userInfo ? { userInfo: request.userInfo } : {}),
    }
  }

  /** One admission phase (mutating or validating); the request records what it left either way. */
  private async admissionPhase(phase: 'admit' | 'validate', attributes: AdmissionAttributes | undefined, options: WriteOptions): Promise<void> {
    if (!attributes) return
    try {
      await this.hooks.admission![phase](attributes)
    } finally {
      if (options.admission) options.admission.record?.(attributes)
    }
  }

  /**
   * Creates the object (namespace already set for namespaced kinds); returns it as stored. A
   * name made from `generateName` that is already taken is made again and the whole create
   * retried, up to 8 attempts in all, as the reference's store does (RetryGenerateName, GA in
   * 1.32): five random characters collide often enough in a busy namespace to matter.
   */
  async create(input: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    const meta = isPlainObject(input.metadata) ? input.metadata : undefined
    if (!meta || meta.name || !meta.generateName) return this.createOnce(input, options)
    // A generated name already taken is made again on a fresh copy of the request's object (the
    // first attempt may change `input` in place): the caller's `again`, else a copy kept now.
    const template = options.again ? undefined : structuredClone(input)
    const fresh = options.again ?? (async () => structuredClone(template!))
    for (let attempt = 1; ; attempt++) {
      try {
        return await (attempt === 1 ? this.createOnce(input, options) : this.createOnce(await fresh(), { ...options, handOver: true }))
      } catch (err) {
        const taken = err instanceof ApiError && err.status.reason === 'AlreadyExists'
        if (!taken || attempt >= MAX_NAME_GENERATION_CREATE_ATTEMPTS) throw err
      }
    }
  }

  private async createOnce(input: KubeObject, options: WriteOptions): Promise<KubeObject> {
    this.hooks.refuseCreate?.()
    const obj = options.handOver ? input : structuredClone(input)
    obj.apiVersion = this.apiVersion
    obj.kind = this.strategy.kind
    const presented = obj.metadata
    if (!this.strategy.namespaced) delete presented.namespace
    if (presented.resourceVersion) throw errors.badRequest('resourceVersion should not be set on objects to be created')
    // The mutating plugins see the object as the request presents it ('' as the name with
    // generateName), before the kind's defaulting and validation (the reference's create
    // handler admits before its store's BeforeCreate).
    const attributes = this.admissionAttributes('CREATE', presented.namespace, presented.name || '', { object: obj }, options)
    await this.admissionPhase('admit', attributes, options)
    if (!isPlainObject(obj.metadata)) obj.metadata = {}
    const meta = obj.metadata
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName}${randomSuffix()}`
    meta.uid = randomUUID()
    meta.creationTimestamp = nowTimestamp()
    if (this.strategy.generation) meta.generation = 1
    else delete meta.generation
    delete meta.deletionTimestamp
    delete meta.deletionGracePeriodSeconds
    this.strategy.prepareForCreate(obj)
    options.trackFields?.(obj)
    this.validateCreate(obj)
    const name = meta.name!
    await options.checkCreate?.(obj)
    await this.admissionPhase('validate', attributes, options)
    await this.hooks.beforeCreate?.(obj)
    const key = this.key(meta.namespace, name)
    if (options.dryRun) {
      if (await this.store.get(key)) throw errors.alreadyExists(this.res, name)
      return obj
    }
    try {
      const value = this.encode(await this.toStorage(obj))
      const written = this.store.create(key, value, this.putOptions(obj))
      // The answer is the stored bytes decoded (as the reference's); decoded while the store
      // commits and syncs, so that only its resourceVersion waits for the commit.
      let answer: KubeObject
      try {
        answer = this.decode(value, 0)
      } catch (err) {
        void written.catch(() => undefined)
        throw err
      }
      const kv = await written
      answer.metadata.resourceVersion = String(kv.modRevision)
      const created = await this.servedOne(answer)
      this.hooks.changed?.({ type: 'created', object: created, strategy: this.strategy })
      await this.hooks.afterCreate?.(created)
      return created
    } catch (err) {
      throw toApiError(err, this.res, name)
    }
  }

  /**
   * Replaces the object with what `produce` makes of the current one (PUT, PATCH). A
   * resourceVersion in the produced object is a precondition (409 when stale). Without one,
   * a concurrent write is retried with the new current object. An unchanged object is not
   * written and keeps its resourceVersion.
   */
  async update(
    namespace: string | undefined,
    name: string,
    produce: (current: KubeObject) => KubeObject | Promise<KubeObject>,
    options: UpdateOptions = {},
  ): Promise<KubeObject> {
    const key = this.key(namespace, name)
    for (let attempt = 0; ; attempt++) {
      const kv = await this.stored(key, name)
      const current = await this.servedOne(this.decodeKv(kv))
      let obj = structuredClone(await produce(structuredClone(current)))
      if (!isPlainObject(obj.metadata)) obj.metadata = {}
      if (options.subresource === 'status') obj = statusOnly(current, obj)
      if (options.subresource === 'finalize') obj = finalizeOnly(current, obj)
      if (options.subresource === 'approval') obj = approvalOnly(current, obj)
      if (options.subresource === 'ephemeralcontainers' || options.subresource === 'resize') obj = podSpecPartOnly(current, obj, options.subresource)
      const meta = obj.metadata
      const precondition = meta.resourceVersion
      if (precondition !== undefined && precondition !== '' && precondition !== current.metadata.resourceVersion) {
        throw errors.conflict(this.res, name)
      }
      if (meta.uid !== undefined && meta.uid !== '' && meta.uid !== current.metadata.uid) {
        throw errors.conflict(this.res, name, `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${current.metadata.uid ?? ''}`)
      }
      if (meta.name !== undefined && meta.name !== name) {
        throw this.invalid(name, [{ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(meta.name)}: field is immutable`, field: 'metadata.name' }])
      }
      obj.apiVersion = this.apiVersion
      obj.kind = this.strategy.kind
      meta.name = name
      if (this.strategy.namespaced) meta.namespace = namespace
      else delete meta.namespace
      meta.uid = current.metadata.uid
      meta.creationTimestamp = current.metadata.creationTimestamp
      meta.resourceVersion = current.metadata.resourceVersion
      if (current.metadata.generateName !== undefined && meta.generateName === undefined) meta.generateName = current.metadata.generateName
      // The mutating plugins see the new object beside the stored one before the kind's
      // defaulting and validation (the reference's update handler admits in the object's
      // transformers, within each attempt); the validating ones see it just before the write.
      // The stored object is handed over uncopied, as the reference's transformers get it:
      // plugins read it and never change it.
      const attributes = this.admissionAttributes('UPDATE', namespace, name, { object: obj, oldObject: current }, options)
      await this.admissionPhase('admit', attributes, options)
      // The pod-spec subresources get the kind's defaulting too (the reference defaults every
      // decoded body): a new ephemeral container its pull and termination message policies.
      if (options.subresource === undefined || options.subresource === 'ephemeralcontainers' || options.subresource === 'resize') this.strategy.prepareForUpdate(obj, current)
      else if (options.subresource === 'status' || options.subresource === 'approval') this.strategy.prepareForStatusUpdate?.(obj, current)
      if (this.strategy.generation) {
        const gen = typeof current.metadata.generation === 'number' ? current.metadata.generation : 1
        meta.generation = this.strategy.specChanged(obj, current) ? gen + 1 : gen
      } else delete meta.generation
      if (current.metadata.generation === undefined && meta.generation === 1 && !this.strategy.specChanged(obj, current)) {
        // Objects written before generations were kept (bootstrap ones) stay as they are.
        delete meta.generation
      }
      const deletionCauses = guardDeletionFields(obj, current)
      if (deletionCauses.length > 0) throw this.invalid(name, deletionCauses)
      options.trackFields?.(obj, current)
      this.validateUpdate(obj, current, options.subresource)
      await this.admissionPhase('validate', attributes, options)
      if (options.subresource === undefined) await this.hooks.beforeUpdate?.(obj, current)
      if (deepEqual(obj, current)) return current
      const deletes = shouldDeleteDuringUpdate(this.strategy, obj, current)
      if (options.dryRun) return obj
      try {
        if (deletes) {
          // The last finalizer of an object being deleted is gone: the update deletes it and
          // answers the object it was asked to write (the reference's deleteWithoutFinalizers).
          await this.store.delete(key, { expectedModRevision: kv.modRevision })
          this.hooks.changed?.({ type: 'deleted', object: current, strategy: this.strategy })
          await this.hooks.afterDelete?.(current)
          return obj
        }
        const written = await this.servedOne(this.decodeKv(await this.store.update(key, this.encode(await this.toStorage(obj)), kv.modRevision, this.putOptions(obj))))
        this.hooks.changed?.({ type: 'updated', object: written, strategy: this.strategy })
        return written
      } catch (err) {
        if (err instanceof ConflictError && options.retryOnConflict && attempt < MAX_UPDATE_RETRIES) continue
        if (err instanceof StoreError && err.code === 'NotFound') throw errors.notFound(this.res, name)
        throw toApiError(err, this.res, name)
      }
    }
  }

  /** Deletes the object (or starts its deletion); returns its last state. */
  async delete(namespace: string | undefined, name: string, options: DeleteOptions = {}): Promise<KubeObject> {
    return (await this.deleteObject(namespace, name, options)).object
  }

  /**
   * DELETE as the reference's generic store: an object with finalizers (or one the
   * propagation policy gives the `orphan` / `foregroundDeletion` finalizer) is only marked
   * deleted (deletionTimestamp, deletionGracePeriodSeconds 0); a pod is deleted gracefully;
   * anything else is removed at once.
   */
  async deleteObject(namespace: string | undefined, name: string, options: DeleteOptions = {}): Promise<DeleteResult> {
    const current = await this.get(namespace, name)
    this.checkPreconditions(current, options)
    // Admitted with the stored object (the reference's deleteValidation, mutating plugins
    // then validating ones) before anything is deleted or marked.
    const attributes = this.admissionAttributes('DELETE', namespace, name, { oldObject: structuredClone(current) }, options)
    await this.admissionPhase('admit', attributes, options)
    await this.admissionPhase('validate', attributes, options)
    const proceed = () => this.deleteGeneric(namespace, name, options)
    const result = await (this.hooks.delete ? this.hooks.delete(current, options, proceed) : proceed())
    return this.strategy.conversion ? { ...result, object: await this.servedOne(result.object) } : result
  }

  private checkPreconditions(current: KubeObject, options: DeleteOptions): void {
    const name = current.metadata.name ?? ''
    const pre = options.preconditions
    if (pre?.uid && pre.uid !== current.metadata.uid) {
      throw errors.conflict(this.res, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid ?? ''}`)
    }
    if (pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
      throw errors.conflict(
        this.res,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion ?? ''}`,
      )
    }
  }

  private async deleteGeneric(namespace: string | undefined, name: string, options: DeleteOptions): Promise<DeleteResult> {
    const key = this.key(namespace, name)
    for (let attempt = 0; ; attempt++) {
      const kv = await this.stored(key, name)
      const current = this.decodeKv(kv)
      this.checkPreconditions(current, options)
      const request: DeletionRequest = { ...options }
      const obj = structuredClone(current)
      const { graceful, pending } = beforeDelete(this.strategy, obj, request)
      // A graceful deletion under way: the request changes nothing, finalizers included.
      if (pending) return { object: current, deleted: false, updated: false }
      const finalizers = this.hooks.garbageCollection === false ? undefined : finalizersForPropagation(this.strategy, obj, request)
      if (finalizers) obj.metadata.finalizers = finalizers
      const pendingFinalizers = finalizersOf(obj).length > 0
      let revision = kv.modRevision
      let last = current
      if (graceful || pendingFinalizers) {
        if (!graceful) markAsDeleting(obj)
        if (options.dryRun) return { object: obj, deleted: false, updated: true }
        // Nothing new (a second DELETE of an object waiting for finalizers): no write.
        if (deepEqual(obj, current) && pendingFinalizers) return { object: current, deleted: false, updated: true }
        try {
          last = this.decodeKv(await this.store.update(key, this.encode(obj), kv.modRevision, this.putOptions(obj)))
        } catch (err) {
          if (err instanceof ConflictError && attempt < 10) continue
          if (err instanceof StoreError && err.code === 'NotFound') throw errors.notFound(this.res, name)
          throw toApiError(err, this.res, name)
        }
        this.hooks.changed?.({ type: 'updated', object: last, strategy: this.strategy })
        if (pendingFinalizers || (request.gracePeriodSeconds ?? 0) > 0) return { object: last, deleted: false, updated: true }
        revision = last.metadata.resourceVersion ? Number(last.metadata.resourceVersion) : revision
      }
      if (options.dryRun) return { object: current, deleted: true, updated: false }
      try {
        await this.store.delete(key, { expectedModRevision: revision })
      } catch (err) {
        if (err instanceof ConflictError) {
          if (!options.preconditions?.resourceVersion && attempt < 10) continue
          throw errors.conflict(this.res, name)
        }
        throw toApiError(err, this.res, name)
      }
      this.hooks.changed?.({ type: 'deleted', object: last, strategy: this.strategy })
      await this.hooks.afterDelete?.(last)
      return { object: last, deleted: true, updated: false }
    }
  }

  /**
   * Rewrites the stored object with `mutate` (no strategy, no validation: the registry's own
   * writes such as marking a namespace terminating); retried on conflicts.
   */
  async rewrite(namespace: string | undefined, name: string, mutate: (obj: KubeObject) => void, dryRun = false): Promise<KubeObject> {
    const key = this.key(namespace, name)
    for (let attempt = 0; ; attempt++) {
      const kv = await this.stored(key, name)
      const current = this.decodeKv(kv)
      const obj = structuredClone(current)
      mutate(obj)
      if (dryRun || deepEqual(obj, current)) return obj
      try {
        const written = this.decodeKv(await this.store.update(key, this.encode(obj), kv.modRevision, this.putOptions(obj)))
        this.hooks.changed?.({ type: 'updated', object: written, strategy: this.strategy })
        return written
      } catch (err) {
        if (err instanceof ConflictError && attempt < 10) continue
        if (err instanceof StoreError && err.code === 'NotFound') throw errors.notFound(this.res, name)
        throw toApiError(err, this.res, name)
      }
    }
  }

  /**
   * Watches the kind (or one namespace). Legacy (sendInitialEvents unset): resourceVersion ""
   * or "0" sends ADDED for every current match first, another only the changes after that
   * revision (410 Expired when compacted). sendInitialEvents true: ADDED for the current
   * state (at least as new as the resourceVersion), then, when bookmarks are allowed, a
   * BOOKMARK annotated as the end of the initial events; false: only the changes after the
   * resourceVersion, or after now for "" and "0".
   */
  async watch(options: WatchOptions): Promise<ApiWatch> {
    const prefix = this.prefix(options.namespace)
    // The current state, read page by page as the client takes it (see streamList).
    let initial: AsyncGenerator<ApiWatchEvent> | undefined
    let from: number
    const rv = options.resourceVersion ?? ''
    const legacyInitial = options.sendInitialEvents === undefined && (rv === '' || rv === '0')
    if (options.sendInitialEvents === true || legacyInitial) {
      if (rv !== '' && rv !== '0') {
        // A state not older than the resourceVersion: the latest, unless that is older still.
        const wanted = parseResourceVersion(rv)
        const current = await this.store.currentRevision()
        if (wanted > current) throw errors.tooLargeResourceVersion(wanted, current)
      }
      const state = await this.streamList({
        ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
        ...(options.labels ? { labels: options.labels } : {}),
        ...(options.fields ? { fields: options.fields } : {}),
      })
      const revision = Number(state.resourceVersion)
      const bookmark = options.sendInitialEvents === true && options.allowWatchBookmarks
      const self = this
      initial = (async function* () {
        for await (const page of state.pages) for (const object of page) yield { type: 'ADDED', object, initial: true }
        if (bookmark) {
          yield {
            initial: true,
            type: 'BOOKMARK',
            object: {
              kind: self.strategy.kind,
              apiVersion: self.apiVersion,
              metadata: { resourceVersion: String(revision), annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } },
            },
          }
        }
      })()
      from = revision + 1
    } else if (rv === '' || rv === '0') {
      from = (await this.store.currentRevision()) + 1
    } else {
      from = parseResourceVersion(rv) + 1
    }
    let watch: Watch
    try {
      watch = await this.store.watch(prefix, { fromRevision: from })
    } catch (err) {
      if (err instanceof CompactedError) throw errors.expired(`too old resource version: ${from - 1} (${err.compactedRevision ?? from})`)
      throw toApiError(err)
    }
    const self = this
    const errorEvent = (err: unknown): ApiWatchEvent => {
      const apiErr = err instanceof CompactedError ? errors.expired(`too old resource version: ${from - 1} (${err.compactedRevision ?? from})`) : toApiError(err)
      return { type: 'ERROR', object: apiErr.status as unknown as Record<string, unknown> }
    }
    async function* events(): AsyncGenerator<ApiWatchEvent> {
      try {
        if (initial) yield* initial
        for await (const ev of watch) {
          const out = self.translate(ev, options)
          if (out) yield self.strategy.conversion ? { ...out, object: await self.servedOne(out.object as KubeObject) } : out
        }
      } catch (err) {
        yield errorEvent(err)
      }
    }
    const iterable = events()
    const listen = watch.listen?.bind(watch)
    const groupable = options.readOnly === true && !options.labels?.length && !options.fields?.length
    const direct: ApiWatch['direct'] =
      listen && !this.strategy.conversion
        ? {
            initial,
            listen: <S extends ApiWatchSink>(sink: S, group?: ApiWatchGroup<S>) => {
              let ended = false
              const fail = (err: unknown): void => {
                if (ended) return
                ended = true
                watch.cancel()
                sink.end(errorEvent(err))
              }
              const member: TranslatingSink<S> = {
                api: sink,
                event: (ev) => {
                  if (ended) return
                  let out: ApiWatchEvent | undefined
                  try {
                    out = self.translate(ev, options)
                  } catch (err) {
                    fail(err)
                    return
                  }
                  if (out) sink.event(out)
                },
                end: (err) => {
                  if (ended) return
                  ended = true
                  sink.end(err ? errorEvent(err) : undefined)
                },
                fail,
              }
              listen(member, group && groupable ? this.translatingGroup(group) : undefined)
            },
          }
        : undefined
    return {
      ...(direct ? { direct } : {}),
      [Symbol.asyncIterator]: () => iterable,
      cancel: () => {
        watch.cancel()
        void iterable.return(undefined)
      },
      progress: () => {
        const rev = (watch as { progress?: () => number | undefined }).progress?.()
        return rev === undefined ? undefined : String(rev)
      },
    }
  }

  /** The store-side group of each API group: translates a change once for all its members. */
  private readonly translatingGroups = new WeakMap<ApiWatchGroup<ApiWatchSink>, TranslatingGroup>()

  private translatingGroup<S extends ApiWatchSink>(group: ApiWatchGroup<S>): TranslatingGroup<S> {
    const known = this.translatingGroups.get(group as unknown as ApiWatchGroup<ApiWatchSink>)
    if (known) return known as unknown as TranslatingGroup<S>
    // The members' API sinks, mapped again only when the members changed (the watch cache
    // replaces its member array on every change, so an unchanged one is the same array).
    let lastMembers: readonly TranslatingSink<S>[] | undefined
    let lastSinks: S[] = []
    const made: TranslatingGroup<S> = {
      event: (ev, members) => {
        let out: ApiWatchEvent | undefined
        try {
          out = this.translate(ev, UNSELECTIVE_READ_ONLY)
        } catch (err) {
          for (const m of members) m.fail(err)
          return
        }
        if (out === undefined) return
        if (members !== lastMembers) {
          lastMembers = members
          lastSinks = members.map((m) => m.api)
        }
        group.event(out, lastSinks)
      },
    }
    this.translatingGroups.set(group as unknown as ApiWatchGroup<ApiWatchSink>, made as unknown as TranslatingGroup)
    return made
  }

  /**
   * The last change translated for a read-only watch without selectors: every such watcher
   * gets the same event object for it (the watch cache hands a change to its watchers one
   * after another), instead of each matching and allocating its own.
   */
  private lastUnselective: { ev: WatchEvent; out: ApiWatchEvent | undefined } | undefined

  private translate(ev: WatchEvent, sel: WatchOptions): ApiWatchEvent | undefined {
    if (sel.readOnly && !sel.labels?.length && !sel.fields?.length) {
      const last = this.lastUnselective
      if (last !== undefined && last.ev === ev) return last.out
      const out = this.translateOne(ev, sel)
      this.lastUnselective = { ev, out }
      return out
    }
    return this.translateOne(ev, sel)
  }

  private translateOne(ev: WatchEvent, sel: WatchOptions): ApiWatchEvent | undefined {
    const shared = sel.readOnly ? this.sharedDecodes.get(ev, () => this.decode(ev.type === 'delete' ? ev.prevValue! : ev.value!, ev.revision)) : undefined
    if (ev.type === 'create') {
      const obj = shared?.object ?? this.decode(ev.value!, ev.revision)
      return this.matches(obj, sel) ? { type: 'ADDED', object: obj } : undefined
    }
    if (ev.type === 'delete') {
      const obj = shared?.object ?? this.decode(ev.prevValue!, ev.revision)
      return this.matches(obj, sel) ? { type: 'DELETED', object: obj } : undefined
    }
    const obj = shared?.object ?? this.decode(ev.value!, ev.revision)
    const now = this.matches(obj, sel)
    const decodePrevious = () => this.decode(ev.prevValue!, ev.prevModRevision ?? ev.revision)
    // Without selectors the previous value matched too: no need to decode it.
    const unselective = !sel.labels?.length && !sel.fields?.length
    const before = ev.prevValue ? unselective || this.matches(shared ? (shared.previous ??= decodePrevious()) : decodePrevious(), sel) : false
    if (now && before) return { type: 'MODIFIED', object: obj }
    if (now) return { type: 'ADDED', object: obj }
    if (before) return { type: 'DELETED', object: obj }
    return undefined
  }

  /** The store's current revision (for bookmarks). */
  currentRevision(): Promise<number> {
    return this.store.currentRevision()
  }
}
