/**
 * apiextensions.k8s.io/v1 CustomResourceDefinitions (cluster-scoped), with the reference's
 * defaulting (singular, listKind), validation and storedVersions, the status controllers' pass
 * before each write (crd-conditions.ts) and the DELETE that hands the CRD to the CRD finalizer;
 * and the strategy of the custom resources each served version of an established CRD
 * describes, served dynamically by the Registry.
 */
import { deepEqual } from '../../../core/patch/index.js'
import type { ResourceInfo } from '../generated/resources.js'
import { type KubeObject, isPlainObject, nowTimestamp } from '../registry/object.js'
import type { KindDeleteOptions, KindDeleteResult, KindStoreHooks, StoreHooksContext } from '../registry/store-hooks.js'
import type { ScalePaths, Strategy } from '../registry/strategy.js'
import { type Cause, errors } from '../status-errors.js'
import { AGE_COLUMN, type ColumnDefinition, NAME_COLUMN, type TableColumns, age, humanDuration } from '../table.js'
import { type RuleTree, cachedRuleTree } from '../schema/cel-rules.js'
import { type ScaleSpec, validateCustomResource, validateCustomResourceStatus } from '../schema/custom-resource.js'
import { ValidateCustomResourceDefinition, ValidateCustomResourceDefinitionUpdate, ValidateUpdateCustomResourceDefinitionStatus } from '../validation/apiextensions.js'
import { CUSTOM_RESOURCE_CLEANUP_FINALIZER, reconcileStatus, setCondition } from './crd-conditions.js'
import { type ServiceLookup, webhookConverter } from './crd-conversion.js'
import { dataStrategy } from './data-strategy.js'
import { CREATED_AT } from './values.js'

type Obj = Record<string, unknown>

const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {})
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])
const str = (v: unknown): string => (typeof v === 'string' ? v : '')

export const CRD_GROUP = 'apiextensions.k8s.io'
export const CRD_RESOURCE = 'customresourcedefinitions'

const CRD_INFO: ResourceInfo = {
  group: CRD_GROUP,
  version: 'v1',
  kind: 'CustomResourceDefinition',
  resource: CRD_RESOURCE,
  singular: 'customresourcedefinition',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: ['status'],
  categories: ['api-extensions'],
}

/** The reference's defaults of spec.conversion: strategy None; a webhook service's port 443. */
function defaultConversion(spec: Obj): void {
  if (!isPlainObject(spec.conversion)) spec.conversion = { strategy: 'None' }
  const conversion = spec.conversion as Obj
  if (conversion.strategy === undefined) conversion.strategy = 'None'
  const service = obj(obj(obj(conversion.webhook).clientConfig).service)
  if (isPlainObject(obj(obj(conversion.webhook).clientConfig).service) && service.port === undefined) service.port = 443
}

/** spec.names with the reference's defaults (singular: lower-case kind, listKind: kind + List). */
function defaultNames(names: Obj): void {
  if (!str(names.singular) && str(names.kind)) names.singular = str(names.kind).toLowerCase()
  if (!str(names.listKind) && str(names.kind)) names.listKind = `${str(names.kind)}List`
}

export function storageVersion(o: KubeObject): string | undefined {
  const v = arr(obj(o.spec).versions).map(obj).find((v) => v.storage === true)
  return v ? str(v.name) : undefined
}

/**
 * The CRD registry's writes: the CRD status controllers' pass over a CRD being written,
 * against the other CRDs; and its DELETE.
 */
function crdStoreHooks(ctx: StoreHooksContext): KindStoreHooks {
  const reconcileCRDStatus = async (crd: KubeObject): Promise<void> => {
    const { items } = await ctx.lookup(CRD_GROUP, 'v1', CRD_RESOURCE)!.list()
    reconcileStatus(crd, items)
  }
  return {
    beforeCreate: (obj) => reconcileCRDStatus(obj),
    beforeUpdate: (obj) => reconcileCRDStatus(obj),
    delete: (current, options, proceed) => deleteCRD(ctx, current, options, proceed),
  }
}

/**
 * The CRD registry's DELETE: the first one marks the CRD (deletionTimestamp, the
 * customresourcecleanup finalizer, Terminating True) and answers it; the CRD finalizer then
 * deletes its custom resources and the CRD. Later ones are the generic deletion.
 */
