/**
 * /debug/pprof/, as Go's net/http/pprof lays it out, with what V8 and libuv can give in
 * place of Go's runtime profiles:
 *
 * - `profile?seconds=N` (default 30): a real CPU profile of this process, taken through an
 *   in-process inspector session, served as a `.cpuprofile` (V8 JSON) for Chrome DevTools
 *   or speedscope rather than pprof's protobuf. One at a time per process, as in Go.
 * - `heap`: a V8 heap snapshot (`.heapsnapshot` JSON), streamed chunk by chunk as V8 writes
 *   it. Taking it stops the event loop for as long as it takes (seconds on a big heap).
 * - `goroutine`: Node has no goroutines; the active libuv handles and requests, counted by type.
 * - `block` and `mutex` (only with contention profiling, as Go only samples them then): Node
 *   has no locks to contend on — what stalls a Node server is a blocked event loop — so both
 *   serve the event-loop delay histogram (`perf_hooks.monitorEventLoopDelay`), as text:
 *   since contention profiling started, or over the next `seconds=N`.
 * - `cmdline`: the command line, NUL-separated as Go writes os.Args.
 *
 * Error texts and headers are Go's: `serveError` plain text with `X-Go-Pprof: 1`.
 */
import type { Session as InspectorSession } from 'node:inspector/promises'
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks'
import type { Writable } from 'node:stream'
import type { Mux } from '../http/mux.js'
import type { Handler, Request, RequestContext, Response } from '../http/types.js'

const PPROF_PREFIX = '/debug/pprof/'
const DEFAULT_PROFILE_SECONDS = 30

interface PprofOptions {
  /** --contention-profiling: serve block and mutex (event-loop delay) profiles. */
  contentionProfiling?: boolean
  /** The command line cmdline reports; the process's own by default. */
  argv?: readonly string[]
}

type PathKind = 'exact' | 'prefix'
type PathHandler = [path: string, handler: Handler, kind: PathKind]

/** Go's pprof serveError. */
function serveError(res: Response, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  res.removeHeader('Content-Disposition')
  res.removeHeader('Content-Length')
  res.setHeader('X-Go-Pprof', '1')
  res.setHeader('Content-Type', 'text/plain; charset=utf-8')
  res.setHeader('X-Content-Type-Options', 'nosniff')
  res.statusCode = status
  res.end(`${message}\n`)
}

function text(res: Response, body: string): void {
  res.setHeader('X-Content-Type-Options', 'nosniff')
  res.setHeader('Content-Type', 'text/plain; charset=utf-8')
  res.setHeader('Content-Length', Buffer.byteLength(body))
  res.statusCode = 200
  res.end(body)
}

/**
 * The `seconds` parameter: absent is `fallback`; present, it must be a positive integer.
 * Returns the error message (Go's delta-profile text) when it is not.
 */
function parseSeconds(url: URL, fallback: number | undefined): number | undefined | { error: string } {
  const raw = url.searchParams.get('seconds')
  if (raw === null || raw === '') return fallback
  const n = /^[+-]?\d+$/.test(raw) ? Number(raw) : NaN
  if (!Number.isSafeInteger(n) || n <= 0) return { error: 'invalid value for "seconds" - must be a positive integer' }
  return n
}

/** Go's durationExceedsWriteTimeout, with the request's deadline standing in for WriteTimeout. */
function exceedsDeadline(ctx: RequestContext, seconds: number): boolean {
  return ctx.deadline !== undefined && Date.now() + seconds * 1000 > ctx.deadline
}

/** Waits `ms`, or less if the client goes away first (Go's pprof sleep). */
function sleep(res: Response, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      res.off('close', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    res.once('close', done)
  })
}

// --- CPU ---------------------------------------------------------------------------------

/** Like Go's runtime CPU profiler, there is one per process, whichever server asks. */
let cpuProfiling = false

export function cpuProfileInProgress(): boolean {
  return cpuProfiling
}

