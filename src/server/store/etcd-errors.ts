import { loadEtcd3 } from './etcd-client-module.js'
import { CompactedError, CorruptError, InvalidError, StoreError, TooLargeError, UnavailableError } from './errors.js'

/** What was being done, for messages: `etcd [http://…] get "/pods/a"`. */
export interface EtcdCallContext {
  readonly servers: readonly string[]
  readonly operation: string
  readonly key?: string
  readonly revision?: number
  readonly timeoutMs?: number
}

const COMPACTED = 'required revision has been compacted'
const FUTURE = 'required revision is a future revision'
/** etcd server-side conditions that clear up by themselves (leader election, overload). */
const TRANSIENT = [
  'etcdserver: request timed out',
  'etcdserver: leader changed',
  'etcdserver: no leader',
  'etcdserver: not capable',
  'etcdserver: too many requests',
  'etcdserver: server stopped',
  'etcdserver: request cancelled',
]

function describe(ctx: EtcdCallContext): string {
  const target = ctx.key === undefined ? '' : ` "${ctx.key}"`
  return `etcd ${ctx.operation}${target} on [${ctx.servers.join(', ')}]`
}

/** Maps an etcd3/gRPC failure to the store's typed errors. */
export function mapEtcdError(err: unknown, ctx: EtcdCallContext): StoreError {
  if (err instanceof StoreError) return err
  const {
    ClientClosedError,
    EtcdAuthenticationFailedError,
    EtcdInvalidAuthTokenError,
    EtcdPermissionDeniedError,
    GRPCDataLossError,
    GRPCDeadlineExceededError,
    GRPCInvalidArgumentError,
    GRPCUnauthenticatedError,
    isRecoverableError,
  } = loadEtcd3()
  const message = err instanceof Error ? err.message : String(err)
  if (message.includes(COMPACTED)) {
    return new CompactedError(ctx.revision ?? 0)
  }
  if (message.includes(FUTURE)) {
    return new InvalidError(`${describe(ctx)}: required revision ${String(ctx.revision)} is a future revision`, {
      revision: ctx.revision,
      cause: err,
    })
  }
  if (message.includes('request is too large') || message.includes('message larger than max')) {
    // etcd's own refusal, or gRPC's past its message limit (`8 RESOURCE_EXHAUSTED: grpc: received message larger than max (…)`).
    const storeMessage = message.includes('request is too large') ? 'etcdserver: request is too large' : message.replace(/^\d+ [A-Z_]+: /, '')
    return new TooLargeError(`${describe(ctx)} was refused as too large: ${message}`, storeMessage, { ...(ctx.key !== undefined ? { key: ctx.key } : {}), cause: err })
  }
  if (err instanceof GRPCDeadlineExceededError) {
    const after = ctx.timeoutMs === undefined ? '' : ` after ${ctx.timeoutMs}ms`
    return new UnavailableError(`${describe(ctx)} timed out${after}`, err)
  }
  if (err instanceof GRPCDataLossError || /corrupt/i.test(message)) {
    return new CorruptError(`${describe(ctx)} failed: ${message}`, err)
  }
  if (
    err instanceof EtcdPermissionDeniedError ||
    err instanceof EtcdAuthenticationFailedError ||
    err instanceof EtcdInvalidAuthTokenError ||
    err instanceof GRPCUnauthenticatedError ||
    err instanceof GRPCInvalidArgumentError
  ) {
    return new InvalidError(`${describe(ctx)} was refused: ${message}`, { key: ctx.key, cause: err })
  }
  if (err instanceof ClientClosedError) {
    return new UnavailableError(`${describe(ctx)}: the store is closed`, err)
  }
  if ((err instanceof Error && isRecoverableError(err)) || TRANSIENT.some(t => message.includes(t))) {
    return new UnavailableError(`${describe(ctx)} failed, etcd is unavailable: ${message}`, err)
  }
  // Anything else (a TLS handshake failure, an unknown gRPC error) is treated as an
  // unreachable backend: retrying is safe and the message carries the cause.
  return new UnavailableError(`${describe(ctx)} failed: ${message}`, err)
}

/**
 * Whether a failure happened before the request could reach any etcd member, so that even a
 * write may be sent again (to another member) without risking applying it twice.
 */
export function failedBeforeSending(err: unknown): boolean {
  if (err instanceof HostBlockedError) return true
  const message = err instanceof Error ? err.message : String(err)
  // "Stream refused by server": HTTP/2's REFUSED_STREAM, the server did not process the call.
  return /No connection established|ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|failed to connect|Stream refused by server/i.test(message)
}

/** Raised instead of calling a member that failed moments ago, so the pool tries another one. */
export class HostBlockedError extends Error {
  constructor(host: string, untilMs: number) {
    super(`etcd member ${host} failed recently; not calling it for another ${Math.max(0, untilMs - Date.now())}ms`)
  }
}
