/**
 * The `scale` subresource (deployments, replicasets, statefulsets, replicationcontrollers):
 * an autoscaling/v1 Scale of the object (spec.replicas, status.replicas, status.selector as
 * a label-selector string). PUT and PATCH (json, merge, strategic) of the Scale set the
 * object's spec.replicas through the main resource's update, so generation is bumped. The
 * Scale's resourceVersion, when set, is a precondition on the object.
 */
import type { KubeObject } from '../registry/object.js'
import { isPlainObject } from '../registry/object.js'
import { type ScalePaths, invalidValue } from '../registry/strategy.js'
import { getPath, setPath } from '../kinds/crd.js'
import { errors } from '../status-errors.js'
import { DEFAULT_COLUMNS, toTable } from '../table.js'
import { decodeRequestBody, negotiateOutput, readBody, requestMediaType, writeObject } from '../negotiation.js'
import { APPLY_PATCH_TYPE, applyScaleHandler } from './apply.js'
import { patchObject, readPatch } from './patch.js'
import { managerOf, trackFields } from './field-manager.js'
import { type Scope, checkFieldValidation, includeObject, isDryRun } from './scope.js'
import { admissionRequest, writeOptions } from './admission-request.js'

const SCALE_GROUP = 'autoscaling'
const SCALE_VERSION = 'v1'

type Obj = Record<string, unknown>

function selectorValues(values: unknown): string {
  return (Array.isArray(values) ? values.map(String) : []).sort().join(',')
}

/** A metav1.LabelSelector as the reference's selector string (requirements sorted by key). */
export function labelSelectorString(selector: unknown): string {
  if (!isPlainObject(selector)) return ''
  const reqs: [string, string][] = []
  if (isPlainObject(selector.matchLabels)) {
    for (const [k, v] of Object.entries(selector.matchLabels)) reqs.push([k, `${k}=${String(v)}`])
  }
  for (const e of Array.isArray(selector.matchExpressions) ? selector.matchExpressions : []) {
    if (!isPlainObject(e)) continue
    const key = String(e.key ?? '')
    const op = String(e.operator ?? '')
    if (op === 'In') reqs.push([key, `${key} in (${selectorValues(e.values)})`])
    else if (op === 'NotIn') reqs.push([key, `${key} notin (${selectorValues(e.values)})`])
    else if (op === 'Exists') reqs.push([key, key])
    else if (op === 'DoesNotExist') reqs.push([key, `!${key}`])
  }
  return reqs
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map((r) => r[1])
    .join(',')
}

/** The Scale of an object of a scalable kind (custom resources: at the CRD's paths). */
export function toScale(obj: KubeObject, paths?: ScalePaths): KubeObject {
  if (paths) {
    const specReplicas = getPath(obj, paths.specReplicas)
    const statusReplicas = getPath(obj, paths.statusReplicas)
    const selector = paths.labelSelector ? getPath(obj, paths.labelSelector) : undefined
    return scaleOf(obj, typeof specReplicas === 'number' ? specReplicas : 0, typeof statusReplicas === 'number' ? statusReplicas : 0, typeof selector === 'string' ? selector : '')
  }
  const spec = isPlainObject(obj.spec) ? obj.spec : {}
  const status = isPlainObject(obj.status) ? obj.status : {}
  // ReplicationControllers select with a plain map, the apps kinds with a LabelSelector.
  const selector = obj.kind === 'ReplicationController' ? labelSelectorString({ matchLabels: spec.selector }) : labelSelectorString(spec.selector)
  return scaleOf(obj, typeof spec.replicas === 'number' ? spec.replicas : 1, typeof status.replicas === 'number' ? status.replicas : 0, selector)
}

function scaleOf(obj: KubeObject, specReplicas: number, statusReplicas: number, selector: string): KubeObject {
  const meta = obj.metadata
  return {
    kind: 'Scale',
    apiVersion: `${SCALE_GROUP}/${SCALE_VERSION}`,
    metadata: {
      name: meta.name,
      ...(meta.namespace !== undefined ? { namespace: meta.namespace } : {}),
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    spec: { replicas: specReplicas },
    status: { replicas: statusReplicas, ...(selector ? { selector } : {}) },
  }
}

/** Checks a Scale sent by a client; returns its replicas. */
function scaleReplicas(name: string, scale: Obj): number {
  const spec = isPlainObject(scale.spec) ? scale.spec : {}
  const replicas = spec.replicas ?? 0
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) {
    throw errors.badRequest(`Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal ${typeof replicas} into Go struct field ScaleSpec.spec.replicas of type int32`)
  }
  if (replicas < 0) throw errors.invalid(SCALE_GROUP, 'Scale', name, [invalidValue('spec.replicas', replicas, 'must be greater than or equal to 0')])
  return replicas
}