/**
 * An inspector session. node:inspector/promises is loaded on the first profile, not at start:
 * it brings node:inspector and node:worker_threads, which no start needs.
 */
async function inspectorSession(): Promise<InspectorSession> {
  const { Session } = await import('node:inspector/promises')
  return new Session()
}

/** A V8 CPU profile of `ms` (cut short if `res` closes); the `.cpuprofile` JSON. */
async function takeCpuProfile(res: Response, ms: number): Promise<string> {
  const session = await inspectorSession()
  session.connect()
  try {
    await session.post('Profiler.enable')
    await session.post('Profiler.start')
    await sleep(res, ms)
    const { profile } = await session.post('Profiler.stop')
    return JSON.stringify(profile)
  } finally {
    session.disconnect()
  }
}

const profileHandler: Handler = async (_req, res, ctx) => {
  res.setHeader('X-Content-Type-Options', 'nosniff')
  const seconds = parseSeconds(ctx.url, DEFAULT_PROFILE_SECONDS)
  if (typeof seconds !== 'number') {
    serveError(res, 400, typeof seconds === 'object' ? seconds.error : 'invalid value for "seconds"')
    return
  }
  if (exceedsDeadline(ctx, seconds)) {
    serveError(res, 400, "profile duration exceeds server's WriteTimeout")
    return
  }
  if (cpuProfiling) {
    serveError(res, 500, 'Could not enable CPU profiling: cpu profiling already in use')
    return
  }
  cpuProfiling = true
  let body: string
  try {
    body = await takeCpuProfile(res, seconds * 1000)
  } catch (err) {
    serveError(res, 500, `Could not enable CPU profiling: ${err instanceof Error ? err.message : String(err)}`)
    return
  } finally {
    cpuProfiling = false
  }
  if (res.destroyed || res.writableEnded) return
  res.setHeader('Content-Type', 'application/octet-stream')
  res.setHeader('Content-Disposition', 'attachment; filename="profile"')
  res.setHeader('Content-Length', Buffer.byteLength(body))
  res.statusCode = 200
  res.end(body)
}

// --- heap --------------------------------------------------------------------------------

const heapHandler: Handler = async (_req, res) => {
  res.setHeader('X-Content-Type-Options', 'nosniff')
  res.setHeader('Content-Type', 'application/octet-stream')
  res.setHeader('Content-Disposition', 'attachment; filename="heap"')
  const session = await inspectorSession()
  session.connect()
  try {
    // V8 hands the snapshot over in chunks as it serialises it; each goes out as it comes.
    session.on('HeapProfiler.addHeapSnapshotChunk', (message) => {
      if (!res.destroyed) (res as Writable).write(message.params.chunk)
    })
    await session.post('HeapProfiler.takeHeapSnapshot', { reportProgress: false })
  } catch (err) {
    serveError(res, 500, `Could not take heap snapshot: ${err instanceof Error ? err.message : String(err)}`)
    return
  } finally {
    session.disconnect()
  }
  if (!res.destroyed && !res.writableEnded) {
    res.statusCode = 200
    res.end()
  }
}

// --- goroutine ---------------------------------------------------------------------------

function activeResources(): Map<string, number> {
  const counts = new Map<string, number>()
  for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1)
  return counts
}

/** Active libuv handles and requests by type: `goroutine profile: total N`, then `count @ type`. */
function goroutineText(): string {
  const counts = [...activeResources()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  const total = counts.reduce((sum, [, n]) => sum + n, 0)
  let out = `goroutine profile: total ${total}\n`
  out += '# Node.js has no goroutines: these are the active libuv handles and requests, by type.\n'
  for (const [type, n] of counts) out += `${n} @ ${type}\n`
  return out
}

const goroutineHandler: Handler = (_req, res) => text(res, goroutineText())

// --- block / mutex -----------------------------------------------------------------------

const RESOLUTION_MS = 10
/** Started with the first server that turns contention profiling on; it runs for the process's life. */
let sinceStart: { histogram: IntervalHistogram; startedAt: Date } | undefined

function startEventLoopMonitor(): NonNullable<typeof sinceStart> {
  if (!sinceStart) {
    const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS })
    histogram.enable()
    sinceStart = { histogram, startedAt: new Date() }
  }
  return sinceStart
}

