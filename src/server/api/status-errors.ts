/**
 * The API's errors as the reference's `Status` bodies (k8s.io/apimachinery api/errors): one
 * error class carrying the Status, constructors with the reference's reasons, codes and
 * messages, and the translation of store errors.
 */
import { type Status, type StatusDetails, failureStatus } from '../http/status.js'
import { jsonResponse } from '../http/respond.js'
import type { Response } from '../http/types.js'
import { StoreError, TooLargeError } from '../store/errors.js'
import { aggregateMessage } from './validation/field/errors.js'
import { goQuote } from './validation/field/go-format.js'

/** A resource as errors name it: plural, and group ('' for core). */
export interface Resource {
  group: string
  resource: string
}

/** A Status cause; a validation FieldError is one (src/server/api/validation/field/). */
export interface Cause {
  readonly reason: string
  readonly message: string
  readonly field: string
}

export class ApiError extends Error {
  constructor(
    readonly status: Status,
    readonly headers: Record<string, string> = {},
  ) {
    super(status.message)
  }
  get code(): number {
    return this.status.code
  }
}

/** `configmaps` for core, `deployments.apps` otherwise. */
export function qualified(r: Resource): string {
  return r.group === '' ? r.resource : `${r.resource}.${r.group}`
}

function details(r: Resource, name: string): StatusDetails {
  return { name, ...(r.group ? { group: r.group } : {}), kind: r.resource }
}

export const errors = {
  notFound: (r: Resource, name: string) => new ApiError(failureStatus(404, 'NotFound', `${qualified(r)} "${name}" not found`, details(r, name))),
  alreadyExists: (r: Resource, name: string) =>
    new ApiError(failureStatus(409, 'AlreadyExists', `${qualified(r)} "${name}" already exists`, details(r, name))),
  conflict: (r: Resource, name: string, why = 'the object has been modified; please apply your changes to the latest version and try again') =>
    new ApiError(failureStatus(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(r)} "${name}": ${why}`, details(r, name))),
  forbidden: (r: Resource, name: string, why: string) =>
    new ApiError(failureStatus(403, 'Forbidden', `${qualified(r)} "${name}" is forbidden: ${why}`, details(r, name))),
  badRequest: (message: string) => new ApiError(failureStatus(400, 'BadRequest', message)),
  /**
   * 422 with causes, as the reference's NewInvalid: `kind` is the Kind (qualified by group in
   * the message), the causes keep their order, the message joins the distinct ones.
   */
  invalid: (group: string, kind: string, name: string, causes: readonly Cause[]) => {
    const qualifiedKind = group === '' ? kind : `${kind}.${group}`
    const plain = causes.map((c) => ({ reason: c.reason, message: c.message, field: c.field }))
    const message = plain.length === 0 ? `${qualifiedKind} ${goQuote(name)} is invalid` : `${qualifiedKind} ${goQuote(name)} is invalid: ${aggregateMessage(plain)}`
    return new ApiError(
      failureStatus(422, 'Invalid', message, {
        name,
        ...(group ? { group } : {}),
        kind,
        causes: plain,
      }),
    )
  },
  /** The JSON patch that failed while being applied (the reference's generic 422). */
  invalidRequest: () => new ApiError(failureStatus(422, 'Invalid', 'the server rejected our request due to an error in our request', {})),
  /** The CRD handler's MethodNotSupported for a create while the CRD is terminating. */
  crdTerminating: (group: string, resource: string, verb: string) =>
    new ApiError(failureStatus(405, 'MethodNotAllowed', `${verb} not allowed while custom resource definition is terminating`, { ...(group ? { group } : {}), kind: resource })),
  methodNotAllowed: () => new ApiError(failureStatus(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {})),
  resourceNotFound: () => new ApiError(failureStatus(404, 'NotFound', 'the server could not find the requested resource', {})),
  unsupportedMediaType: (accepted: readonly string[]) =>
    new ApiError(
      failureStatus(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`, {}),
    ),
  notAcceptable: (accepted: readonly string[]) =>
    new ApiError(failureStatus(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`, {})),
  /** The reference's NewRequestEntityTooLargeError. */
  requestEntityTooLarge: (message: string) => new ApiError(failureStatus(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`)),
  /** A 406 with its own text (the reference's errNotAcceptable of a conversion). */
  notAcceptableMessage: (message: string) => new ApiError(failureStatus(406, 'NotAcceptable', message, {})),
  expired: (message: string) => new ApiError(failureStatus(410, 'Expired', message)),
  gone: (message: string) => new ApiError(failureStatus(410, 'Gone', message)),
  serviceUnavailable: (message: string, retryAfterSeconds: number) =>
    new ApiError(failureStatus(503, 'ServiceUnavailable', message, { retryAfterSeconds }), { 'Retry-After': String(retryAfterSeconds) }),
  internal: (message: string) =>
    new ApiError(failureStatus(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] })),
  timeout: (message: string) => new ApiError(failureStatus(504, 'Timeout', message)),
  /**
   * storage.NewTooLargeResourceVersionError as the watch cache returns it for a read or a
   * watch-list at a revision the store has not reached (cacher/watch_cache.go, retry after
   * resourceVersionTooHighRetrySeconds): NewTimeoutError's Status with the
   * ResourceVersionTooLarge cause, which client-go's reflector looks for.
   */
  tooLargeResourceVersion: (minimum: number, current: number) =>
    new ApiError(
      failureStatus(504, 'Timeout', `Timeout: Too large resource version: ${minimum}, current: ${current}`, {
        causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
        retryAfterSeconds: TOO_LARGE_RESOURCE_VERSION_RETRY_SECONDS,
      }),
      { 'Retry-After': String(TOO_LARGE_RESOURCE_VERSION_RETRY_SECONDS) },
    ),
}

/** The watch cache's resourceVersionTooHighRetrySeconds. */
const TOO_LARGE_RESOURCE_VERSION_RETRY_SECONDS = 1

export const CONTINUE_EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.'

/** Any error as an ApiError: ApiErrors pass, store errors map to their Status, the rest is internal. */
export function toApiError(err: unknown, r?: Resource, name?: string): ApiError {
  if (err instanceof ApiError) return err
  // The reference passes etcd's refusal on as a 500; a client's too-large object is its own
  // mistake, so it gets the 413 of a too-large request with the store's words.
  if (err instanceof TooLargeError) return errors.requestEntityTooLarge(err.storeMessage)
  if (err instanceof StoreError) {
    switch (err.code) {
      case 'NotFound':
        if (r && name !== undefined) return errors.notFound(r, name)
        break
      case 'AlreadyExists':
        if (r && name !== undefined) return errors.alreadyExists(r, name)
        break
      case 'Conflict':
        if (r && name !== undefined) return errors.conflict(r, name)
        break
      case 'Compacted':
        return errors.expired('The resourceVersion for the provided list is too old.')
      case 'Unavailable':
        return errors.timeout(`etcdserver: request timed out: ${err.message}`)
      default:
        break
    }
  }
  return errors.internal(err instanceof Error ? err.message : String(err))
}

/** Writes the error's Status with its code (and headers such as Retry-After). */
export function writeError(res: Response, err: ApiError): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end()
    return
  }
  for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v)
  jsonResponse(res, err.status.code, err.status)
}
