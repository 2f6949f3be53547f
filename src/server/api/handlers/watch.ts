/**
 * Watches as an event stream: 200 with the headers flushed at once, then JSON (one
 * `{"type","object"}` per line; one-row Tables when the Accept header asks for them, column
 * definitions on the first only) or protobuf (`…;stream=watch`: length-prefixed WatchEvent
 * envelopes), BOOKMARKs when allowed, an ERROR event (410 Expired) when the resourceVersion is
 * compacted, and the end after `timeoutSeconds` (the reference's 30–60 minutes when absent).
 * Events go at the client's pace, and a watcher that stops reading is closed (watch-sender.ts).
 * The reference's WatchList options (`sendInitialEvents` with `resourceVersionMatch=NotOlderThan`)
 * are defaulted and validated as its ListOptions are.
 */
import { queryFlag, queryInt64 } from '../query.js'
import { type Cause, toApiError } from '../status-errors.js'
import type { ApiWatch, ApiWatchEvent } from '../registry/generic-store.js'
import { PROTOBUF_WATCH_MEDIA_TYPE, type ProtobufCodec } from '../../../core/protobuf/index.js'
import { type Output, negotiateWatchOutput, partialObjectMetadata, protobufCodec } from '../negotiation.js'
import { toTable } from '../table.js'
import { type Scope, forbidden, includeObject, listOptionsInvalid, selection } from './scope.js'
import { WatchSender } from './watch-sender.js'
import { jsonFrame, protobufFrame } from './watch-frames.js'
import { type GroupMember, jsonWatchGroup, protobufWatchGroup } from './watch-group.js'

/** How often bookmarks are sent when allowed (the reference: about once a minute). */
export const BOOKMARK_INTERVAL_MS = Number(process.env.CLIENT_WATCH_BOOKMARK_INTERVAL_MS ?? '') || 60_000
const DEFAULT_MIN_REQUEST_TIMEOUT_S = 1800
const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * How long a watch runs. The reference: the client's timeoutSeconds, else a random time in
 * [min, 2*min) so that watches started together do not all end (and come back) together;
 * min 0: no end. `random` is Math.random's contract: a number in [0, 1).
 */
export function watchTimeoutMs(timeoutSeconds: number | undefined, minRequestTimeoutSeconds: number, random: () => number = Math.random): number {
  // Past the longest timer Node keeps (about 24.8 days) a watch simply does not end by itself.
  if (timeoutSeconds !== undefined && timeoutSeconds !== 0) return Math.min(Math.max(timeoutSeconds * 1000, 1), MAX_TIMER_MS)
  return minRequestTimeoutSeconds * 1000 * (1 + random())
}

export async function watchHandler(scope: Scope): Promise<void> {
  const { query, store } = scope
  const output = negotiateWatchOutput(scope.req.headers.accept, { table: true, customResource: store.strategy.customResource ?? false })
  // Protobuf when it is the first choice and the codec knows the kind (else the next choice, JSON).
  const codec: ProtobufCodec | undefined = output.kind === 'protobuf' ? await protobufCodec() : undefined
  const protobuf = codec !== undefined && codec.hasType(store.apiVersion, store.strategy.kind) ? codec : undefined
  const sel = selection(scope)
  if (scope.name !== undefined) sel.fields = [...(sel.fields ?? []), { field: 'metadata.name', operator: '=', value: scope.name }]
  const timeoutMs = watchTimeoutMs(queryInt64(query, 'timeoutSeconds'), scope.minRequestTimeoutSeconds ?? DEFAULT_MIN_REQUEST_TIMEOUT_S)
  const bookmarks = queryFlag(query, 'allowWatchBookmarks') === true
  const resourceVersion = query.get('resourceVersion') ?? ''
  const sendInitialEvents = watchListOptions(query, resourceVersion)

  let watch: ApiWatch | undefined
  let initialError: ApiWatchEvent | undefined
  try {
    watch = await store.watch({
      ...sel,
      resourceVersion,
      ...(sendInitialEvents !== undefined ? { sendInitialEvents } : {}),
      allowWatchBookmarks: bookmarks,
      // This handler only serializes what it gets: changes may be decoded once for all watchers.
      readOnly: true,
    })
  } catch (err) {
    const apiErr = toApiError(err)
    // Like the reference: a too-old (or not yet reached) resourceVersion is reported in the stream.
    if (apiErr.code !== 410 && apiErr.code !== 504) throw apiErr
    initialError = { type: 'ERROR', object: apiErr.status as unknown as Record<string, unknown> }
  }

  const response = new WatchResponse(scope, output, protobuf, resourceVersion)
  if (initialError || !watch) {
    if (initialError) response.write(initialError)
    response.sender.end()
    return
  }
  await response.stream(watch, timeoutMs, bookmarks)
}

