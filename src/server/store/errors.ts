import type { KeyValue } from './types.js'

export type StoreErrorCode =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Compacted'
  | 'Unavailable'
  | 'Corrupt'
  | 'Locked'
  | 'Invalid'

/**
 * Base of every error a store raises. Callers branch on `code` (or `instanceof`) and on
 * `retryable`: only `Unavailable` is worth retrying unchanged.
 */
export class StoreError extends Error {
  readonly code: StoreErrorCode
  readonly retryable: boolean
  readonly key?: string
  readonly revision?: number

  constructor(
    code: StoreErrorCode,
    message: string,
    details: { key?: string; revision?: number; retryable?: boolean; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause })
    this.name = new.target.name
    this.code = code
    this.retryable = details.retryable ?? false
    if (details.key !== undefined) this.key = details.key
    if (details.revision !== undefined) this.revision = details.revision
  }
}

export class NotFoundError extends StoreError {
  constructor(key: string) {
    super('NotFound', `key "${key}" not found`, { key })
  }
}

export class AlreadyExistsError extends StoreError {
  constructor(key: string) {
    super('AlreadyExists', `key "${key}" already exists`, { key })
  }
}

export class ConflictError extends StoreError {
  /** Expected mod revision of the failed compare-and-swap. */
  readonly expected: number
  /** The key's version that won, so a retry loop needs no extra read. */
  readonly current: KeyValue

  constructor(key: string, expected: number, current: KeyValue) {
    super(
      'Conflict',
      `conflict on key "${key}": expected mod revision ${expected}, found ${current.modRevision}`,
      { key, revision: current.modRevision },
    )
    this.expected = expected
    this.current = current
  }
}

/** Mirrors etcd's `mvcc: required revision has been compacted`. */
export class CompactedError extends StoreError {
  readonly compactedRevision?: number

  constructor(revision: number, compactedRevision?: number) {
    const known = compactedRevision === undefined ? '' : ` (compacted revision ${compactedRevision})`
    super('Compacted', `required revision ${revision} has been compacted${known}`, { revision })
    if (compactedRevision !== undefined) this.compactedRevision = compactedRevision
  }
}

/** The backend cannot be reached or did not answer in time; the same call may succeed later. */
export class UnavailableError extends StoreError {
  constructor(message: string, cause?: unknown) {
    super('Unavailable', message, { retryable: true, cause })
  }
}

export class CorruptError extends StoreError {
  constructor(message: string, cause?: unknown) {
    super('Corrupt', message, { cause })
  }
}

export class LockedError extends StoreError {
  readonly ownerPid?: number

  constructor(message: string, ownerPid?: number) {
    super('Locked', message)
    if (ownerPid !== undefined) this.ownerPid = ownerPid
  }
}

export class InvalidError extends StoreError {
  constructor(message: string, details: { key?: string; revision?: number; cause?: unknown } = {}) {
    super('Invalid', message, details)
  }
}

/** A write the store refuses for its size (etcd's --max-request-bytes, 1.5 MiB by default). */
export class TooLargeError extends InvalidError {
  /** The store's own words, as the reference passes them on: `etcdserver: request is too large`. */
  constructor(
    message: string,
    readonly storeMessage: string,
    details: { key?: string; cause?: unknown } = {},
  ) {
    super(message, details)
  }
}