function ms(ns: number): string {
  return Number.isFinite(ns) ? (ns / 1e6).toFixed(3) : '0.000'
}

function eventLoopDelayText(name: string, histogram: IntervalHistogram, window: string): string {
  const lines = [
    `--- ${name}: event-loop delay`,
    '# Node.js has no lock contention to profile; this is how late the event loop ran its',
    `# timers (sampled every ${RESOLUTION_MS}ms), which is what blocking looks like in Node.js.`,
    `window: ${window}`,
    `samples: ${histogram.count}`,
    `min_ms: ${ms(histogram.count ? histogram.min : 0)}`,
    `mean_ms: ${ms(histogram.count ? histogram.mean : 0)}`,
    `stddev_ms: ${ms(histogram.count ? histogram.stddev : 0)}`,
    `max_ms: ${ms(histogram.count ? histogram.max : 0)}`,
  ]
  for (const p of [50, 75, 90, 99, 99.9]) lines.push(`p${p}_ms: ${ms(histogram.count ? histogram.percentile(p) : 0)}`)
  return `${lines.join('\n')}\n`
}

function eventLoopDelayHandler(name: 'block' | 'mutex'): Handler {
  return async (_req, res, ctx) => {
    res.setHeader('X-Content-Type-Options', 'nosniff')
    const seconds = parseSeconds(ctx.url, undefined)
    if (typeof seconds === 'object') {
      serveError(res, 400, seconds.error)
      return
    }
    if (seconds === undefined) {
      const { histogram, startedAt } = startEventLoopMonitor()
      text(res, eventLoopDelayText(name, histogram, `since ${startedAt.toISOString()}`))
      return
    }
    if (exceedsDeadline(ctx, seconds)) {
      serveError(res, 400, "profile duration exceeds server's WriteTimeout")
      return
    }
    const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS })
    histogram.enable()
    try {
      await sleep(res, seconds * 1000)
    } finally {
      histogram.disable()
    }
    if (res.destroyed) return
    text(res, eventLoopDelayText(name, histogram, `last ${seconds}s`))
  }
}

// --- cmdline -----------------------------------------------------------------------------

/** The process's command line as the kernel has it: node, its own flags, the script, the arguments. */
export function processCommandLine(): string[] {
  return [process.execPath, ...process.execArgv, ...process.argv.slice(1)]
}

function cmdlineHandler(argv: readonly string[] | undefined): Handler {
  return (_req, res) => text(res, (argv ?? processCommandLine()).join('\0'))
}

// --- index -------------------------------------------------------------------------------

interface Profile {
  name: string
  handler: Handler
  count: () => number
  desc: string
}