/** The Content-Type of a watch's stream of events in the negotiated output. */
function watchContentType(output: Output, protobuf: boolean): string {
  if (protobuf) return PROTOBUF_WATCH_MEDIA_TYPE
  if (output.kind === 'table') return `application/json;as=Table;v=${output.apiVersion.split('/')[1]};g=meta.k8s.io`
  if (output.kind === 'partial') return `application/json;as=PartialObjectMetadata;v=${output.apiVersion.split('/')[1]};g=meta.k8s.io`
  return 'application/json'
}

/**
 * One watch's response: the headers flushed at once, then the events at the client's pace
 * (watch-sender.ts), bookmarks, and the end (timeout, client gone, unresponsive, an ERROR).
 */
class WatchResponse {
  readonly sender: WatchSender
  /** The resourceVersion the client has seen (the start, then each event's). */
  private lastRv: string
  /** The last change taken through a group, newer than `lastRv` (its version is read when a bookmark needs it). */
  private lastShared: ApiWatchEvent | undefined
  /** The next Table is the first (it carries the column definitions). */
  private first = true
  private stop = () => {}
  private readonly include: ReturnType<typeof includeObject>
  /** `pods` or `deployments.apps`, for the log lines. */
  private readonly resource: string

  constructor(
    private readonly scope: Scope,
    private readonly output: Output,
    private readonly codec: ProtobufCodec | undefined,
    resourceVersion: string,
  ) {
    const { res, store } = scope
    this.include = includeObject(scope.query)
    this.lastRv = resourceVersion
    this.resource = `${store.strategy.group ? `${scope.ctx.info.resource ?? ''}.${store.strategy.group}` : (scope.ctx.info.resource ?? '')}`
    res.setHeader('Content-Type', watchContentType(output, codec !== undefined))
    res.statusCode = 200
    res.writeHead(200)
    ;(res as { flushHeaders?: () => void }).flushHeaders?.()
    this.sender = new WatchSender(res, (buffered) => {
      scope.log?.(1, `Forcing ${this.resource} watcher close due to unresponsiveness: ${scope.ctx.url.pathname}${scope.ctx.url.search}. buffered events = ${buffered}`)
      this.stop()
    })
  }

