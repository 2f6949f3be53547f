/**
 * The field manager of server-side apply (apimachinery's managedfields): who owns which field
 * of an object, kept in metadata.managedFields. `updateManagedFields` records a create, update
 * or patch (operation Update: the manager takes the fields it changed, others lose them);
 * `applyConfiguration` merges an applied configuration into the live object (operation Apply:
 * the applier owns exactly the fields of its configuration, fields it applied before and left
 * out are removed unless someone else owns them, changing another manager's field is a
 * conflict unless forced).
 */
import { FieldSet, FieldsV1Error, type PathElement, fieldElement, pathString } from './fieldpath.js'
import type { TypeNode } from './schema.js'
import { ApplySchemaError, compare, merge, removeItems, toFieldSet, validationErrors, withNamedFieldsAsMembers } from './walk.js'
import { rfc3339Now } from '../util/rfc3339-now.js'

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

export interface ManagedFieldsEntry {
  manager?: string
  operation?: string
  apiVersion?: string
  time?: string
  fieldsType?: string
  fieldsV1?: Record<string, unknown>
  subresource?: string
}

interface Owner {
  manager: string
  operation: 'Apply' | 'Update'
  apiVersion: string
  subresource?: string
  time?: string
  set: FieldSet
}

/** Owners by the reference's manager identifier (the entry without time and fields). */
type Managed = Map<string, Owner>

export interface FieldManagerScope {
  /** The type of the object's kind. */
  type: TypeNode
  /** The version the request is served at (`apps/v1`). */
  apiVersion: string
  /** `status` or `scale` for writes through those subresources. */
  subresource?: string
  /** Fields the write cannot set (status of the main resource; all but status for `status`). */
  resetFields?: (set: FieldSet) => FieldSet
  /** The time stamp of this operation (RFC 3339, seconds). */
  now?: string
}

/** A conflict of an apply with the fields of other managers (409). */
export class ApplyConflictError extends Error {
  constructor(
    message: string,
    readonly causes: { reason: string; message: string; field: string }[],
  ) {
    super(message)
  }
}

/** An apply request the reference rejects with 400 Bad Request. */
export class ApplyBadRequest extends Error {}

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration'
const MAX_UPDATE_MANAGERS = 10
const BEFORE_FIRST_APPLY = 'before-first-apply'
const ANCIENT_CHANGES = 'ancient-changes'

export function nowRfc3339(): string {
  return rfc3339Now()
}

/** Fields no manager owns: identity and server-set metadata (the reference's stripMeta). */
const STRIPPED = FieldSet.of(
  ['f:apiVersion'],
  ['f:kind'],
  ['f:metadata'],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) => ['f:metadata', fieldElement(f)]),
)

function identifier(o: { manager: string; operation: string; apiVersion: string; subresource?: string }): string {
  return JSON.stringify({
    manager: o.manager,
    operation: o.operation,
    ...(o.operation === 'Update' ? { apiVersion: o.apiVersion } : {}),
    ...(o.subresource ? { subresource: o.subresource } : {}),
  })
}

/** Decodes metadata.managedFields; throws on an invalid entry (the reference's messages). */
export function decodeManagedFields(entries: unknown): Managed {
  const managed: Managed = new Map()
  if (entries === undefined || entries === null) return managed
  if (!Array.isArray(entries)) throw new FieldsV1Error('managedFields must be a list')
  entries.forEach((raw, i) => {
    const e = (isObj(raw) ? raw : {}) as ManagedFieldsEntry
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new FieldsV1Error('operation must be `Apply` or `Update`')
    if (!e.apiVersion) throw new FieldsV1Error('apiVersion must not be empty')
    if (e.fieldsType === undefined || e.fieldsType === '') throw new FieldsV1Error(`missing fieldsType in managed fields entry ${i}`)
    if (e.fieldsType !== 'FieldsV1') throw new FieldsV1Error(`invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`)
    const owner: Owner = {
      manager: e.manager ?? '',
      operation: e.operation,
      apiVersion: e.apiVersion,
      ...(e.subresource ? { subresource: e.subresource } : {}),
      ...(e.time ? { time: e.time } : {}),
      set: FieldSet.fromFieldsV1(e.fieldsV1 ?? {}),
    }
    managed.set(identifier(owner), owner)
  })
  return managed
}

