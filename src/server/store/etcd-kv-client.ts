/**
 * A lean gRPC client for the store's hot calls, KV.Range and KV.Txn, and the Watch streams
 * (each write comes back on the store's own watch), straight over `node:http2` with the
 * messages encoded by hand (`etcd-wire.ts`). Measured against etcd3 on
 * grpc-js (docs/performance-history.md, "Sixth round: the etcd store"), the per-call layers above
 * HTTP/2 (etcd3's connection pool and policies, proto-loader's object conversion, grpc-js's
 * channel, call stack, filters and retry bookkeeping) cost more CPU than the call itself; a
 * get here costs about a third of etcd3's client CPU, a create about two thirds. Leases,
 * compaction and maintenance stay on etcd3.
 *
 * What it keeps of a gRPC client: TLS with the CA and client certificate, a deadline per call
 * (sent as `grpc-timeout` and enforced here too), reconnection after a member restarts,
 * keepalive pings that drop a dead connection, a call sent to another member only when it
 * demonstrably never left this process, and failures as the same gRPC errors etcd3 raises
 * (`castGrpcError`), so `mapEtcdError` maps them alike.
 */
import http2 from 'node:http2'
import net from 'node:net'
import tls from 'node:tls'
import { loadEtcd3 } from './etcd-client-module.js'
import { failedBeforeSending, HostBlockedError } from './etcd-errors.js'
import { decodeRange, decodeTxn, decodeWatch, encodeRange, encodeTxn, type RangeRequest, type RangeResponse, type TxnRequest, type TxnResponse, type WatchResponse } from './etcd-wire.js'

export interface EtcdKvClientOptions {
  servers: readonly string[]
  /** TLS material for `https://` members; no CA: the default trusted roots. */
  tls?: { ca?: Buffer; cert?: Buffer; key?: Buffer }
  /** How long a member that just failed is skipped while others exist. */
  skipFailedHostMs?: number
  /** Keepalive: a ping this often on an open connection, which must answer within the timeout. */
  keepaliveMs?: number
  keepaliveTimeoutMs?: number
}

/** gRPC status codes used here (grpc/status.h). */
const CANCELLED = 1
const UNKNOWN = 2
const DEADLINE_EXCEEDED = 4
const INTERNAL = 13
const UNAVAILABLE = 14
const STATUS_NAMES = [
  'OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS',
  'PERMISSION_DENIED', 'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE',
  'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS', 'UNAUTHENTICATED',
]

/** A failure as grpc-js reports it (`<code> <NAME>: <details>`), typed by etcd3's own mapping. */
function grpcError(code: number, details: string): Error {
  const err = Object.assign(new Error(`${code} ${STATUS_NAMES[code] ?? 'UNKNOWN'}: ${details}`), { code, details })
  return loadEtcd3().castGrpcError(err)
}

/** What a watch stream tells its owner; nothing more is called once `failed` was. */
export interface WatchHandlers {
  /** One WatchResponse, in order. */
  message(res: WatchResponse): void
  /** The stream ended: a gRPC error (etcd3's types), or `null` when etcd closed it cleanly. */
  failed(err: Error | null): void
}

/** An open Watch stream: WatchRequests out (each a gRPC frame), `cancel` to end it. */
export interface WatchCall {
  send(frame: Buffer): void
  /** Ends the stream (RST_STREAM CANCEL); its handlers are not called again. */
  cancel(): void
}

const RANGE = '/etcdserverpb.KV/Range'
const WATCH = '/etcdserverpb.Watch/Watch'
const TXN = '/etcdserverpb.KV/Txn'
/** gRPC's timeout header takes at most 8 digits. */
const MAX_TIMEOUT_MS = 99_999_999
/** Room for a large list's answer without waiting for window updates. */
const WINDOW = 16 * 1024 * 1024

class Member {
  session: http2.ClientHttp2Session | undefined
  /** Whether the current session finished its handshake (a failure before it: nothing was sent). */
  connected = false
  lastError: Error | undefined
  skipUntil = 0
  pinger: NodeJS.Timeout | undefined
  /** The session a liveness ping is out on, if any. */
  pinging: http2.ClientHttp2Session | undefined
  constructor(readonly url: string) {}
}

export class EtcdKvClient {
  private readonly members: Member[]
  private next = 0
  private closed = false
  private readonly skipMs: number
  private readonly keepaliveMs: number
  private readonly keepaliveTimeoutMs: number

  constructor(private readonly options: EtcdKvClientOptions) {
    this.members = options.servers.map(url => new Member(url))
    this.skipMs = this.members.length > 1 ? (options.skipFailedHostMs ?? 1_000) : 0
    this.keepaliveMs = options.keepaliveMs ?? 30_000
    this.keepaliveTimeoutMs = options.keepaliveTimeoutMs ?? 10_000
  }

