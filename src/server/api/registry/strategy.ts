/**
 * What differs between kinds: scope, names (plural, singular, short names), how names are
 * validated, defaulting on create and update, validation, the fields selectors can use and the
 * Table columns. The generic store and the handlers are written against this alone, so adding
 * a kind means writing one strategy.
 */
import type { Cause } from '../status-errors.js'
import { invalid, renderBadValue, required } from '../validation/field/errors.js'
import { goQuote } from '../validation/field/go-format.js'
import { type NameValidator, pathSegmentName } from '../validation/names.js'
import { validateKubeFinalizerNames, validateObjectMeta, validateObjectMetaNames, validateObjectMetaUpdate } from '../validation/objectmeta.js'
import { Path } from '../validation/field/path.js'
import type { TableColumns } from '../table.js'
import type { KubeObject } from './object.js'
import type { UserInfo } from '../../http/types.js'
import type { ObjectConverter } from '../kinds/crd-conversion.js'
import type { KindStoreHooks, StoreHooksContext } from './store-hooks.js'

export interface Strategy {
  group: string
  version: string
  kind: string
  /** Plural, lower case: the URL segment and the store key's first segment. */
  resource: string
  singular: string
  shortNames: string[]
  categories?: string[]
  namespaced: boolean
  verbs: string[]
  /** Served subresources: `status` (only .status changes), `scale` (autoscaling/v1 Scale of spec.replicas). */
  subresources?: string[]
  /** Whether metadata.generation is kept (1 on create, +1 when `specChanged`). */
  generation: boolean
  /** The kind's name rule: messages for an invalid metadata.name (or generateName when prefix). */
  validateName: NameValidator
  /** Defaulting and clearing of server-owned fields on create (mutates). */
  prepareForCreate(obj: KubeObject): void
  /** Same for update; `old` is the stored object (mutates `obj`). */
  prepareForUpdate(obj: KubeObject, old: KubeObject): void
  /**
   * Field errors of a created object beyond its metadata (the generic store checks metadata
   * with validateName first): a validation/field ErrorList, or older plain causes.
   */
  validate(obj: KubeObject): Cause[]
  /**
   * Field errors of an update beyond metadata (the reference's ValidateUpdate: immutable
   * fields, allowed transitions, the new object's own validation); the store checks
   * ValidateObjectMetaUpdate first. Absent: `validate`.
   */
  validateUpdate?(obj: KubeObject, old: KubeObject, subresource?: string): Cause[]
  /**
   * Field errors of a write through the status subresource, or a CSR's `approval` one (named
   * in `subresource`: the reference validates the two differently); absent: metadata rules only.
   */
  validateStatusUpdate?(obj: KubeObject, old: KubeObject, subresource?: string): Cause[]
  /** Whether the change is one that bumps metadata.generation. */
  specChanged(obj: KubeObject, old: KubeObject): boolean
  /** Fields selectable with fieldSelector, with their values for one object. */
  selectableFields: string[]
  fields(obj: KubeObject): Record<string, string>
  table: TableColumns
  /** A custom resource served from a CustomResourceDefinition (no strategic merge patch). */
  customResource?: boolean
  /** Where the scale subresource reads and writes (default: spec.replicas, status.replicas, spec.selector). */
  scalePaths?: ScalePaths
  /**
   * Nothing is stored: a create-only review (TokenReview, SelfSubjectReview...) answered by a
   * handler of ApiDeps.virtualHandlers. Served in discovery like any other kind.
   */
  virtual?: boolean
  /** A custom resource's schema: the CRD version's `schema.openAPIV3Schema` (validation, pruning, apply's list and map types). */
  openAPIV3Schema?: Record<string, unknown>
  /**
   * A kind whose objects are kept in another version's form (HorizontalPodAutoscalers of
   * autoscaling/v1 are stored as autoscaling/v2, events.k8s.io Events as core Events): both
   * versions share the keys, and this converts to and from the stored form.
   */
  storageVersion?: StorageVersion
  /**
   * Whether an update without metadata.resourceVersion (or with "0") is unconditional: the
   * reference's AllowUnconditionalUpdate (true for most kinds; false for a few whose writers
   * must read first).
   */
  unconditionalUpdate?: boolean
  /**
   * Whether a PUT of an object that does not exist creates it (201): the reference's
   * AllowCreateOnUpdate, true for Endpoints, Events, LimitRanges, Services, Leases,
   * LeaseCandidates and the four RBAC kinds; else such a PUT is 404.
   */
  createOnUpdate?: boolean
  /** What the requester's identity puts into a created object (a CSR's spec.username, ...). */
  fromRequester?(obj: KubeObject, user: UserInfo | undefined): void
  /** A beta or alpha kind's feature gate, which must be on for it to be served. */
  featureGate?: string
  /** The minor release of 1.x since which the reference serves the kind by default (absent: every emulated version). */
  since?: number
  /** The same for a subresource added later than its kind. */
  subresourcesSince?: Record<string, number>
  /**
   * A custom resource whose CRD converts by webhook: objects are stored in
   * `storageAPIVersion` and converted to and from the served version by `converter`.
   */
  conversion?: { storageAPIVersion: string; converter: ObjectConverter }
  /** Preparation of a write through the status-like subresources (status, approval). */
  prepareForStatusUpdate?(obj: KubeObject, old: KubeObject): void
  /**
   * The kind's own steps around its store's writes (a Service's IP allocation, an Event's TTL,
   * the Namespace and CRD DELETE), built once by the Registry for the kind's store.
   */
  storeHooks?(ctx: StoreHooksContext): KindStoreHooks
}