  /** Writes one event in the negotiated output. */
  write(ev: ApiWatchEvent): void {
    const { res, store } = this.scope
    if (res.writableEnded) return
    const { output, codec } = this
    let object: unknown = ev.object
    if (output.kind === 'table' && (ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED')) {
      const obj = ev.object as Parameters<typeof store.strategy.table.cells>[0]
      object = toTable(store.strategy.table, [obj], { resourceVersion: obj.metadata.resourceVersion }, { apiVersion: output.apiVersion, include: this.include, noHeaders: !this.first })
      this.first = false
    }
    // A metadata watch (metadata informers): each object as its PartialObjectMetadata.
    if (output.kind === 'partial' && ev.type !== 'ERROR') object = partialObjectMetadata(ev.object, output.apiVersion)
    // Plain objects (JSON or protobuf) are serialized once per format for every watcher that
    // sends the same event; Tables and PartialObjectMetadata are made for this watcher.
    const own = object !== ev.object
    const frame = codec
      ? own
        ? codec.encodeWatchFrame(ev.type, object as Record<string, unknown>, store.apiVersion)
        : protobufFrame(codec, ev.type, ev.object, store.apiVersion)
      : own
        ? Buffer.from(`${JSON.stringify({ type: ev.type, object })}\n`)
        : jsonFrame(ev.type, ev.object)
    this.sender.send(frame, !own)
  }

  /** Writes one event; false once the watch must end (an ERROR was sent). */
  private deliver(ev: ApiWatchEvent): boolean {
    if (ev.type !== 'ERROR') {
      this.lastShared = undefined
      this.lastRv = resourceVersionOf(ev, this.lastRv)
    }
    this.write(ev)
    return ev.type !== 'ERROR'
  }

  /** A BOOKMARK at the newest version this watch knows of, if any. */
  private bookmark(w: ApiWatch): void {
    const { store } = this.scope
    if (this.lastShared !== undefined) {
      this.lastRv = resourceVersionOf(this.lastShared, this.lastRv)
      this.lastShared = undefined
    }
    // A cached watch knows how far the resource got, also past events this watch filtered out.
    const progress = w.progress?.()
    const lastRv = this.lastRv
    if (progress !== undefined && (lastRv === '' || !/^\d+$/.test(lastRv) || Number(progress) > Number(lastRv))) this.lastRv = progress
    if (this.lastRv === '' || this.lastRv === '0') return
    this.write({ type: 'BOOKMARK', object: { kind: store.strategy.kind, apiVersion: store.apiVersion, metadata: { resourceVersion: this.lastRv } } })
  }

  /** Streams the watch's events until it ends, times out or the client goes. */
  async stream(w: ApiWatch, timeoutMs: number, bookmarks: boolean): Promise<void> {
    this.stop = () => w.cancel()
    const timer = timeoutMs > 0 ? setTimeout(() => this.stop(), timeoutMs) : undefined
    const bookmarkTimer = bookmarks ? setInterval(() => this.bookmark(w), BOOKMARK_INTERVAL_MS) : undefined
    // Not req 'close': Node emits that once the (empty) body is read.
    this.scope.res.on('close', () => w.cancel())
    try {
      if (w.direct) await this.streamDirect(w, w.direct)
      else await this.streamIterated(w)
    } finally {
      clearTimeout(timer)
      if (bookmarkTimer) clearInterval(bookmarkTimer)
      w.cancel()
      this.sender.end()
    }
  }

  /** A watch whose store pushes changes: no promise per event and watcher. */
  private async streamDirect(w: ApiWatch, direct: NonNullable<ApiWatch['direct']>): Promise<void> {
    const { res } = this.scope
    // The state the watch starts from goes at the client's pace (it never counts against the
    // buffer): all of it is handed to the connection before the first change is queued.
    if (direct.initial) {
      for await (const ev of direct.initial) {
        if (!this.deliver(ev)) return
        await this.sender.settled(false)
      }
      await this.sender.settled(true)
    }
    if (res.writableEnded || this.sender.closedAsUnresponsive) return
    // Plain objects are the same bytes for every watcher of the format: such watches may
    // take changes through their format's group (watch-group.ts); the store decides.
    const { output, codec } = this
    const group = output.kind === 'table' || output.kind === 'partial' ? undefined : codec ? protobufWatchGroup(codec, this.scope.store.apiVersion) : jsonWatchGroup()
    await new Promise<void>((resolve) => {
      let stopped = false
      res.once('close', () => resolve())
      this.stop = () => {
        stopped = true
        w.cancel()
        resolve()
      }
      const member: GroupMember = {
        take: (frame, ev) => {
          if (stopped || res.writableEnded) return
          this.lastShared = ev
          try {
            this.sender.send(frame, true)
          } catch (err) {
            member.broken(err as Error)
          }
        },
        broken: (err) => {
          this.scope.log?.(1, `Ending a ${this.resource} watch that failed to send an event: ${err.message}`)
          this.stop()
        },
        event: (ev) => {
          // Called by the store's dispatch for every watcher in turn: a failure ends this
          // watch only (as a throw out of the iterating loop would), never the others'.
          let more = false
          try {
            more = this.deliver(ev)
          } catch (err) {
            this.scope.log?.(1, `Ending a ${this.resource} watch that failed to send an event: ${(err as Error).message}`)
          }
          if (!more) this.stop()
        },
        end: (error) => {
          stopped = true
          if (error) this.deliver(error)
          resolve()
        },
      }
      direct.listen(member, group)
    })
  }

  /** A watch read as an async iterator of events. */
  private async streamIterated(w: ApiWatch): Promise<void> {
    let initialPhase = false
    for await (const ev of w) {
      if (initialPhase && !ev.initial) await this.sender.settled(true)
      initialPhase = ev.initial === true
      if (!this.deliver(ev)) break
      // Initial events are written in batches as the connection takes them; changes wait in the sender.
      if (ev.initial) await this.sender.settled(false)
    }
  }
}

/** The resourceVersion of an event's object (a bookmark's), else `fallback`. */
function resourceVersionOf(ev: ApiWatchEvent, fallback: string): string {
  return String((ev.object as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion ?? fallback)
}

/**
 * `sendInitialEvents` after the reference's defaulting (SetListOptionsDefaults, WatchList on
 * as in 1.32: a watch from "" or "0" with neither option set sends the initial events) and
 * validation (validateWatchOptions: 422 Invalid ListOptions).
 */
function watchListOptions(query: URLSearchParams, resourceVersion: string): boolean | undefined {
  let sendInitialEvents = queryFlag(query, 'sendInitialEvents')
  let match = query.get('resourceVersionMatch') ?? ''
  if (sendInitialEvents === undefined && match === '' && (resourceVersion === '' || resourceVersion === '0')) {
    sendInitialEvents = true
    match = 'NotOlderThan'
  }
  const causes: Cause[] = []
  if (sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    causes.push(forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'))
  }
  if (match !== '') {
    if (sendInitialEvents === undefined) causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'))
    if (match !== 'NotOlderThan') {
      causes.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(match)}: supported values: "NotOlderThan"`, field: 'resourceVersionMatch' })
    }
    if ((query.get('continue') ?? '') !== '') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'))
  }
  if (causes.length > 0) throw listOptionsInvalid(causes)
  return sendInitialEvents
}