const seconds = (t?: string) => (t ? Math.floor(Date.parse(t) / 1000) : 0)
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** The managedFields list: Apply before Update, then oldest first, then by manager. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.size === 0) return undefined
  const owners = [...managed.values()].sort(
    (p, q) =>
      cmp(p.operation, q.operation) ||
      seconds(p.time) - seconds(q.time) ||
      cmp(p.manager, q.manager) ||
      cmp(p.apiVersion, q.apiVersion) ||
      cmp(p.subresource ?? '', q.subresource ?? ''),
  )
  return owners.map((o) => ({
    manager: o.manager,
    operation: o.operation,
    apiVersion: o.apiVersion,
    ...(o.time ? { time: o.time } : {}),
    fieldsType: 'FieldsV1',
    fieldsV1: o.set.toFieldsV1(),
    ...(o.subresource ? { subresource: o.subresource } : {}),
  }))
}

function withoutManagedFields(obj: Obj | undefined): Obj {
  if (!obj) return {}
  const copy = structuredClone(obj)
  if (isObj(copy.metadata)) delete copy.metadata.managedFields
  return copy
}

/**
 * `obj` without metadata.managedFields, copying only the object and its metadata: for the
 * comparison of an update, which reads the objects and never changes them (a deep copy of every
 * created and updated object cost more than the comparison of a small one).
 */
function shallowWithoutManagedFields(obj: Obj | undefined): Obj {
  if (!obj) return {}
  if (!isObj(obj.metadata)) return { ...obj }
  const { managedFields: _dropped, ...metadata } = obj.metadata
  return { ...obj, metadata }
}

function setManagedFields(obj: Obj, managed: Managed): void {
  const entries = encodeManagedFields(managed)
  if (!isObj(obj.metadata)) obj.metadata = {}
  const meta = obj.metadata as Obj
  if (entries) meta.managedFields = entries
  else delete meta.managedFields
}

function filter(set: FieldSet, scope: FieldManagerScope): FieldSet {
  const s = set.difference(STRIPPED)
  return scope.resetFields ? scope.resetFields(s) : s
}

/** The reference's update of the managed fields for a change from `live` to `next` by `manager`. */
function recordUpdate(live: Obj, next: Obj, managed: Managed, manager: string, scope: FieldManagerScope): void {
  const c = compare(live, next, scope.type)
  const added = filter(c.added, scope)
  const modified = filter(c.modified, scope)
  const removed = filter(c.removed, scope)
  const changed = modified.union(added)
  for (const [key, owner] of managed) {
    const set = owner.set.difference(owner.set.intersection(changed)).difference(removed)
    if (set.isEmpty()) managed.delete(key)
    else owner.set = set
  }
  const taken = changed.difference(removed)
  if (taken.isEmpty()) return
  const me: Owner = { manager, operation: 'Update', apiVersion: scope.apiVersion, ...(scope.subresource ? { subresource: scope.subresource } : {}), set: taken }
  const key = identifier(me)
  const previous = managed.get(key)
  managed.set(key, { ...me, set: previous ? taken.union(previous.set) : taken, time: scope.now ?? nowRfc3339() })
  capUpdateManagers(managed)
}

/**
 * recordUpdate then encodeManagedFields for a create without entries given (live undefined,
 * nothing decoded): the same entry, built directly. No other owner can lose a field, so the
 * creator's entry is the only one, and the general path's bookkeeping for other owners (their
 * identifiers, the cap on Update managers, the sort) is all of a create's cost that the
 * comparison and the fieldsV1 encoding are not.
 */
function creatorEntries(next: Obj, manager: string, scope: FieldManagerScope): ManagedFieldsEntry[] | undefined {
  const c = compare({}, next, scope.type)
  let taken = filter(c.added, scope)
  if (!c.modified.isEmpty() || !c.removed.isEmpty()) taken = filter(c.modified, scope).union(taken).difference(filter(c.removed, scope))
  if (taken.isEmpty()) return undefined
  return [
    {
      manager,
      operation: 'Update',
      apiVersion: scope.apiVersion,
      time: scope.now ?? nowRfc3339(),
      fieldsType: 'FieldsV1',
      fieldsV1: taken.toFieldsV1(),
      ...(scope.subresource ? { subresource: scope.subresource } : {}),
    },
  ]
}