  range(req: RangeRequest, deadline: number): Promise<RangeResponse> {
    return this.unary(RANGE, encodeRange(req), decodeRange, deadline)
  }

  txn(req: TxnRequest, deadline: number): Promise<TxnResponse> {
    return this.unary(TXN, encodeTxn(req), decodeTxn, deadline)
  }

  /**
   * A Watch stream (bidirectional: WatchRequests out, WatchResponses back) on the next member
   * not skipped for a recent failure. Its messages come as they arrive, reassembled from the
   * HTTP/2 frames; any failure ends it with one `failed` call (the owner reconnects). A stream
   * whose connection never came up (nothing reached the member) is opened again on the next
   * member with what was written to it, as the unary calls fail over.
   */
  watch(handlers: WatchHandlers): WatchCall {
    let ended = false
    let stream: http2.ClientHttp2Stream | undefined
    // What was written, kept until a member answers: sent again on the next member if needed.
    let written: Buffer[] | undefined = []
    const fail = (err: Error | null): void => {
      if (ended) return
      ended = true
      if (stream && !stream.destroyed) stream.close(http2.constants.NGHTTP2_CANCEL)
      handlers.failed(err)
    }
    const call: WatchCall = {
      send: frame => {
        if (ended) return
        written?.push(frame)
        if (stream && !stream.destroyed) stream.write(frame)
      },
      cancel: () => {
        if (ended) return
        ended = true
        if (stream && !stream.destroyed) stream.close(http2.constants.NGHTTP2_CANCEL)
      },
    }
    if (this.closed) {
      queueMicrotask(() => fail(new (loadEtcd3().ClientClosedError)('Watch')))
      return call
    }
    const open = (attempt: number): void => {
      const member = this.watchMember()
      let session: http2.ClientHttp2Session
      let current: http2.ClientHttp2Stream
      try {
        session = this.session(member)
        current = session.request({ ':method': 'POST', ':path': WATCH, 'content-type': 'application/grpc', te: 'trailers' }, { endStream: false })
      } catch (err) {
        queueMicrotask(() => fail(grpcError(UNAVAILABLE, `No connection established. Last error: ${(err as Error).message}`)))
        return
      }
      stream = current
      for (const frame of written ?? []) current.write(frame)
      const wasConnected = member.connected
      const status = new CallStatus()
      // Bytes of a message not complete yet (a message can span DATA frames, a frame hold several).
      let pending: Buffer | undefined
      current.on('response', headers => {
        written = undefined
        status.fromHeaders(headers)
      })
      current.on('data', (chunk: Buffer) => {
        let buf = pending ? Buffer.concat([pending, chunk]) : chunk
        pending = undefined
        while (!ended) {
          if (buf.length < 5) break
          if (buf[0] !== 0) return fail(grpcError(INTERNAL, 'compressed response not asked for'))
          const end = 5 + buf.readUInt32BE(1)
          if (buf.length < end) break
          let res: WatchResponse
          try {
            res = decodeWatch(buf.subarray(5, end))
          } catch (err) {
            return fail(grpcError(INTERNAL, `Failed to parse server response: ${(err as Error).message}`))
          }
          buf = buf.subarray(end)
          handlers.message(res)
        }
        if (buf.length > 0) pending = buf
      })
      current.on('trailers', trailers => status.fromTrailers(trailers))
      let streamError: Error | undefined
      current.on('error', (err: Error) => {
        streamError = err
      })
      // The answer is over when its side ends (our side stays open: a server that does not reset
      // the stream after its trailers would never 'close' it), or when the stream goes.
      const over = (): void => {
        if (ended || stream !== current) return
        if (status.code === undefined) {
          if (!wasConnected && !member.connected) {
            if (this.skipMs > 0) member.skipUntil = Date.now() + this.skipMs
            // Never connected: nothing reached this member, so the next one may have it all.
            if (attempt < this.members.length && !this.closed) return open(attempt + 1)
            const cause = (streamError ?? member.lastError)?.message ?? 'the connection closed'
            return fail(grpcError(UNAVAILABLE, `No connection established. Last error: ${cause}`))
          }
          const reset = current.rstCode
          const detail = (member.lastError ?? streamError)?.message ?? (reset ? `Received RST_STREAM with code ${reset}` : 'Connection dropped')
          return fail(grpcError(reset === http2.constants.NGHTTP2_CANCEL ? CANCELLED : UNAVAILABLE, detail))
        }
        fail(status.error() ?? null)
      }
      current.on('end', over)
      current.on('close', over)
    }
    open(1)
    return call
  }