async function deleteCRD({ lookup }: StoreHooksContext, current: KubeObject, options: KindDeleteOptions, proceed: () => Promise<KindDeleteResult>): Promise<KindDeleteResult> {
  if (current.metadata.deletionTimestamp) return proceed()
  const marked = await lookup(CRD_GROUP, 'v1', CRD_RESOURCE)!.rewrite(
    undefined,
    current.metadata.name!,
    (obj) => {
      if (options.preconditions?.uid && obj.metadata.uid !== options.preconditions.uid) throw errors.conflict({ group: CRD_GROUP, resource: CRD_RESOURCE }, obj.metadata.name!)
      obj.metadata.deletionTimestamp ??= nowTimestamp()
      const finalizers = Array.isArray(obj.metadata.finalizers) ? obj.metadata.finalizers : []
      if (!finalizers.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) obj.metadata.finalizers = [...finalizers, CUSTOM_RESOURCE_CLEANUP_FINALIZER]
      setCondition(obj, {
        type: 'Terminating',
        status: 'True',
        reason: 'InstanceDeletionPending',
        message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
      })
    },
    options.dryRun,
  )
  return { object: marked, deleted: false, updated: true }
}

export const customresourcedefinitions: Strategy = dataStrategy(CRD_INFO, {
  generation: true,
  storeHooks: crdStoreHooks,
  table: CREATED_AT,
  prepareForCreate(o) {
    const spec = obj(o.spec)
    o.spec = spec
    defaultNames(obj(spec.names))
    defaultConversion(spec)
    // The reference's PrepareForCreate: the status starts with the storage version only; the
    // conditions and accepted names are the controllers' (crd-conditions.ts, run by the store
    // hooks before the write).
    const stored = storageVersion(o)
    o.status = { storedVersions: stored ? [stored] : [] }
  },
  prepareForUpdate(o, old) {
    const spec = obj(o.spec)
    o.spec = spec
    defaultNames(obj(spec.names))
    defaultConversion(spec)
    const status = structuredClone(obj(old.status))
    const stored = storageVersion(o)
    const storedVersions = arr(status.storedVersions).map(str)
    if (stored && !storedVersions.includes(stored)) storedVersions.push(stored)
    status.storedVersions = storedVersions
    o.status = status
  },
  validate: ValidateCustomResourceDefinition,
  validateUpdate: (o, old) => ValidateCustomResourceDefinitionUpdate(o, old),
  validateStatusUpdate: (o) => ValidateUpdateCustomResourceDefinitionStatus(o),
  specChanged: (o, old) => !deepEqual(o.spec, old.spec),
})

// ---- the custom resources of a CRD ----

export interface CustomResourceDefinition extends KubeObject {
  spec: Obj
  status?: Obj
}

/** Whether the CRD's Established condition is True. */
export function isEstablished(crd: KubeObject): boolean {
  return arr(obj(crd.status).conditions).some((c) => obj(c).type === 'Established' && obj(c).status === 'True')
}

/** `.spec.replicas` as ['spec', 'replicas'] (simple paths only; `[n]` indexes arrays). */
export function parseSimplePath(path: string): string[] {
  const trimmed = path.trim().replace(/^\{(.*)\}$/, '$1').replace(/^\$/, '')
  return trimmed
    .replace(/\[(\d+)\]/g, '.$1')
    .replace(/\['([^']*)'\]/g, '.$1')
    .split('.')
    .filter((s) => s !== '')
}

export function getPath(o: unknown, path: readonly string[]): unknown {
  let cur: unknown = o
  for (const seg of path) {
    if (Array.isArray(cur) && /^\d+$/.test(seg)) cur = cur[Number(seg)]
    else if (isPlainObject(cur)) cur = cur[seg]
    else return undefined
  }
  return cur
}

export function setPath(o: Obj, path: readonly string[], value: unknown): void {
  let cur = o
  for (const seg of path.slice(0, -1)) {
    if (!isPlainObject(cur[seg])) cur[seg] = {}
    cur = cur[seg] as Obj
  }
  cur[path[path.length - 1]!] = value
}

/** The reference's cell of a non-string printer column value. */
function cell(type: string, value: unknown, now: number): unknown {
  if (value === undefined || value === null) return null
  if (type === 'date') {
    const t = typeof value === 'string' ? Date.parse(value) : NaN
    return Number.isNaN(t) ? '<invalid>' : humanDuration(now - t)
  }
  if (type === 'integer') return typeof value === 'number' && Number.isInteger(value) ? value : null
  if (type === 'number') return typeof value === 'number' ? value : null
  if (type === 'boolean') return typeof value === 'boolean' ? value : null
  if (typeof value === 'string') return value
  return JSON.stringify(value)
}

/** NAME, the version's additionalPrinterColumns, and AGE (unless a column already shows creationTimestamp). */
function printerColumns(version: Obj): TableColumns {
  const columns = arr(version.additionalPrinterColumns)
    .map(obj)
    .map((c) => ({ def: { name: str(c.name), type: str(c.type) || 'string', format: str(c.format), description: str(c.description), priority: typeof c.priority === 'number' ? c.priority : 0 } as ColumnDefinition, path: parseSimplePath(str(c.jsonPath)) }))
  const hasAge = columns.some((c) => c.path.join('.') === 'metadata.creationTimestamp')
  return {
    definitions: [NAME_COLUMN, ...columns.map((c) => c.def), ...(hasAge ? [] : [AGE_COLUMN])],
    cells: (o, now) => [o.metadata.name, ...columns.map((c) => cell(c.def.type, getPath(o, c.path), now)), ...(hasAge ? [] : [age(o, now)])],
  }
}

