/**
 * Test support for the health handlers: a real node:http server on 127.0.0.1 (port 0)
 * in front of healthHandlers, a raw HTTP client (paths are sent byte for byte, nothing
 * normalised), controllable fake checks and the research's fixture S.
 */
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { notFound, textResponse } from '../../../src/server/http/respond.js'
import { LifecycleSignals } from '../../../src/server/lifecycle/signals.js'
import { ping, shutdownCheck, type HealthCheck } from '../../../src/server/health/check.js'
import { healthHandlers, type HealthHandlers } from '../../../src/server/health/handler.js'
import { PostStartHooks } from '../../../src/server/health/post-start-hooks.js'
import { HealthRegistry } from '../../../src/server/health/registry.js'

export interface Reply {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

export interface TestServer {
  get(path: string, method?: string): Promise<Reply>
  close(): Promise<void>
}

/** Serves `handlers`; paths they do not answer get 404, except `/api/...` which answers 200 `api`. */
export async function startServer(handlers: Pick<HealthHandlers, 'handle'>): Promise<TestServer> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    handlers.handle(req, res, url).then(
      (handled) => {
        if (handled) return
        if (url.pathname.startsWith('/api/')) textResponse(res, 200, 'api', false)
        else notFound(res)
      },
      (err: unknown) => {
        res.statusCode = 599
        res.end(`handler threw: ${String(err)}`)
      },
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    get(path, method = 'GET') {
      return new Promise((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, path, method, agent: false }, (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }))
          res.on('error', reject)
        })
        req.on('error', reject)
        req.end()
      })
    },
    close() {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}

/** Content-Type text/plain; charset=utf-8 AND X-Content-Type-Options: nosniff. */
export function assertTextHeaders(reply: Reply): void {
  assert.equal(reply.headers['content-type'], 'text/plain; charset=utf-8')
  assert.equal(reply.headers['x-content-type-options'], 'nosniff')
}

/** Content-Type text/plain; charset=utf-8 and NO X-Content-Type-Options. */
export function assertPlainNoNosniff(reply: Reply): void {
  assert.equal(reply.headers['content-type'], 'text/plain; charset=utf-8')
  assert.equal(reply.headers['x-content-type-options'], undefined)
}

export function assertReply(reply: Reply, status: number, body: string): void {
  assert.deepEqual({ status: reply.status, body: reply.body }, { status, body })
}

/** A check switched between pass, fail (with the given text) and hang. */
export class FakeCheck implements HealthCheck {
  mode: 'pass' | 'fail' | 'hang' = 'pass'
  failText = 'failed'
  calls = 0
  private hanging: Array<() => void> = []

  constructor(
    readonly name: string,
    readonly group?: string,
  ) {}

  fail(text: string): this {
    this.mode = 'fail'
    this.failText = text
    return this
  }

  check(): Promise<void> {
    this.calls++
    if (this.mode === 'fail') return Promise.reject(new Error(this.failText))
    if (this.mode === 'hang') return new Promise((resolve) => this.hanging.push(resolve))
    return Promise.resolve()
  }

  /** Lets every hanging call pass. */
  release(): void {
    for (const r of this.hanging.splice(0)) r()
  }
}

export class FakeClock {
  constructor(public now = 1_000_000) {}
  readonly clock = (): number => this.now
  advance(ms: number): void {
    this.now += ms
  }
}

export const STORE_FAILURE = 'error getting data from store: context deadline exceeded'

/** Fixture S lines, translated (`etcd` → `store`, no `etcd-readiness`). */
export const S_HEALTH_LINES = '[+]ping ok\n[+]log ok\n[+]store ok\n[+]poststarthook/demo ok\n'
export const S_READY_LINES = `${S_HEALTH_LINES}[+]shutdown ok\n`
export const PASSED = 'healthz check passed\n'

export interface FixtureS {
  signals: LifecycleSignals
  registry: HealthRegistry
  hooks: PostStartHooks
  log: FakeCheck
  store: FakeCheck
  handlers: HealthHandlers
  logs: Array<[number, string]>
  fatal: Array<[string, Error]>
  /** Lets the `demo` hook's run() resolve. */
  finishDemo(): Promise<void>
  server: TestServer
  get(path: string, method?: string): Promise<Reply>
  close(): Promise<void>
}

/**
 * Fixture S: healthz and livez `ping`, `log`, `store`, `poststarthook/demo`; readyz the
 * same and `shutdown`. All pass; the demo hook has finished unless `hookFinished: false`.
 */
export async function fixtureS(options: { hookFinished?: boolean; graceMs?: number; clock?: FakeClock } = {}): Promise<FixtureS> {
  const signals = new LifecycleSignals()
  const registry = new HealthRegistry({
    livezGracePeriodMs: options.graceMs ?? 0,
    ...(options.clock ? { clock: options.clock.clock } : {}),
  })
  const fatal: Array<[string, Error]> = []
  const hooks = new PostStartHooks({ onFatal: (name, err) => fatal.push([name, err]) })
  let finish!: () => void
  const demoRan = new Promise<void>((resolve) => (finish = resolve))
  const log = new FakeCheck('log')
  const store = new FakeCheck('store', 'store')
  registry.addToAll(ping)
  registry.addToAll(log)
  registry.addToAll(store)
  registry.addBootSequenceCheck(hooks.add('demo', () => demoRan))
  registry.addReadyOnly(shutdownCheck(signals))
  const logs: Array<[number, string]> = []
  const handlers = healthHandlers(registry, { signals, log: (level, message) => logs.push([level, message]) })
  const started = hooks.startAll()
  const finishDemo = async (): Promise<void> => {
    finish()
    await started
  }
  if (options.hookFinished !== false) await finishDemo()
  const server = await startServer(handlers)
  return {
    signals,
    registry,
    hooks,
    log,
    store,
    handlers,
    logs,
    fatal,
    finishDemo,
    server,
    get: (path, method) => server.get(path, method),
    close: () => server.close(),
  }
}

export async function waitFor(condition: () => boolean, what: string, timeoutMs = 2000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 2))
  }
}