function escapeHTML(s: string): string {
  return s.replace(/[&'<>"]/g, (c) => ({ '&': '&amp;', "'": '&#39;', '<': '&lt;', '>': '&gt;', '"': '&#34;' })[c] ?? c)
}

/** Go's pprof index page, listing what this server has. */
function indexHTML(profiles: ReadonlyArray<Pick<Profile, 'name' | 'desc'> & { count: number }>): string {
  let b = `<html>
<head>
<title>/debug/pprof/</title>
<style>
.profile-name{
\tdisplay:inline-block;
\twidth:6rem;
}
</style>
</head>
<body>
/debug/pprof/
<br>
<br>
Types of profiles available:
<table>
<thead><td>Count</td><td>Profile</td></thead>
`
  for (const p of profiles) b += `<tr><td>${p.count}</td><td><a href='${encodeURIComponent(p.name)}'>${escapeHTML(p.name)}</a></td></tr>\n`
  b += `</table>
<br>
<p>
Profile Descriptions:
<ul>
`
  for (const p of profiles) b += `<li><div class=profile-name>${escapeHTML(p.name)}: </div> ${escapeHTML(p.desc)}</li>\n`
  b += `</ul>
</p>
</body>
</html>`
  return b
}

function profiles(options: PprofOptions): Profile[] {
  const zero = () => 0
  const list: Profile[] = [
    { name: 'cmdline', handler: cmdlineHandler(options.argv), count: zero, desc: 'The command line invocation of the current program' },
    {
      name: 'goroutine',
      handler: goroutineHandler,
      count: () => process.getActiveResourcesInfo().length,
      desc: 'Node.js has no goroutines: the active libuv handles and requests (sockets, timers, file operations), counted by type',
    },
    {
      name: 'heap',
      handler: heapHandler,
      count: zero,
      desc: 'A V8 heap snapshot (.heapsnapshot JSON) for Chrome DevTools. Taking it pauses the server while the heap is written.',
    },
    {
      name: 'profile',
      handler: profileHandler,
      count: zero,
      desc: 'CPU profile (.cpuprofile JSON, V8 sampling profiler). You can specify the duration in the seconds GET parameter. Open the file in Chrome DevTools or speedscope.',
    },
  ]
  if (options.contentionProfiling) {
    const desc = 'Node.js has no lock contention: the event-loop delay histogram (how long the loop was blocked), since start or over the seconds GET parameter'
    list.push({ name: 'block', handler: eventLoopDelayHandler('block'), count: zero, desc })
    list.push({ name: 'mutex', handler: eventLoopDelayHandler('mutex'), count: zero, desc })
  }
  return list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

function decodedPath(ctx: RequestContext): string {
  try {
    return decodeURIComponent(ctx.url.pathname)
  } catch {
    return ctx.url.pathname
  }
}

/** Go's http.Redirect with 302 Found. */
function redirect(to: string): Handler {
  return (req: Request, res: Response) => {
    res.setHeader('Location', to)
    res.statusCode = 302
    if (req.method === 'GET' || req.method === 'HEAD') {
      res.setHeader('Content-Type', 'text/html; charset=utf-8')
      res.end(`<a href="${escapeHTML(to)}">Found</a>.\n\n`)
    } else {
      res.end()
    }
  }
}

/** The handlers to mount: each profile at its own path, the index (and unknown names → 404) under the prefix. */
export function pprofHandlers(options: PprofOptions = {}): PathHandler[] {
  const list = profiles(options)
  const byName = new Map(list.map((p) => [p.name, p.handler]))
  if (options.contentionProfiling) startEventLoopMonitor()
  const index: Handler = (req, res, ctx) => {
    const name = decodedPath(ctx).slice(PPROF_PREFIX.length)
    if (name !== '') {
      const handler = byName.get(name)
      if (handler) return handler(req, res, ctx)
      res.setHeader('X-Content-Type-Options', 'nosniff')
      serveError(res, 404, 'Unknown profile')
      return
    }
    const body = indexHTML(list.map((p) => ({ name: p.name, desc: p.desc, count: p.count() })))
    res.setHeader('X-Content-Type-Options', 'nosniff')
    res.setHeader('Content-Type', 'text/html; charset=utf-8')
    res.statusCode = 200
    res.end(body)
  }
  return [
    ['/debug/pprof', redirect(PPROF_PREFIX), 'exact'],
    [PPROF_PREFIX, index, 'prefix'],
    ...list.map((p): PathHandler => [`${PPROF_PREFIX}${p.name}`, p.handler, 'exact']),
  ]
}

export function installPprof(mux: Mux, options: PprofOptions = {}): Mux {
  for (const [path, handler, kind] of pprofHandlers(options)) {
    if (kind === 'exact') mux.handle(path, handler)
    else mux.handlePrefix(path, handler)
  }
  return mux
}