/** At most MAX_UPDATE_MANAGERS Update entries: the oldest merge into `ancient-changes` per version. */
function capUpdateManagers(managed: Managed): void {
  // Fewer owners than the cap: fewer Update owners too (the common case, without the lists).
  if (managed.size <= MAX_UPDATE_MANAGERS) return
  const updaters = [...managed.entries()].filter(([, o]) => o.operation === 'Update').map(([k]) => k)
  if (updaters.length <= MAX_UPDATE_MANAGERS) return
  updaters.sort((a, b) => seconds(managed.get(a)!.time) - seconds(managed.get(b)!.time) || cmp(a, b))
  const firstOfVersion = new Map<string, string>()
  let length = updaters.length
  for (let i = 0; i < updaters.length && length > MAX_UPDATE_MANAGERS; i++) {
    const key = updaters[i]!
    const owner = managed.get(key)!
    const bucket: Owner = { manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: owner.apiVersion, set: new FieldSet() }
    const bucketKey = identifier(bucket)
    const first = firstOfVersion.get(owner.apiVersion)
    if (first === undefined) {
      firstOfVersion.set(owner.apiVersion, key)
      continue
    }
    if (!managed.has(bucketKey)) {
      const firstOwner = managed.get(first)!
      managed.delete(first)
      managed.set(bucketKey, { ...bucket, set: firstOwner.set, ...(firstOwner.time ? { time: firstOwner.time } : {}) })
    }
    const b = managed.get(bucketKey)!
    managed.set(bucketKey, { ...b, set: owner.set.union(b.set), ...(owner.time ? { time: owner.time } : { time: undefined }) })
    managed.delete(key)
    length--
  }
}

function isResetRequest(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false
  if (entries.length === 0) return true
  return entries.length === 1 && isObj(entries[0]) && Object.keys(entries[0]).length === 0
}

function decodeOrEmpty(entries: unknown): Managed {
  try {
    return decodeManagedFields(entries)
  } catch {
    return new Map()
  }
}

/**
 * Records a create (`live` undefined), update or non-apply patch by `manager` in `next`'s
 * metadata.managedFields. The request's own managedFields are taken when valid and non-empty
 * (clients may edit them; `[]` resets them), else the live object's; subresource writes always
 * keep the live object's. The result is `next` with the new entries: a copy of its top level and
 * metadata, sharing everything else with `next` (neither argument is changed).
 */
export function updateManagedFields(live: Obj | undefined, next: Obj, manager: string, scope: FieldManagerScope): Obj {
  const nextEntries = isObj(next.metadata) ? next.metadata.managedFields : undefined
  const liveEntries = live && isObj(live.metadata) ? live.metadata.managedFields : undefined
  let managed: Managed
  if (scope.subresource) managed = decodeOrEmpty(liveEntries)
  else if (isResetRequest(nextEntries)) managed = new Map()
  else {
    managed = decodeOrEmpty(nextEntries)
    if (managed.size === 0) managed = decodeOrEmpty(liveEntries)
  }
  // The result shares all but its top level and metadata with `next` (see the doc comment).
  const out = shallowWithoutManagedFields(next)
  if (live === undefined && managed.size === 0) {
    let entries: ManagedFieldsEntry[] | undefined
    try {
      entries = creatorEntries(out, manager, scope)
    } catch (err) {
      // As below: no live entries to keep.
      if (!(err instanceof ApplySchemaError)) throw err
      return out
    }
    if (!isObj(out.metadata)) out.metadata = {}
    if (entries) (out.metadata as Obj).managedFields = entries
    return out
  }
  try {
    recordUpdate(shallowWithoutManagedFields(live), out, managed, manager, scope)
  } catch (err) {
    // The reference keeps the live object's entries when tracking fails (UpdateNoErrors).
    if (!(err instanceof ApplySchemaError)) throw err
    if (isObj(out.metadata) && liveEntries !== undefined) out.metadata.managedFields = structuredClone(liveEntries)
    return out
  }
  setManagedFields(out, managed)
  return out
}

function printManager(key: string): string {
  const o = JSON.parse(key) as { manager: string; operation: string; apiVersion?: string; subresource?: string }
  let s = JSON.stringify(o.manager)
  if (o.subresource) s += ` with subresource ${JSON.stringify(o.subresource)}`
  if (o.operation === 'Update') s += ` using ${o.apiVersion ?? ''}`
  return s
}

