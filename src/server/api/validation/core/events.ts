/**
 * Events (pkg/apis/core/validation/events.go): legacyValidateEvent for every version, and the
 * strict rules of events.k8s.io/v1 on create and update (ValidateEventCreate and
 * ValidateEventUpdate with a request version other than v1 and events.k8s.io/v1beta1). Both
 * take the core form of an event: the reference validates the internal (core) Event, so the
 * paths are the core names (`message`, `count`, `source`), whatever the request's version.
 */
import { type ErrorList, Path, invalid, required } from '../field/index.js'
import { type Obj, obj, semanticEqual, str } from '../helpers.js'
import { anyName, nameIsDNSSubdomain } from '../names.js'
import { validateImmutableField, validateObjectMeta } from '../objectmeta.js'
import { isDNS1123Subdomain, isQualifiedName } from '../strings.js'

const P = (name: string) => Path.of(name)

/** legacyValidateEvent. */
function legacyValidateEvent(e: Obj): ErrorList {
  const errs: ErrorList = []
  const namespace = str(obj(e.metadata).namespace)
  const involvedNs = str(obj(e.involvedObject).namespace)
  if (!str(e.eventTime)) {
    if (!involvedNs) {
      if (namespace !== '' && namespace !== 'default') errs.push(invalid(Path.of('involvedObject', 'namespace'), involvedNs, 'does not match event.namespace'))
    } else if (namespace !== involvedNs) errs.push(invalid(Path.of('involvedObject', 'namespace'), involvedNs, 'does not match event.namespace'))
  } else {
    if (!involvedNs && namespace !== 'default' && namespace !== 'kube-system') errs.push(invalid(Path.of('involvedObject', 'namespace'), involvedNs, 'does not match event.namespace'))
    const controller = str(e.reportingComponent ?? e.reportingController)
    if (!controller) errs.push(required(P('reportingController')))
    for (const m of isQualifiedName(controller)) errs.push(invalid(P('reportingController'), controller, m))
    const instance = str(e.reportingInstance)
    if (!instance) errs.push(required(P('reportingInstance')))
    if (Buffer.byteLength(instance) > 128) errs.push(invalid(P('reportingInstance'), '', 'can have at most 128 characters'))
    const action = str(e.action)
    if (!action) errs.push(required(P('action')))
    if (Buffer.byteLength(action) > 128) errs.push(invalid(P('action'), '', 'can have at most 128 characters'))
    const reason = str(e.reason)
    if (!reason) errs.push(required(P('reason')))
    if (Buffer.byteLength(reason) > 128) errs.push(invalid(P('reason'), '', 'can have at most 128 characters'))
    if (Buffer.byteLength(str(e.message)) > 1024) errs.push(invalid(P('message'), '', 'can have at most 1024 characters'))
  }
  for (const m of isDNS1123Subdomain(namespace)) errs.push(invalid(P('namespace'), namespace, m))
  return errs
}

/** ValidateEventCreate of the core v1 API (no strict rules, for compatibility). */
export function validateEvent(e: Obj): ErrorList {
  return legacyValidateEvent(e)
}

/** ValidateEventUpdate of the core v1 API. */
export function validateEventUpdate(e: Obj): ErrorList {
  return legacyValidateEvent(e)
}

/** validateV1EventSeries: a series counts at least 2 and has its last observed time. */
function validateV1EventSeries(e: Obj): ErrorList {
  if (e.series === undefined || e.series === null) return []
  const series = obj(e.series)
  const errs: ErrorList = []
  if ((typeof series.count === 'number' ? series.count : 0) < 2) errs.push(invalid(P('series.count'), '', 'should be at least 2'))
  if (!str(series.lastObservedTime)) errs.push(required(P('series.lastObservedTime')))
  return errs
}

/**
 * The name rule of events.k8s.io/v1 (ValidateObjectMeta with NameIsDNSSubdomain): the store
 * already checked the metadata with the core Event's any-name rule, so only what the stricter
 * name rule adds is reported here, where the reference reports it (after the legacy rules).
 */
function strictNameErrors(e: Obj): ErrorList {
  const generic = new Set(validateObjectMeta(e.metadata, true, anyName).map((x) => `${x.field}: ${x.message}`))
  return validateObjectMeta(e.metadata, true, nameIsDNSSubdomain).filter((x) => !generic.has(`${x.field}: ${x.message}`))
}

/** ValidateEventCreate through events.k8s.io/v1: the legacy rules, then the strict ones. */
export function validateEventCreateV1(e: Obj): ErrorList {
  const errs = [...legacyValidateEvent(e), ...strictNameErrors(e), ...validateV1EventSeries(e)]
  if (!str(e.eventTime)) errs.push(required(P('eventTime')))
  const type = str(e.type)
  if (type !== 'Normal' && type !== 'Warning') errs.push(invalid(P('type'), '', `has invalid value: ${type}`))
  if (str(e.firstTimestamp)) errs.push(invalid(P('firstTimestamp'), '', 'needs to be unset'))
  if (str(e.lastTimestamp)) errs.push(invalid(P('lastTimestamp'), '', 'needs to be unset'))
  if (typeof e.count === 'number' && e.count !== 0) errs.push(invalid(P('count'), '', 'needs to be unset'))
  const source = obj(e.source)
  if (str(source.component) || str(source.host)) errs.push(invalid(P('source'), '', 'needs to be unset'))
  return errs
}

/** The strict rules events.k8s.io/v1 adds on update, exported for that group. */
export function validateStrictEventUpdate(e: Obj, old: Obj): ErrorList {
  const errs = legacyValidateEvent(e)
  if (!semanticEqual(e.series, old.series)) errs.push(...validateV1EventSeries(e))
  for (const f of ['involvedObject', 'reason', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count', 'reason', 'type', 'eventTime', 'action', 'related', 'reportingComponent', 'reportingInstance']) {
    errs.push(...validateImmutableField(e[f] ?? null, old[f] ?? null, P(f === 'reportingComponent' ? 'reportingController' : f)))
  }
  return errs
}