/** The stored form of a kind served in several versions. */
export interface StorageVersion {
  apiVersion: string
  kind: string
  toStorage(obj: KubeObject): KubeObject
  fromStorage(obj: KubeObject): KubeObject
}

/** The CRD's subresources.scale paths, as key paths (`.spec.replicas` is ['spec', 'replicas']). */
export interface ScalePaths {
  specReplicas: string[]
  statusReplicas: string[]
  labelSelector?: string[]
}

/** The DNS name rules, now in the validation room (kept here for the existing imports). */
export { DNS1123_LABEL_FMT, DNS1123_SUBDOMAIN_FMT, isDNS1123Label, isDNS1123Subdomain } from '../validation/strings.js'

/** Go's %q for the strings validation messages quote. */
export function quote(value: unknown): string {
  return typeof value === 'string' ? goQuote(value) : renderBadValue(value)
}

/** field.Invalid with a rendered path (older callers; new code uses validation/field). */
export function invalidValue(field: string, value: unknown, detail: string): Cause {
  return invalid(field, value, detail)
}

/** field.Required with a rendered path (older callers; new code uses validation/field). */
export function requiredValue(field: string, detail: string): Cause {
  return required(field, detail)
}

/**
 * The errors of an object being created, in the reference's order: the kind's own validation
 * (its Validate starts with ValidateObjectMeta and the kind's name rule); when that passes, the
 * generic metadata check with path-segment names (rest.BeforeCreate).
 */
export function validateForCreate(strategy: Strategy, obj: KubeObject): Cause[] {
  const errs: Cause[] = [...validateObjectMeta(obj.metadata, strategy.namespaced, strategy.validateName), ...kubeFinalizers(strategy, obj), ...strategy.validate(obj)]
  if (errs.length > 0) return errs
  // The second ValidateObjectMeta differs from the first only in its name rule: the rest of it
  // (namespace, labels, annotations, owners, finalizers, managed fields) just passed on the same
  // metadata, so only the names are checked again.
  return validateObjectMetaNames(obj.metadata, pathSegmentName)
}

/**
 * The errors of an update (rest.BeforeUpdate): the common metadata checks first, then the
 * kind's ValidateUpdate (by default ValidateObjectMetaUpdate and the kind's Validate), or for
 * the status subresource the kind's status validation (by default metadata only).
 */
export function validateForUpdate(strategy: Strategy, obj: KubeObject, old: KubeObject, subresource?: string): Cause[] {
  const errs: Cause[] = [...validateObjectMeta(obj.metadata, strategy.namespaced, pathSegmentName), ...validateObjectMetaUpdate(obj.metadata, old.metadata)]
  if (subresource === 'status' || subresource === 'approval') {
    errs.push(...(strategy.validateStatusUpdate ? strategy.validateStatusUpdate(obj, old, subresource) : validateObjectMetaUpdate(obj.metadata, old.metadata)))
  } else {
    errs.push(...validateObjectMetaUpdate(obj.metadata, old.metadata), ...kubeFinalizers(strategy, obj))
    errs.push(...(strategy.validateUpdate ? strategy.validateUpdate(obj, old, subresource) : strategy.validate(obj)))
  }
  return errs
}

/**
 * The core group's ValidateObjectMeta, which the built-in groups use, also checks finalizer
 * names; custom resources, CRDs and APIServices use apimachinery's, which does not.
 */
const APIMACHINERY_META_GROUPS = new Set(['apiextensions.k8s.io', 'apiregistration.k8s.io'])

function kubeFinalizers(strategy: Strategy, obj: KubeObject): Cause[] {
  if (strategy.customResource || APIMACHINERY_META_GROUPS.has(strategy.group)) return []
  return validateKubeFinalizerNames(obj.metadata.finalizers, Path.of('metadata', 'finalizers'))
}