/** The object with the Scale's replicas (and its resourceVersion as a precondition). */
function applyScale(current: KubeObject, scale: Obj, name: string, paths?: ScalePaths): KubeObject {
  const replicas = scaleReplicas(name, scale)
  const meta = isPlainObject(scale.metadata) ? scale.metadata : {}
  const rv = typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' ? meta.resourceVersion : current.metadata.resourceVersion
  if (typeof meta.uid === 'string' && meta.uid !== '' && meta.uid !== current.metadata.uid) {
    throw errors.conflict({ group: SCALE_GROUP, resource: 'scale' }, name, `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${current.metadata.uid ?? ''}`)
  }
  if (paths) {
    const next = structuredClone(current) as KubeObject & Obj
    if (rv !== undefined) next.metadata.resourceVersion = rv
    setPath(next, paths.specReplicas, replicas)
    return next
  }
  const spec = isPlainObject(current.spec) ? current.spec : {}
  return { ...current, metadata: { ...current.metadata, ...(rv !== undefined ? { resourceVersion: rv } : {}) }, spec: { ...spec, replicas } }
}

export async function getScaleHandler(scope: Scope): Promise<void> {
  const output = negotiateOutput(scope.req.headers.accept, { table: true })
  const scale = toScale(await scope.store.get(scope.namespace, scope.name!), scope.store.strategy.scalePaths)
  if (output.kind === 'table') {
    const table = toTable(DEFAULT_COLUMNS, [scale], { resourceVersion: scale.metadata.resourceVersion }, { apiVersion: output.apiVersion, include: includeObject(scope.query) })
    await writeObject(scope.res, 200, table, output)
    return
  }
  await writeObject(scope.res, 200, scale, output)
}

export async function updateScaleHandler(scope: Scope): Promise<void> {
  const output = negotiateOutput(scope.req.headers.accept, { table: false })
  checkFieldValidation(scope.query)
  const dryRun = isDryRun(scope.query.getAll('dryRun'))
  const body = await decodeRequestBody(scope.req, await readBody(scope.req), { kind: 'Scale' })
  if (!isPlainObject(body)) throw errors.badRequest(`Object 'Kind' is missing in '${JSON.stringify(body)}'`)
  if ((body.kind !== undefined && body.kind !== 'Scale') || (body.apiVersion !== undefined && body.apiVersion !== `${SCALE_GROUP}/${SCALE_VERSION}`)) {
    throw errors.badRequest(
      `${String(body.kind ?? '')} in version ${JSON.stringify(String(body.apiVersion ?? '').split('/').pop())} cannot be handled as a Scale: no kind "${String(body.kind ?? '')}" is registered for version "${String(body.apiVersion ?? '')}" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"`,
    )
  }
  const meta = isPlainObject(body.metadata) ? body.metadata : {}
  const bodyName = typeof meta.name === 'string' ? meta.name : ''
  if (bodyName !== scope.name) throw errors.badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${scope.name!})`)
  const conditional = typeof meta.resourceVersion === 'string' && meta.resourceVersion !== ''
  const updated = await scope.store.update(scope.namespace, scope.name!, (current) => applyScale(current, body, scope.name!, scope.store.strategy.scalePaths), {
    dryRun,
    retryOnConflict: !conditional,
    trackFields: trackFields(scope.store, managerOf(scope, 'UpdateOptions'), 'scale'),
    admission: admissionRequest(scope, writeOptions(scope, 'UpdateOptions'), { subresource: 'scale' }),
  })
  await writeObject(scope.res, 200, toScale(updated, scope.store.strategy.scalePaths), output)
}

export async function patchScaleHandler(scope: Scope): Promise<void> {
  const paths = scope.store.strategy.scalePaths
  if (requestMediaType(scope.req) === APPLY_PATCH_TYPE) return applyScaleHandler(scope, (o) => toScale(o, paths), paths?.specReplicas ?? ['spec', 'replicas'])
  const output = negotiateOutput(scope.req.headers.accept, { table: false })
  const parsed = await readPatch(scope)
  const updated = await scope.store.update(
    scope.namespace,
    scope.name!,
    (current) => {
      const scale = toScale(current, scope.store.strategy.scalePaths) as KubeObject & Obj
      const patched = patchObject(scale, parsed)
      // The Scale's resourceVersion is the object's: only a patch that changes it is a precondition.
      return applyScale(current, patched, scope.name!, scope.store.strategy.scalePaths)
    },
    {
      dryRun: parsed.dryRun,
      retryOnConflict: !parsed.setsResourceVersion,
      trackFields: trackFields(scope.store, managerOf(scope, 'PatchOptions'), 'scale'),
      admission: admissionRequest(scope, writeOptions(scope, 'PatchOptions'), { subresource: 'scale' }),
    },
  )
  await writeObject(scope.res, 200, toScale(updated, scope.store.strategy.scalePaths), output)
}