function conflictError(conflicts: Map<string, FieldSet>): ApplyConflictError {
  const list: { manager: string; path: PathElement[] }[] = []
  for (const key of [...conflicts.keys()].sort()) for (const path of conflicts.get(key)!.paths()) list.push({ manager: key, path })
  const causes = list.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.manager)}`, field: pathString(c.path) }))
  if (list.length === 1) return new ApplyConflictError(`Apply failed with 1 conflict: conflict with ${printManager(list[0]!.manager)}: ${pathString(list[0]!.path)}`, causes)
  const lines: string[] = []
  for (const key of [...conflicts.keys()].sort()) {
    lines.push(`conflicts with ${printManager(key)}:`)
    for (const path of conflicts.get(key)!.paths()) lines.push(`- ${pathString(path)}`)
  }
  return new ApplyConflictError(`Apply failed with ${list.length} conflicts: ${lines.join('\n')}`, causes)
}

interface ApplyOptions {
  manager: string
  force: boolean
}

/**
 * The object after applying `config` as `manager` to `live` (undefined: the object is created),
 * with its managedFields. Throws ApplyConflictError, ApplyBadRequest or ApplySchemaError.
 */
export function applyConfiguration(live: Obj | undefined, config: Obj, options: ApplyOptions, scope: FieldManagerScope): Obj {
  const version = typeof config.apiVersion === 'string' ? config.apiVersion : ''
  if (version !== scope.apiVersion) {
    throw new ApplyBadRequest(`Incorrect version specified in apply patch. Specified patch version: ${version}, expected: ${scope.apiVersion}`)
  }
  if (isObj(config.metadata) && config.metadata.managedFields !== undefined) throw new ApplyBadRequest('metadata.managedFields must be nil')
  const errs = validationErrors(config, scope.type)
  if (errs.length === 1) throw new ApplySchemaError(errs[0]!)
  if (errs.length > 1) throw new ApplySchemaError(['errors:', ...errs.map((e) => `  ${e}`)].join('\n'))
  try {
    return applyOnce(live, config, options, scope)
  } catch (err) {
    if (!(err instanceof Conflicts) || options.manager !== 'kubectl' || !live) throw err instanceof Conflicts ? conflictError(err.conflicts) : err
    // kubectl's first server-side apply after client-side ones: the fields of the last applied
    // configuration that still hold their applied values are its own (lastAppliedManager).
    const allowed = allowedFromLastApplied(live, scope)
    const remaining = new Map<string, FieldSet>()
    for (const [k, set] of err.conflicts) {
      const left = set.difference(allowed)
      if (!left.isEmpty()) remaining.set(k, left)
    }
    if (remaining.size > 0) throw conflictError(remaining)
    return applyOnce(live, config, { ...options, force: true }, scope)
  }
}

class Conflicts extends Error {
  constructor(readonly conflicts: Map<string, FieldSet>) {
    super('conflicts')
  }
}

function allowedFromLastApplied(live: Obj, scope: FieldManagerScope): FieldSet {
  const annotations = isObj(live.metadata) && isObj(live.metadata.annotations) ? live.metadata.annotations : {}
  const text = annotations[LAST_APPLIED_ANNOTATION]
  if (typeof text !== 'string' || text === '') return new FieldSet()
  let lastApplied: unknown
  try {
    lastApplied = JSON.parse(text)
  } catch {
    return new FieldSet()
  }
  if (!isObj(lastApplied) || lastApplied.apiVersion !== scope.apiVersion) return new FieldSet()
  try {
    const c = compare(lastApplied, withoutManagedFields(live), scope.type)
    return toFieldSet(lastApplied, scope.type).difference(c.modified).difference(c.added).difference(c.removed)
  } catch {
    return new FieldSet()
  }
}

function applyOnce(live: Obj | undefined, config: Obj, options: ApplyOptions, scope: FieldManagerScope): Obj {
  let managed: Managed
  try {
    managed = decodeManagedFields(live && isObj(live.metadata) ? live.metadata.managedFields : undefined)
  } catch (err) {
    throw new Error(`failed to decode managed fields: ${(err as Error).message}`)
  }
  const liveObj = withoutManagedFields(live)
  const now = scope.now ?? nowRfc3339()
  // Objects that were never tracked: what they hold so far belongs to `before-first-apply`.
  if (live && managed.size === 0) recordUpdate({}, liveObj, managed, BEFORE_FIRST_APPLY, { ...scope, subresource: undefined, now } as FieldManagerScope)

  let merged = merge(liveObj, config, scope.type) as Obj
  const me: Owner = { manager: options.manager, operation: 'Apply', apiVersion: scope.apiVersion, ...(scope.subresource ? { subresource: scope.subresource } : {}), set: new FieldSet() }
  const key = identifier(me)
  const previous = managed.get(key)
  const configSet = toFieldSet(config, scope.type)
  const applied = filter(configSet, scope)
  let others = new FieldSet()
  for (const [k, o] of managed) if (k !== key) others = others.union(o.set)
  // The configuration's identity fields (metadata.name) count as owned here, as in the reference.
  if (previous) merged = prune(merged, previous.set, configSet.union(others), scope.type)

  const c = compare(liveObj, merged, scope.type)
  const changed = filter(c.modified.union(c.added), scope)
  const removed = filter(c.removed, scope)
  const conflicts = new Map<string, FieldSet>()
  for (const [k, o] of managed) {
    if (k === key) continue
    const clash = o.set.intersection(changed)
    if (!clash.isEmpty()) conflicts.set(k, clash)
  }
  if (conflicts.size > 0 && !options.force) throw new Conflicts(conflicts)
  for (const [k, o] of managed) {
    if (k === key) continue
    const set = o.set.difference(conflicts.get(k) ?? new FieldSet()).difference(removed)
    if (set.isEmpty()) managed.delete(k)
    else o.set = set
  }
  const unchanged = JSON.stringify(canonical(liveObj)) === JSON.stringify(canonical(merged)) && live !== undefined
  // An apply that changes nothing leaves the time as it was (none for a new entry), as the reference does.
  const time = unchanged ? previous?.time : now
  if (applied.isEmpty()) managed.delete(key)
  else managed.set(key, { ...me, set: applied, ...(time ? { time } : {}) })

  // kubectl's server-side apply keeps a client-side apply annotation in step (lastAppliedUpdater).
  if (options.manager === 'kubectl' && isObj(merged.metadata) && isObj(merged.metadata.annotations) && typeof merged.metadata.annotations[LAST_APPLIED_ANNOTATION] === 'string') {
    const lastApplied = structuredClone(config)
    if (isObj(lastApplied.metadata) && isObj(lastApplied.metadata.annotations)) delete lastApplied.metadata.annotations[LAST_APPLIED_ANNOTATION]
    // Encoded as Go encodes an unstructured object: keys sorted, one line.
    merged.metadata.annotations[LAST_APPLIED_ANNOTATION] = `${JSON.stringify(canonical(lastApplied))}\n`
  }
  setManagedFields(merged, managed)
  return merged
}

/**
 * What the applier applied last time and left out now is removed from `merged`, except what
 * any manager (the applier's new configuration included) still owns, parents of owned fields
 * included; only what the applier owned goes.
 */
function prune(merged: Obj, lastSet: FieldSet, owned: FieldSet, type: TypeNode): Obj {
  const last = withNamedFieldsAsMembers(lastSet, type)
  const candidate = removeItems(merged, last, type)
  const mergedSet = withNamedFieldsAsMembers(toFieldSet(merged, type), type)
  const candidateSet = withNamedFieldsAsMembers(toFieldSet(candidate, type), type)
  const toRemove = mergedSet.difference(candidateSet.union(withNamedFieldsAsMembers(owned, type))).intersection(last)
  return removeItems(merged, toRemove, type) as Obj
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical)
  if (isObj(v)) {
    const out: Obj = {}
    for (const k of Object.keys(v).sort()) if (v[k] !== undefined) out[k] = canonical(v[k])
    return out
  }
  return v
}

/** Reset fields as sets: everything under `status`, or everything but it. */
export function withoutStatus(set: FieldSet): FieldSet {
  return set.difference(statusOf(set))
}

export function onlyStatus(set: FieldSet): FieldSet {
  return statusOf(set)
}

function statusOf(set: FieldSet): FieldSet {
  const out = new FieldSet()
  const pe = fieldElement('status')
  if (set.members.has(pe)) out.members.add(pe)
  const c = set.children.get(pe)
  if (c) out.children.set(pe, c.union(new FieldSet()))
  return out
}
