/**
 * Events (pkg/apis/core/validation/events.go): legacyValidateEvent for every version, and the
 * strict rules of events.k8s.io/v1 (`strict`) on create and update.
 */
import { type ErrorList, Path, invalid, required } from '../field/index.js'
import { type Obj, obj, semanticEqual, str } from '../helpers.js'
import { validateImmutableField } from '../objectmeta.js'
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

/** The strict rules events.k8s.io/v1 adds on update, exported for that group. */
export function validateStrictEventUpdate(e: Obj, old: Obj): ErrorList {
  const errs = legacyValidateEvent(e)
  if (!semanticEqual(e.series, old.series) && e.series) {
    const series = obj(e.series)
    if ((typeof series.count === 'number' ? series.count : 0) < 2) errs.push(invalid(P('series.count'), '', 'should be at least 2'))
    if (!str(series.lastObservedTime)) errs.push(required(P('series.lastObservedTime')))
  }
  for (const f of ['involvedObject', 'reason', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count', 'reason', 'type', 'eventTime', 'action', 'related', 'reportingComponent', 'reportingInstance']) {
    errs.push(...validateImmutableField(e[f] ?? null, old[f] ?? null, P(f === 'reportingComponent' ? 'reportingController' : f)))
  }
  return errs
}
