/**
 * The core group's Events: any name, the reference's validation, field selectors and printer;
 * each Event lives --event-ttl after its last write (the Event REST storage's TTLFunc).
 */
import { isPlainObject } from '../registry/object.js'
import type { StoreHooksContext, KindStoreHooks } from '../registry/store-hooks.js'
import { validateEvent, validateEventUpdate } from '../validation/core.js'
import { anyName } from '../validation/names.js'
import { NAME_COLUMN, humanDuration } from '../table.js'
import type { KindOverrides, KindTable } from './kind.js'
import { col, num, obj, str } from './values.js'

/** --event-ttl: the lifetime of every Event written (core and events.k8s.io); 0 keeps them. */
function eventStoreHooks({ options }: StoreHooksContext): KindStoreHooks {
  return options.eventTtlSeconds ? { ttlSeconds: () => options.eventTtlSeconds } : {}
}

export const coreEvents: KindOverrides = {
  createOnUpdate: true,
  storeHooks: eventStoreHooks,
  validateName: anyName,
  validate: validateEvent,
  validateUpdate: validateEventUpdate,
  selectableFields: [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  fields: (o) => {
    const io = obj(o.involvedObject)
    const out: Record<string, string> = {}
    for (const f of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath']) out[`involvedObject.${f}`] = str(io[f])
    out.reason = str(o.reason)
    out.reportingComponent = str(o.reportingComponent)
    out.source = str(obj(o.source).component) || str(o.reportingComponent)
    out.type = str(o.type)
    return out
  },
  table: {
    definitions: [
      col('Last Seen', 'The time at which the most recent occurrence of this event was recorded.'),
      col('Type', 'Type of this event (Normal, Warning), new types could be added in the future'),
      col('Reason', "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
      col('Object', 'The object that this event is about.'),
      col('Subobject', 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].', 1),
      col('Source', 'The component reporting this event. Should be a short machine understandable string.', 1),
      col('Message', 'A human-readable description of the status of this operation.'),
      col('First Seen', 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', 1),
      col('Count', 'The number of times this event has occurred.', 1),
      { ...NAME_COLUMN, priority: 1 },
    ],
    cells: (o, now) => {
      const since = (ts: unknown) => {
        const t = typeof ts === 'string' && ts !== '' ? Date.parse(ts) : Number.NaN
        return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t)
      }
      const first = o.firstTimestamp ? since(o.firstTimestamp) : since(o.eventTime)
      let last = o.lastTimestamp ? since(o.lastTimestamp) : first
      let count = num(o.count)
      const series = obj(o.series)
      if (isPlainObject(o.series)) {
        last = since(series.lastObservedTime)
        count = num(series.count)
      } else if (count === 0) count = 1
      const io = obj(o.involvedObject)
      const kind = str(io.kind).toLowerCase()
      const target = str(io.name) ? `${kind}/${str(io.name)}` : kind
      const source = obj(o.source)
      const component = str(source.component) || str(o.reportingComponent)
      const instance = str(source.host) || str(o.reportingInstance)
      return [last, str(o.type), str(o.reason), target, str(io.fieldPath), instance ? `${component}, ${instance}` : component, str(o.message).trim(), first, count, o.metadata.name]
    },
  },
}

export const CORE_EVENTS: KindTable = { '/v1/events': coreEvents }