  /** The member a new watch goes to: the next in turn that is not skipped for a recent failure. */
  private watchMember(): Member {
    const count = this.members.length
    const now = Date.now()
    for (let i = 0; i < count; i++) {
      const member = this.members[this.next++ % count]!
      if (now >= member.skipUntil) return member
    }
    return this.members[this.next++ % count]!
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    for (const member of this.members) this.drop(member, member.session, true)
  }

  private unary<T>(path: string, frame: Buffer, decode: (message: Buffer) => T, deadline: number): Promise<T> {
    if (this.closed) return Promise.reject(new (loadEtcd3().ClientClosedError)('KV'))
    // One member: no choice to make and nothing to retry elsewhere.
    if (this.members.length === 1) return this.call(this.members[0]!, path, frame, decode, deadline)
    return this.withFailover(path, frame, decode, deadline)
  }

  /** Members in turn, skipping one that just failed; another member only for a call never sent. */
  private async withFailover<T>(path: string, frame: Buffer, decode: (message: Buffer) => T, deadline: number): Promise<T> {
    const count = this.members.length
    for (let attempt = 1; ; attempt++) {
      const member = this.members[this.next++ % count]!
      try {
        if (Date.now() < member.skipUntil) throw new HostBlockedError(member.url, member.skipUntil)
        return await this.call(member, path, frame, decode, deadline)
      } catch (err) {
        if (!(err instanceof HostBlockedError) && err instanceof Error && loadEtcd3().isRecoverableError(err)) {
          member.skipUntil = Date.now() + this.skipMs
        }
        if (attempt >= count || !failedBeforeSending(err)) throw err
      }
    }
  }

  private session(member: Member): http2.ClientHttp2Session {
    const current = member.session
    if (current && !current.closed && !current.destroyed) return current
    const session = http2.connect(member.url, {
      settings: { enablePush: false, initialWindowSize: WINDOW },
      createConnection: (authority: URL) => this.connect(authority),
    })
    member.session = session
    member.connected = false
    member.lastError = undefined
    session.once('connect', () => {
      // 'connect' is emitted a tick after the handshake: a member that refuses our certificate
      // may have ended the session by then, and a destroyed session throws on any setting.
      if (session.destroyed || session.closed) return
      if (member.session === session) member.connected = true
      session.setLocalWindowSize(WINDOW)
    })
    session.on('error', (err: Error) => {
      if (member.session === session) member.lastError = err
    })
    // Draining or gone: new calls open a new connection; calls in flight finish on this one.
    session.once('goaway', () => this.drop(member, session, false))
    session.once('close', () => this.drop(member, session, false))
    // A call in flight keeps the process alive by its deadline timer, so the connection
    // never has to (no ref and unref as calls come and go).
    session.unref()
    member.pinger = setInterval(() => this.ping(member, session), this.keepaliveMs)
    member.pinger.unref()
    return session
  }

