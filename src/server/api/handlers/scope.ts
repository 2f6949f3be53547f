/** What every resource handler gets, and the request parsing they share. */
import type { Request, RequestContext, Response } from '../../http/types.js'
import type { GenericStore, Selection, UpdateSubresource } from '../registry/generic-store.js'
import type { CreateAuthorizer } from '../registry/options.js'
import { type KubeObject, isPlainObject } from '../registry/object.js'
import { SelectorError, parseFieldSelector, parseLabelSelector } from '../../http/selectors.js'
import { type ApiError, type Cause, errors } from '../status-errors.js'
import type { IncludeObject } from '../table.js'
import { type Output, negotiateOutput } from '../negotiation.js'

export interface Scope {
  req: Request
  res: Response
  ctx: RequestContext
  store: GenericStore
  /** The namespace in the URL (namespaced kinds only). */
  namespace?: string
  name?: string
  /** `status` for `<object>/status`: writes change only .status. */
  subresource?: UpdateSubresource
  query: URLSearchParams
  /** `--min-request-timeout` (default 1800). */
  minRequestTimeoutSeconds?: number
  /** `--delete-collection-workers` (default 1). */
  deleteCollectionWorkers?: number
  /** The server's log (klog verbosity levels). */
  log?: (level: number, msg: string) => void
  /** false: creates, updates and patches record no managedFields entry (RegistryOptions.managedFields). */
  managedFields?: false
  /** May the requester create what a PUT or an apply is about to create (RegistryOptions.authorizeCreate)? */
  authorizeCreate?: CreateAuthorizer
}

/** The representation of the answer, from the Accept header (custom resources have no protobuf). */
export function responseOutput(scope: Scope, table: boolean): Output {
  return negotiateOutput(scope.req.headers.accept, { table, customResource: scope.store.strategy.customResource ?? false })
}

/** `dryRun=All` (the only value the reference knows). */
export function isDryRun(values: readonly string[]): boolean {
  for (const v of values) {
    if (v !== 'All') throw errors.badRequest(`dryRun: Unsupported value: ${JSON.stringify(v)}: supported values: "All"`)
  }
  return values.length > 0
}

export function selection(scope: Scope): Selection {
  const { query, store } = scope
  try {
    return {
      ...(scope.namespace !== undefined ? { namespace: scope.namespace } : {}),
      labels: parseLabelSelector(query.get('labelSelector')),
      fields: parseFieldSelector(query.get('fieldSelector'), store.strategy.selectableFields.concat(store.strategy.namespaced ? [] : [])),
    }
  } catch (err) {
    if (err instanceof SelectorError) throw errors.badRequest(err.message)
    throw err
  }
}

export function includeObject(query: URLSearchParams): IncludeObject {
  const v = query.get('includeObject')
  if (v === null || v === '' || v === 'Metadata') return 'Metadata'
  if (v === 'None' || v === 'Object') return v
  throw errors.badRequest(`includeObject: Unsupported value: ${JSON.stringify(v)}: supported values: "Metadata", "None", "Object"`)
}

/**
 * A decoded request body as an object of the store's kind: apiVersion and kind must be the
 * served ones when present, and the namespace must agree with the URL's.
 */
export function objectFromBody(scope: Scope, body: unknown): KubeObject {
  const { strategy } = scope.store
  if (!isPlainObject(body)) throw errors.badRequest(`Object 'Kind' is missing in '${JSON.stringify(body)}'`)
  const obj = body as KubeObject
  const apiVersion = scope.store.apiVersion
  if (strategy.customResource) {
    // The reference's checks for unstructured objects: the group version first, then the kind.
    if (typeof obj.kind !== 'string' || obj.kind === '') throw errors.badRequest(`Object 'Kind' is missing in '${JSON.stringify(body)}'`)
    if (obj.apiVersion !== undefined && obj.apiVersion !== apiVersion) {
      throw errors.badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${apiVersion})`)
    }
    // A wrong kind in the right group version is the reference's validation error (customResourceValidator.ValidateTypeMeta).
    if (obj.kind !== strategy.kind) {
      const name = isPlainObject(obj.metadata) && typeof obj.metadata.name === 'string' ? obj.metadata.name : ''
      throw errors.invalid(strategy.group, strategy.kind, name, [{ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(obj.kind)}: must be ${strategy.kind}`, field: 'kind' }])
    }
  } else if ((obj.kind !== undefined && obj.kind !== strategy.kind) || (obj.apiVersion !== undefined && obj.apiVersion !== apiVersion)) {
    throw errors.badRequest(
      `${String(obj.kind ?? '')} in version ${JSON.stringify(String(obj.apiVersion ?? '').split('/').pop())} cannot be handled as a ${strategy.kind}: no kind "${String(obj.kind ?? '')}" is registered for version "${String(obj.apiVersion ?? '')}" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"`,
    )
  }
  if (!isPlainObject(obj.metadata)) obj.metadata = {}
  if (strategy.namespaced) {
    const ns = obj.metadata.namespace
    if (ns === undefined || ns === '') obj.metadata.namespace = scope.namespace
    else if (ns !== scope.namespace) throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request')
  }
  return obj
}

/** Query parameters kubectl sends that this server accepts and ignores for now. */
export function checkFieldValidation(query: URLSearchParams): void {
  const v = query.get('fieldValidation')
  if (v !== null && v !== '' && v !== 'Ignore' && v !== 'Warn' && v !== 'Strict') {
    throw errors.badRequest(`fieldValidation: Unsupported value: ${JSON.stringify(v)}: supported values: "Ignore", "Strict", "Warn"`)
  }
}

export const forbidden = (field: string, message: string): Cause => ({ reason: 'FieldValueForbidden', message: `Forbidden: ${message}`, field })

/** The reference's 422 for bad list or watch options: `ListOptions.meta.k8s.io "" is invalid: …`. */
export function listOptionsInvalid(causes: Cause[]): ApiError {
  const err = errors.invalid('meta.k8s.io', 'ListOptions', '', causes)
  // The reference leaves the empty name out of the details.
  delete (err.status.details as { name?: string } | undefined)?.name
  return err
}
