/**
 * What differs between kinds: scope, names (plural, singular, short names), how names are
 * validated, defaulting on create and update, validation, the fields selectors can use and the
 * Table columns. The generic store and the handlers are written against this alone, so adding
 * a kind means writing one strategy.
 */
import type { Cause } from '../status-errors.js'
import type { TableColumns } from '../table.js'
import type { KubeObject } from './object.js'
import type { UserInfo } from '../../http/types.js'
import type { ObjectConverter } from '../../controllers/crd-conversion.js'

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
  /** Messages for an invalid metadata.name (empty when valid). */
  validateName(name: string): string[]
  /** Defaulting and clearing of server-owned fields on create (mutates). */
  prepareForCreate(obj: KubeObject): void
  /** Same for update; `old` is the stored object (mutates `obj`). */
  prepareForUpdate(obj: KubeObject, old: KubeObject): void
  /** Field errors of the object beyond metadata.name and namespace. */
  validate(obj: KubeObject): Cause[]
  /** Whether the change is one that bumps metadata.generation. */
  specChanged(obj: KubeObject, old: KubeObject): boolean
  /** Fields selectable with fieldSelector, with their values for one object. */
  selectableFields: string[]
  fields(obj: KubeObject): Record<string, string>
  table: TableColumns
  /** Names that may not be deleted, with the reason (the reference's immortal namespaces). */
  deleteForbidden?(name: string): string | undefined
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

export const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?'
export const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`
const LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`)
const SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`)

/** apimachinery validation.IsDNS1123Label, with its messages. */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = []
  if (value.length > 63) errs.push('must be no more than 63 characters')
  if (!LABEL_RE.test(value)) {
    errs.push(
      `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '${DNS1123_LABEL_FMT}')`,
    )
  }
  return errs
}

/** apimachinery validation.IsDNS1123Subdomain, with its messages. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = []
  if (value.length > 253) errs.push('must be no more than 253 characters')
  if (!SUBDOMAIN_RE.test(value)) {
    errs.push(
      `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${DNS1123_SUBDOMAIN_FMT}')`,
    )
  }
  return errs
}

/** Go's %q for the strings validation messages quote. */
export function quote(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value)
}

export function invalidValue(field: string, value: unknown, detail: string): Cause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${quote(value)}: ${detail}`, field }
}

export function requiredValue(field: string, detail: string): Cause {
  return { reason: 'FieldValueRequired', message: detail ? `Required value: ${detail}` : 'Required value', field }
}

/** The reference's metadata.name / metadata.namespace checks for one object. */
export function validateObjectMeta(strategy: Strategy, obj: KubeObject): Cause[] {
  const causes: Cause[] = []
  const name = obj.metadata.name
  if (typeof name !== 'string' || name === '') {
    causes.push(requiredValue('metadata.name', 'name or generateName is required'))
  } else {
    for (const msg of strategy.validateName(name)) causes.push(invalidValue('metadata.name', name, msg))
  }
  if (strategy.namespaced) {
    const ns = obj.metadata.namespace
    if (typeof ns !== 'string' || ns === '') causes.push(requiredValue('metadata.namespace', ''))
    else for (const msg of isDNS1123Label(ns)) causes.push(invalidValue('metadata.namespace', ns, msg))
  } else if (obj.metadata.namespace) {
    causes.push({ reason: 'FieldValueForbidden', message: 'Forbidden: not allowed on this type', field: 'metadata.namespace' })
  }
  for (const [what, map] of [
    ['labels', obj.metadata.labels],
    ['annotations', obj.metadata.annotations],
  ] as const) {
    if (map === undefined || map === null) continue
    if (typeof map !== 'object' || Array.isArray(map)) {
      causes.push(invalidValue(`metadata.${what}`, map, 'must be a map of strings'))
      continue
    }
    for (const [k, v] of Object.entries(map)) {
      if (typeof v !== 'string') causes.push(invalidValue(`metadata.${what}`, v, 'must be a string'))
      else if (what === 'labels' && (v.length > 63 || !/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(v))) {
        causes.push(
          invalidValue(
            `metadata.labels`,
            v,
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
          ),
        )
      }
      void k
    }
  }
  return causes
}
