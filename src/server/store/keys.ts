import { InvalidError } from './errors.js'
import type { ListOptions } from './types.js'

/**
 * The first key after every key starting with `prefix` (etcd's getPrefixRangeEnd), or
 * undefined when no such bound exists (empty prefix or all 0xff bytes): range to the end.
 */
export function prefixEnd(prefix: Buffer): Buffer | undefined {
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (prefix[i]! < 0xff) {
      const end = Buffer.from(prefix.subarray(0, i + 1))
      end[i] = prefix[i]! + 1
      return end
    }
  }
  return undefined
}

/** The smallest key greater than `key`: where the next page starts. */
export function keyAfter(key: string): string {
  return `${key}\u0000`
}

/** Keys are paths (`/pods/default/web`): a leading slash keeps them apart from the backend's own prefix. */
export function checkKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || !key.startsWith('/') || key.length < 2) {
    throw new InvalidError(`invalid key ${JSON.stringify(key)}: a key is a path starting with "/"`)
  }
}

/** A prefix is empty (every key) or starts with a slash, like keys. */
export function checkPrefix(prefix: unknown): asserts prefix is string {
  if (typeof prefix !== 'string' || (prefix !== '' && !prefix.startsWith('/'))) {
    throw new InvalidError(`invalid prefix ${JSON.stringify(prefix)}: a prefix is empty or starts with "/"`)
  }
}

export function checkValue(key: string, value: unknown): asserts value is Buffer {
  if (!Buffer.isBuffer(value)) {
    throw new InvalidError(`invalid value for key "${key}": values are Buffers`, { key })
  }
}

export function checkRevision(what: string, revision: unknown, key?: string): asserts revision is number {
  if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision <= 0) {
    throw new InvalidError(`invalid ${what} ${String(revision)}: a revision is a positive integer`, { key })
  }
}

interface ContinueToken {
  v: 1
  rev: number
  start: string
}

export function encodeContinue(revision: number, start: string): string {
  const token: ContinueToken = { v: 1, rev: revision, start }
  return Buffer.from(JSON.stringify(token), 'utf8').toString('base64url')
}

/** Where a list page starts and at which revision it reads (0: the current one). */
interface PageStart {
  readonly start: string
  readonly revision: number
  readonly limit: number
}

/** Resolves the paging options of `list(prefix, options)`, rejecting tokens of other lists. */
export function pageStart(prefix: string, options: ListOptions = {}): PageStart {
  const limit = options.limit ?? 0
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new InvalidError(`invalid list limit ${String(limit)}: a limit is a non-negative integer`)
  }
  if (options.continue !== undefined && options.continue !== '') {
    let token: Partial<ContinueToken>
    try {
      token = JSON.parse(Buffer.from(options.continue, 'base64url').toString('utf8')) as Partial<ContinueToken>
    } catch (err) {
      throw new InvalidError(`invalid continue token: not a token this store issued`, { cause: err })
    }
    if (token.v !== 1 || typeof token.rev !== 'number' || typeof token.start !== 'string') {
      throw new InvalidError(`invalid continue token: not a token this store issued`)
    }
    if (!token.start.startsWith(prefix)) {
      throw new InvalidError(`invalid continue token: it continues a list of another prefix than "${prefix}"`)
    }
    if (options.revision !== undefined && options.revision !== 0 && options.revision !== token.rev) {
      throw new InvalidError(
        `invalid list options: revision ${options.revision} contradicts the continue token's revision ${token.rev}`,
      )
    }
    return { start: token.start, revision: token.rev, limit }
  }
  const revision = options.revision ?? 0
  if (!Number.isSafeInteger(revision) || revision < 0) {
    throw new InvalidError(`invalid list revision ${String(revision)}: a revision is a non-negative integer`)
  }
  let start = prefix
  if (options.startKey !== undefined) {
    if (!options.startKey.startsWith(prefix)) {
      throw new InvalidError(`invalid start key "${options.startKey}": it does not start with "${prefix}"`)
    }
    start = options.startKey
  }
  return { start, revision, limit }
}
