/**
 * Validation of storagemigration.k8s.io StorageVersionMigrations (beta), after the reference's
 * `pkg/apis/storagemigration/validation/validation.go`: the resource (a DNS-1035 label) and
 * group (a DNS subdomain); the spec immutable; on the status, valid conditions, the migrated
 * resource version fixed once set, and the Succeeded, Failed and Running conditions consistent.
 * (The status's resource version is not checked to be a number yet.)
 */
import type { KubeObject } from '../registry/object.js'
import { type ErrorList, Path, Rendered, goJSON, invalid, required } from './field/index.js'
import { arr, obj, str } from './helpers.js'
import { validateConditions } from './meta-v1.js'
import { isDNS1035Label, isDNS1123Subdomain } from './strings.js'

const STATUS = Path.of('status')

/** ValidateStorageVersionMigration (without the metadata). */
export function validateStorageVersionMigration(o: KubeObject): ErrorList {
  const resource = obj(obj(o.spec).resource)
  const p = Path.of('spec', 'resource')
  const errs: ErrorList = []
  const name = str(resource.resource)
  if (name.length === 0) errs.push(required(p.child('resource'), 'resource is required to be set'))
  else {
    const m = isDNS1035Label(name)
    if (m.length > 0) errs.push(invalid(p.child('resource'), name, m.join(',')))
  }
  const group = str(resource.group)
  if (group.length !== 0) {
    const m = isDNS1123Subdomain(group)
    if (m.length > 0) errs.push(invalid(p.child('group'), group, m.join(',')))
  }
  return errs
}

/** The spec as the reference prints its internal struct: `Resource`, a metav1.GroupResource. */
function specValue(spec: Record<string, unknown>): Rendered {
  const r = obj(spec.resource)
  return new Rendered(`{"Resource":{"group":${goJSON(str(r.group))},"resource":${goJSON(str(r.resource))}}}`)
}

/** ValidateStorageVersionMigrationUpdate: the object's rules, and the spec immutable. */
export function validateStorageVersionMigrationUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const errs = validateStorageVersionMigration(o)
  const r = obj(obj(o.spec).resource)
  const oldR = obj(obj(old.spec).resource)
  if (str(r.group) !== str(oldR.group) || str(r.resource) !== str(oldR.resource)) errs.push(invalid(Path.of('spec'), specValue(obj(o.spec)), 'field is immutable'))
  return errs
}

/** metav1.Condition marshalled in its declaration order (observedGeneration omitted when zero). */
function conditionsValue(conditions: unknown): Rendered {
  const list = arr(conditions).map((c) => {
    const x = obj(c)
    const generation = typeof x.observedGeneration === 'number' && x.observedGeneration !== 0 ? `,"observedGeneration":${x.observedGeneration}` : ''
    const time = typeof x.lastTransitionTime === 'string' && x.lastTransitionTime !== '' ? goJSON(x.lastTransitionTime) : 'null'
    return `{"type":${goJSON(str(x.type))},"status":${goJSON(str(x.status))}${generation},"lastTransitionTime":${time},"reason":${goJSON(str(x.reason))},"message":${goJSON(str(x.message))}}`
  })
  return new Rendered(list.length === 0 ? 'null' : `[${list.join(',')}]`)
}

function isTrue(o: KubeObject, type: string): boolean {
  return arr(obj(o.status).conditions).some((c) => str(obj(c).type) === type && str(obj(c).status) === 'True')
}

/** ValidateStorageVersionMigrationStatusUpdate (but the resource version's syntax). */
export function validateStorageVersionMigrationStatusUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const status = obj(o.status)
  const errs = validateConditions(status.conditions, STATUS.child('conditions'))
  const rv = str(status.resourceVersion)
  const oldRV = str(obj(old.status).resourceVersion)
  if (oldRV.length !== 0 && oldRV !== rv) errs.push(invalid(STATUS.child('resourceVersion'), rv, 'field is immutable'))
  const conditions = () => conditionsValue(status.conditions)
  const succeeded = isTrue(o, 'Succeeded')
  const failed = isTrue(o, 'Failed')
  const running = isTrue(o, 'Running')
  if (succeeded && failed) errs.push(invalid(STATUS.child('conditions'), conditions(), 'Both success and failed conditions cannot be true at the same time'))
  if (succeeded && running) errs.push(invalid(STATUS.child('conditions'), conditions(), 'Running condition cannot be true when success condition is true'))
  if (failed && running) errs.push(invalid(STATUS.child('conditions'), conditions(), 'Running condition cannot be true when failed condition is true'))
  if (isTrue(old, 'Succeeded') && !succeeded) errs.push(invalid(STATUS.child('conditions'), conditions(), 'Success condition cannot be set to false once it is true'))
  if (isTrue(old, 'Failed') && !failed) errs.push(invalid(STATUS.child('conditions'), conditions(), 'Failed condition cannot be set to false once it is true'))
  return errs
}
