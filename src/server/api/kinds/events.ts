/**
 * events.k8s.io/v1 Events: the core Events under their new names, kept in the core Event form
 * (the reference stores both as core v1 Events, so each API lists the other's writes). The
 * field mapping is pkg/apis/events/v1's conversion: involvedObject is `regarding`, message is
 * `note`, reportingComponent is `reportingController`, and the old timestamps, count and source
 * are the `deprecated*` fields.
 */
import type { KubeObject } from '../registry/object.js'
import type { StorageVersion, Strategy } from '../registry/strategy.js'
import { validateEventCreateV1, validateStrictEventUpdate } from '../validation/core/index.js'
import { coreEvents } from './core-events.js'
import type { KindOverrides, KindTable } from './kind.js'

/** [core field, events.k8s.io field] */
const RENAMED: readonly [string, string][] = [
  ['involvedObject', 'regarding'],
  ['message', 'note'],
  ['reportingComponent', 'reportingController'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
]
const SAME = ['metadata', 'eventTime', 'series', 'related', 'reportingInstance', 'action', 'reason', 'type']

function rename(o: KubeObject, apiVersion: string, from: 0 | 1): KubeObject {
  const out: KubeObject = { apiVersion, kind: 'Event', metadata: { ...o.metadata } }
  const src = o as Record<string, unknown>
  const dst = out as Record<string, unknown>
  for (const k of SAME) if (src[k] !== undefined) dst[k] = src[k]
  for (const pair of RENAMED) if (src[pair[from]] !== undefined) dst[pair[1 - from]!] = src[pair[from]]
  return out
}

export const toCoreEvent = (o: KubeObject): KubeObject => rename(o, 'v1', 1)
export const fromCoreEvent = (o: KubeObject): KubeObject => rename(o, 'events.k8s.io/v1', 0)

const STORED_AS_CORE: StorageVersion = { apiVersion: 'v1', kind: 'Event', toStorage: toCoreEvent, fromStorage: fromCoreEvent }

/**
 * The events.k8s.io overrides: the core Event's Table, field selectors and TTL, read through
 * the core form; validation of the core form with the strict rules of this API version.
 */
function eventsV1(core: KindOverrides): KindOverrides {
  const table = core.table!
  const fields = core.fields!
  return {
    validateName: core.validateName!,
    storageVersion: STORED_AS_CORE,
    validate: (o) => validateEventCreateV1(toCoreEvent(o)),
    validateUpdate: (o, old) => validateStrictEventUpdate(toCoreEvent(o), toCoreEvent(old)),
    selectableFields: core.selectableFields!,
    fields: (o) => fields(toCoreEvent(o)),
    table: { definitions: table.definitions, cells: (o, now) => table.cells(toCoreEvent(o), now) },
    storeHooks: core.storeHooks!,
    createOnUpdate: core.createOnUpdate!,
  } satisfies Partial<Strategy>
}

export const EVENTS: KindTable = { 'events.k8s.io/v1/events': eventsV1(coreEvents) }
