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
import { negotiateWatchOutput, partialObjectMetadata, protobufCodec } from '../negotiation.js'
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
  const { query, store, res } = scope
  const output = negotiateWatchOutput(scope.req.headers.accept, { table: true, customResource: store.strategy.customResource ?? false })
  // Protobuf when it is the first choice and the codec knows the kind (else the next choice, JSON).
  const codec: ProtobufCodec | undefined = output.kind === 'protobuf' ? await protobufCodec() : undefined
  const protobuf = codec !== undefined && codec.hasType(store.apiVersion, store.strategy.kind)
  const sel = selection(scope)
  if (scope.name !== undefined) sel.fields = [...(sel.fields ?? []), { field: 'metadata.name', operator: '=', value: scope.name }]
  const timeoutSeconds = queryInt64(query, 'timeoutSeconds')
  const timeoutMs = watchTimeoutMs(timeoutSeconds, scope.minRequestTimeoutSeconds ?? DEFAULT_MIN_REQUEST_TIMEOUT_S)
  const bookmarks = queryFlag(query, 'allowWatchBookmarks') === true
  const include = includeObject(query)
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

  res.setHeader(
    'Content-Type',
    protobuf
      ? PROTOBUF_WATCH_MEDIA_TYPE
      : output.kind === 'table'
        ? `application/json;as=Table;v=${output.apiVersion.split('/')[1]};g=meta.k8s.io`
        : output.kind === 'partial'
          ? `application/json;as=PartialObjectMetadata;v=${output.apiVersion.split('/')[1]};g=meta.k8s.io`
          : 'application/json',
  )
  res.statusCode = 200
  res.writeHead(200)
  ;(res as { flushHeaders?: () => void }).flushHeaders?.()

  let lastRv = query.get('resourceVersion') ?? ''
  /** The last change taken through a group, newer than `lastRv` (its version is read when a bookmark needs it). */
  let lastShared: ApiWatchEvent | undefined
  let first = true
  let stop = () => {}
  const resource = `${store.strategy.group ? `${scope.ctx.info.resource ?? ''}.${store.strategy.group}` : (scope.ctx.info.resource ?? '')}`
  const sender = new WatchSender(res, (buffered) => {
    scope.log?.(1, `Forcing ${resource} watcher close due to unresponsiveness: ${scope.ctx.url.pathname}${scope.ctx.url.search}. buffered events = ${buffered}`)
    stop()
  })
  const write = (ev: ApiWatchEvent) => {
    if (res.writableEnded) return
    let object: unknown = ev.object
    if (output.kind === 'table' && (ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED')) {
      const obj = ev.object as Parameters<typeof store.strategy.table.cells>[0]
      object = toTable(store.strategy.table, [obj], { resourceVersion: obj.metadata.resourceVersion }, { apiVersion: output.apiVersion, include, noHeaders: !first })
      first = false
    }
    // A metadata watch (metadata informers): each object as its PartialObjectMetadata.
    if (output.kind === 'partial' && ev.type !== 'ERROR') object = partialObjectMetadata(ev.object, output.apiVersion)
    // Plain objects (JSON or protobuf) are serialized once per format for every watcher that
    // sends the same event; Tables and PartialObjectMetadata are made for this watcher.
    const own = object !== ev.object
    const frame = protobuf
      ? own
        ? codec!.encodeWatchFrame(ev.type, object as Record<string, unknown>, store.apiVersion)
        : protobufFrame(codec!, ev.type, ev.object, store.apiVersion)
      : own
        ? Buffer.from(`${JSON.stringify({ type: ev.type, object })}\n`)
        : jsonFrame(ev.type, ev.object)
    sender.send(frame, !own)
  }
  if (initialError || !watch) {
    if (initialError) write(initialError)
    sender.end()
    return
  }
  const w = watch
  stop = () => w.cancel()
  const timer = timeoutMs > 0 ? setTimeout(() => stop(), timeoutMs) : undefined
  const bookmarkTimer = bookmarks
    ? setInterval(() => {
        if (lastShared !== undefined) {
          lastRv = resourceVersionOf(lastShared, lastRv)
          lastShared = undefined
        }
        // A cached watch knows how far the resource got, also past events this watch filtered out.
        const progress = w.progress?.()
        if (progress !== undefined && (lastRv === '' || !/^\d+$/.test(lastRv) || Number(progress) > Number(lastRv))) lastRv = progress
        if (lastRv === '' || lastRv === '0') return
        write({ type: 'BOOKMARK', object: { kind: store.strategy.kind, apiVersion: store.apiVersion, metadata: { resourceVersion: lastRv } } })
      }, BOOKMARK_INTERVAL_MS)
    : undefined
  // Not req 'close': Node emits that once the (empty) body is read.
  res.on('close', () => w.cancel())
  /** Writes one event; false once the watch must end (an ERROR was sent). */
  const deliver = (ev: ApiWatchEvent): boolean => {
    if (ev.type !== 'ERROR') {
      lastShared = undefined
      lastRv = resourceVersionOf(ev, lastRv)
    }
    write(ev)
    return ev.type !== 'ERROR'
  }
  let initialPhase = false
  try {
    if (w.direct) {
      // The state the watch starts from goes at the client's pace (it never counts against the
      // buffer): all of it is handed to the connection before the first change is queued.
      if (w.direct.initial) {
        for await (const ev of w.direct.initial) {
          if (!deliver(ev)) return
          await sender.settled(false)
        }
        await sender.settled(true)
      }
      // Changes as the store pushes them: no promise per event and watcher.
      if (res.writableEnded || sender.closedAsUnresponsive) return
      const direct = w.direct
      // Plain objects are the same bytes for every watcher of the format: such watches may
      // take changes through their format's group (watch-group.ts); the store decides.
      const group = output.kind === 'table' || output.kind === 'partial' ? undefined : protobuf ? protobufWatchGroup(codec!, store.apiVersion) : jsonWatchGroup()
      await new Promise<void>((resolve) => {
        let stopped = false
        res.once('close', () => resolve())
        stop = () => {
          stopped = true
          w.cancel()
          resolve()
        }
        const member: GroupMember = {
          take: (frame, ev) => {
            if (stopped || res.writableEnded) return
            lastShared = ev
            try {
              sender.send(frame, true)
            } catch (err) {
              member.broken(err as Error)
            }
          },
          broken: (err) => {
            scope.log?.(1, `Ending a ${resource} watch that failed to send an event: ${err.message}`)
            stop()
          },
          event: (ev) => {
            // Called by the store's dispatch for every watcher in turn: a failure ends this
            // watch only (as a throw out of the iterating loop would), never the others'.
            let more = false
            try {
              more = deliver(ev)
            } catch (err) {
              scope.log?.(1, `Ending a ${resource} watch that failed to send an event: ${(err as Error).message}`)
            }
            if (!more) stop()
          },
          end: (error) => {
            stopped = true
            if (error) deliver(error)
            resolve()
          },
        }
        direct.listen(member, group)
      })
      return
    }
    for await (const ev of w) {
      if (initialPhase && !ev.initial) await sender.settled(true)
      initialPhase = ev.initial === true
      if (!deliver(ev)) break
      // Initial events are written in batches as the connection takes them; changes wait in the sender.
      if (ev.initial) await sender.settled(false)
    }
  } finally {
    clearTimeout(timer)
    if (bookmarkTimer) clearInterval(bookmarkTimer)
    w.cancel()
    sender.end()
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