/**
 * The strategy of the custom resources of one served version of a CRD; with `services`, a CRD
 * converting by webhook stores its objects in the storage version and converts them.
 */
export function customResourceStrategy(crd: KubeObject, versionName: string, services?: ServiceLookup): Strategy {
  const spec = obj(crd.spec)
  const names = obj(obj(crd.status).acceptedNames ?? spec.names)
  const version = arr(spec.versions).map(obj).find((v) => str(v.name) === versionName) ?? {}
  const subresources = obj(version.subresources)
  const hasStatus = isPlainObject(subresources.status)
  const scale = isPlainObject(subresources.scale) ? subresources.scale : undefined
  const namespaced = str(spec.scope) !== 'Cluster'
  const schema = isPlainObject(obj(version.schema).openAPIV3Schema) ? (obj(version.schema).openAPIV3Schema as Obj) : undefined
  // The rules are compiled on the strategy's first validation, once per schema (cel-rules.ts keeps them).
  let compiled: { rules: RuleTree | undefined } | undefined
  const celRules = (): RuleTree | undefined => (compiled ??= { rules: schema ? cachedRuleTree(schema) : undefined }).rules
  const scalePaths: ScalePaths | undefined = scale
    ? {
        specReplicas: parseSimplePath(str(scale.specReplicasPath)),
        statusReplicas: parseSimplePath(str(scale.statusReplicasPath)),
        ...(str(scale.labelSelectorPath) ? { labelSelector: parseSimplePath(str(scale.labelSelectorPath)) } : {}),
      }
    : undefined
  const stored = storageVersion(crd)
  const conversion =
    services && obj(spec.conversion).strategy === 'Webhook' && stored
      ? { storageAPIVersion: `${str(spec.group)}/${stored}`, converter: webhookConverter(crd, services) }
      : undefined
  const scaleSpec: ScaleSpec | undefined = scale
    ? { specReplicasPath: str(scale.specReplicasPath), statusReplicasPath: str(scale.statusReplicasPath), ...(str(scale.labelSelectorPath) ? { labelSelectorPath: str(scale.labelSelectorPath) } : {}) }
    : undefined
  const info: ResourceInfo = {
    group: str(spec.group),
    version: versionName,
    kind: str(names.kind),
    resource: str(names.plural),
    singular: str(names.singular) || str(names.kind).toLowerCase(),
    namespaced,
    shortNames: arr(names.shortNames).map(str),
    verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
    subresources: [...(hasStatus ? ['status'] : []), ...(scale ? ['scale'] : [])],
    ...(arr(names.categories).length > 0 ? { categories: arr(names.categories).map(str) } : {}),
  }
  const withoutStatus = (o: KubeObject): Obj => {
    const { metadata: _m, status: _s, ...rest } = o
    void _m, void _s
    return rest
  }
  const withoutMeta = (o: KubeObject): Obj => {
    const { metadata: _m, ...rest } = o
    void _m
    return rest
  }
  return {
    ...dataStrategy(info, {
      generation: true,
      table: printerColumns(version),
      prepareForCreate(o) {
        if (hasStatus) delete o.status
      },
      prepareForUpdate(o, old) {
        if (!hasStatus) return
        if (old.status === undefined) delete o.status
        else o.status = old.status
      },
      specChanged: (o, old) => (hasStatus ? !deepEqual(withoutStatus(o), withoutStatus(old)) : !deepEqual(withoutMeta(o), withoutMeta(old))),
      validate: (o): Cause[] => validateCustomResource(schema, o, scaleSpec, undefined, celRules()),
      validateUpdate: (o, old): Cause[] => validateCustomResource(schema, o, scaleSpec, old, celRules()),
      validateStatusUpdate: (o, old): Cause[] => validateCustomResourceStatus(schema, o, scaleSpec, old, celRules()),
    }),
    customResource: true,
    ...(conversion ? { conversion } : {}),
    ...(scalePaths ? { scalePaths } : {}),
    ...(schema ? { openAPIV3Schema: schema } : {}),
  }
}

/** The strategies of every served version of an established CRD. */
export function customResourceStrategies(crd: KubeObject, services?: ServiceLookup): Strategy[] {
  if (!isEstablished(crd)) return []
  return arr(obj(crd.spec).versions)
    .map(obj)
    .filter((v) => v.served === true && str(v.name) !== '')
    .map((v) => customResourceStrategy(crd, str(v.name), services))
}