  /**
   * The connection under a session, with Nagle's algorithm off as grpc-js sets it: a call's
   * small frames go out at once instead of waiting for the previous call's acknowledgement.
   */
  private connect(url: URL): net.Socket {
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80))
    // An IPv6 literal comes bracketed in a URL, not in a host name to connect to.
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
    if (url.protocol !== 'https:') return net.connect({ host, port, noDelay: true })
    const files = this.options.tls
    const socket = tls.connect({
      host,
      port,
      ...(net.isIP(host) ? {} : { servername: host }),
      ALPNProtocols: ['h2'],
      ...(files?.ca ? { ca: files.ca } : {}),
      ...(files?.cert ? { cert: files.cert } : {}),
      ...(files?.key ? { key: files.key } : {}),
    })
    socket.setNoDelay(true)
    return socket
  }

  private drop(member: Member, session: http2.ClientHttp2Session | undefined, destroy: boolean): void {
    if (member.session === session) {
      member.session = undefined
      clearInterval(member.pinger)
      member.pinger = undefined
    }
    if (!session) return
    if (destroy) session.destroy()
    else if (!session.closed) session.close()
  }

  /**
   * A keepalive ping; no answer in time means a dead connection, dropped with its calls. One
   * at a time per connection: many calls reaching their deadlines together ask once (and
   * HTTP/2 refuses more than 10 outstanding pings without ever answering them).
   */
  private ping(member: Member, session: http2.ClientHttp2Session): void {
    if (session.destroyed || !member.connected || member.pinging === session) return
    member.pinging = session
    const done = (): void => {
      clearTimeout(timer)
      if (member.pinging === session) member.pinging = undefined
    }
    const timer = setTimeout(() => {
      done()
      if (member.session === session) member.lastError = new Error('keepalive ping not answered')
      this.drop(member, session, true)
    }, this.keepaliveTimeoutMs)
    timer.unref()
    try {
      if (session.ping(done) === false) done()
    } catch {
      done()
    }
  }

  private call<T>(member: Member, path: string, frame: Buffer, decode: (message: Buffer) => T, deadline: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timeoutMs = Math.ceil(deadline - Date.now())
      if (timeoutMs <= 0) {
        reject(grpcError(DEADLINE_EXCEEDED, 'Deadline exceeded'))
        return
      }
      let session: http2.ClientHttp2Session
      let stream: http2.ClientHttp2Stream
      try {
        session = this.session(member)
        stream = session.request(
          {
            ':method': 'POST',
            ':path': path,
            'content-type': 'application/grpc',
            te: 'trailers',
            'grpc-timeout': `${Math.min(timeoutMs, MAX_TIMEOUT_MS)}m`,
          },
          { endStream: false },
        )
      } catch (err) {
        reject(grpcError(UNAVAILABLE, `No connection established. Last error: ${(err as Error).message}`))
        return
      }
      const wasConnected = member.connected
      let settled = false
      const status = new CallStatus()
      let first: Buffer | undefined
      let rest: Buffer[] | undefined
      const finish = (err: Error | undefined, value?: T): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        if (err) reject(err)
        else resolve(value as T)
      }
      const timer = setTimeout(() => {
        finish(grpcError(DEADLINE_EXCEEDED, 'Deadline exceeded'))
        if (!stream.destroyed) stream.close(http2.constants.NGHTTP2_CANCEL)
        // A connection that stopped answering is found out by the ping, not by every call.
        this.ping(member, session)
      }, timeoutMs)
      stream.on('response', headers => status.fromHeaders(headers))
      stream.on('data', (chunk: Buffer) => {
        if (first === undefined) first = chunk
        else (rest ??= [first]).push(chunk)
      })
      stream.on('trailers', trailers => status.fromTrailers(trailers))
      let streamError: Error | undefined
      stream.on('error', (err: Error) => {
        // Settled on 'close', which follows; the cause is kept for it.
        streamError = err
      })
      stream.on('close', () => {
        if (settled) return
        if (status.code === undefined) {
          // No status: the stream was reset or the connection went away.
          if (!wasConnected && !member.connected) {
            const cause = (streamError ?? member.lastError)?.message ?? 'the connection closed'
            finish(grpcError(UNAVAILABLE, `No connection established. Last error: ${cause}`))
          } else {
            const reset = stream.rstCode
            // REFUSED_STREAM: the server did not process the call (safe to send again).
            const detail =
              reset === http2.constants.NGHTTP2_REFUSED_STREAM
                ? 'Stream refused by server'
                : ((member.lastError ?? streamError)?.message ?? (reset ? `Received RST_STREAM with code ${reset}` : 'Connection dropped'))
            finish(grpcError(reset === http2.constants.NGHTTP2_CANCEL ? CANCELLED : UNAVAILABLE, detail))
          }
          return
        }
        const err = status.error()
        if (err) {
          finish(err)
          return
        }
        const body = rest ? Buffer.concat(rest) : (first ?? Buffer.alloc(0))
        if (body.length < 5 || body[0] !== 0 || body.readUInt32BE(1) !== body.length - 5) {
          finish(grpcError(INTERNAL, body.length >= 5 && body[0] !== 0 ? 'compressed response not asked for' : 'malformed response message'))
          return
        }
        let value: T
        try {
          value = decode(body.subarray(5))
        } catch (err) {
          finish(grpcError(INTERNAL, `Failed to parse server response: ${(err as Error).message}`))
          return
        }
        finish(undefined, value)
      })
      stream.end(frame)
    })
  }
}

/**
 * A call's gRPC status, from its response headers (a non-200 HTTP status, or a trailers-only
 * answer carrying grpc-status there) and its trailers.
 */
class CallStatus {
  code: string | undefined
  message: string | undefined

  fromHeaders(headers: http2.IncomingHttpHeaders & http2.IncomingHttpStatusHeader): void {
    const httpStatus = headers[':status']
    if (httpStatus !== 200) {
      this.code ??= String(httpStatus === 503 || httpStatus === 502 || httpStatus === 504 ? UNAVAILABLE : UNKNOWN)
      this.message ??= `Received HTTP status code ${String(httpStatus)}`
    }
    this.fromTrailers(headers)
  }

  fromTrailers(trailers: http2.IncomingHttpHeaders): void {
    if (trailers['grpc-status'] === undefined) return
    this.code = String(trailers['grpc-status'])
    this.message = decodeMessage(trailers['grpc-message'])
  }

  /** The call's error; undefined for OK. Only once a status is known (`code` set). */
  error(): Error | undefined {
    if (this.code === '0') return undefined
    const code = Number(this.code)
    return grpcError(Number.isInteger(code) ? code : UNKNOWN, this.message ?? '')
  }
}

/** grpc-message is percent-encoded. */
function decodeMessage(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '')
  if (!text.includes('%')) return text
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
