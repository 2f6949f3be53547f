import assert from 'node:assert/strict'
import { type HealthTransport, probe, waitUntilHealthy } from '../../../src/core/health/probe.js'
import { toJson, toText } from '../../../src/core/health/render.js'
import { exitCodeOf, parseVerboseReport, probePath } from '../../../src/core/health/report.js'

const READY = '[+]ping ok\n[+]log ok\n[+]store ok\n[+]shutdown ok\nhealthz check passed\n'
const FAILED = '[+]ping ok\n[+]log ok\n[-]store failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n'

function transport(replies: Array<{ status: number; body: string } | Error>): HealthTransport & { paths: string[] } {
  const paths: string[] = []
  return {
    paths,
    async get(path) {
      paths.push(path)
      const next = replies.length > 1 ? replies.shift()! : replies[0]
      if (next instanceof Error) throw next
      return { ...next, latencyMs: 1.5 }
    },
  }
}

describe('core: health probe and report', () => {
  it('parses a verbose report into check states, excluded ones and warnings included', () => {
    const body =
      '[+]ping ok\n[+]log excluded: ok\n[-]store failed: reason withheld\n[+]store-override-0 excluded with store: ok\n' +
      'warn: some health checks cannot be excluded: no matches for "x"\nreadyz check failed\n'
    assert.deepEqual(parseVerboseReport(body), {
      checks: [
        { name: 'ping', state: 'ok' },
        { name: 'log', state: 'excluded' },
        { name: 'store', state: 'failed' },
        { name: 'store-override-0', state: 'excluded' },
      ],
      warnings: ['some health checks cannot be excluded: no matches for "x"'],
    })
  })

  it('builds probe paths: verbose with excludes, or one check with its slashes kept', () => {
    assert.equal(probePath('readyz', { exclude: ['store', 'poststarthook/x y'] }), '/readyz?verbose&exclude=store&exclude=poststarthook%2Fx%20y')
    assert.equal(probePath('livez', { check: 'poststarthook/rbac/bootstrap-roles' }), '/livez/poststarthook/rbac/bootstrap-roles')
  })

  it('a 200 is healthy (exit 0), a 500 unhealthy (exit 1), no answer unreachable (exit 3)', async () => {
    const ok = await probe(transport([{ status: 200, body: READY }]), { endpoint: 'readyz' })
    assert.equal(ok.verdict, 'healthy')
    assert.equal(exitCodeOf(ok.verdict), 0)
    assert.equal(ok.checks.length, 4)
    const bad = await probe(transport([{ status: 500, body: FAILED }]), { endpoint: 'readyz' })
    assert.equal(bad.verdict, 'unhealthy')
    assert.equal(exitCodeOf(bad.verdict), 1)
    const down = await probe(transport([new Error('Unable to connect to the server: dial tcp 127.0.0.1:1: connect: connection refused')]), { endpoint: 'livez' })
    assert.equal(down.verdict, 'unreachable')
    assert.equal(exitCodeOf(down.verdict), 3)
    assert.equal(down.statusCode, undefined)
  })

  it('waits until healthy, polling at the interval', async () => {
    let clock = 0
    const t = transport([{ status: 500, body: FAILED }, { status: 500, body: FAILED }, { status: 200, body: READY }])
    const report = await waitUntilHealthy(t, { endpoint: 'readyz', timeoutMs: 10_000, intervalMs: 1000, now: () => clock, sleep: async (ms) => void (clock += ms) })
    assert.equal(report.verdict, 'healthy')
    assert.equal(t.paths.length, 3)
    assert.equal(clock, 2000)
  })

  it('gives up after the timeout with the last failure, never probing past the deadline', async () => {
    let clock = 0
    const t = transport([{ status: 500, body: FAILED }])
    const report = await waitUntilHealthy(t, { endpoint: 'readyz', timeoutMs: 2500, intervalMs: 1000, now: () => clock, sleep: async (ms) => void (clock += ms) })
    assert.equal(report.verdict, 'unhealthy')
    assert.equal(t.paths.length, 3, 'probes at 0, 1000 and 2000 ms')
    assert.equal(clock, 2500)
  })

  it('renders text and JSON', async () => {
    const bad = await probe(transport([{ status: 500, body: FAILED }]), { endpoint: 'readyz', now: () => 0 })
    assert.equal(toText(bad, false), `${FAILED}readyz: unhealthy (500, 1.5ms): store failed\n`)
    const ok = await probe(transport([{ status: 200, body: READY }]), { endpoint: 'readyz', now: () => 0 })
    assert.equal(toText(ok, false), 'readyz: healthy (200, 1.5ms)\n')
    assert.equal(toText(ok, true), `${READY}readyz: healthy (200, 1.5ms)\n`)
    const json = toJson('https://127.0.0.1:6443', bad)
    assert.deepEqual(
      { ...json, checks: json.checks.map((c) => `${c.name}=${c.state}`) },
      {
        schema: 'client.health.check/v1',
        server: 'https://127.0.0.1:6443',
        endpoint: 'readyz',
        path: '/readyz?verbose',
        statusCode: 500,
        verdict: 'unhealthy',
        exitCode: 1,
        latencyMs: 1.5,
        checks: ['ping=ok', 'log=ok', 'store=failed', 'shutdown=ok'],
        warnings: [],
        error: null,
      },
    )
  })
})
