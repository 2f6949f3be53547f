/**
 * The fuzz suite of issue 13: at least 1,000 seeded malformed requests of every hostile kind
 * the reference bounds, against the built server on both stores. Every answer must come
 * within 5 s, none may be a 5xx, every error must be a Status carrying the reference's code,
 * /livez must answer throughout, and the server's resident memory must stay bounded.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { connect as http2Connect } from 'node:http2'
import { Agent, request as httpsRequest } from 'node:https'
import { ApiServer } from '../support/api-server.js'
import { describeEachStore } from '../support/stores.js'
import { crontabCrd } from '../support/crontab-crd.js'
import { type HostileRequest, TARGETS, hostileRequests } from './fuzz/hostile-requests.js'

const SEED = Number(process.env.FUZZ_SEED ?? '') || 0x13
const COUNT = 1000
const CONCURRENCY = 6
const HANG_MS = 5000
/** Generous: an idle server is about 150 MB; the aliasing bombs alone took 2 GB before. */
const RSS_BOUND_MB = 700

interface Answer {
  status: number
  contentType: string
  body: string
  headers?: unknown
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
  return kb / 1024
}

/**
 * One request over a kept-alive HTTP/1.1 connection. A connection the server closed as idle
 * just when it was reused fails with ECONNRESET before anything was sent: Node's documented
 * race, retried once on a fresh connection.
 */
async function send1(server: ApiServer, agent: Agent, r: HostileRequest): Promise<Answer> {
  try {
    return await send1Once(server, agent, r)
  } catch (err) {
    if ((err as { reusedSocket?: boolean }).reusedSocket && (err as NodeJS.ErrnoException).code === 'ECONNRESET') return send1Once(server, agent, r)
    throw err
  }
}

function send1Once(server: ApiServer, agent: Agent, r: HostileRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...r.headers }
    if (r.body) headers['Content-Length'] = r.body.length
    const req = httpsRequest({ host: '127.0.0.1', port: server.port, path: r.path, method: r.method, headers, rejectUnauthorized: false, ...server.tlsClient(), agent }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (d: Buffer) => chunks.push(d))
      res.on('end', () => resolve({ status: res.statusCode!, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }))
      res.on('error', reject)
    })
    req.on('error', (err) => reject(Object.assign(err, { reusedSocket: req.reusedSocket })))
    req.end(r.body)
  })
}

function send2(server: ApiServer, r: HostileRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const session = http2Connect(`https://127.0.0.1:${server.port}`, { rejectUnauthorized: false, ...server.tlsClient() })
    session.on('error', reject)
    const stream = session.request({ ':method': r.method, ':path': r.path, ...r.headers })
    const chunks: Buffer[] = []
    let status = 0
    let contentType = ''
    stream.on('response', (h) => {
      status = Number(h[':status'])
      contentType = String(h['content-type'] ?? '')
    })
    stream.on('data', (d: Buffer) => chunks.push(d))
    stream.on('close', () => {
      session.close()
      if (status === 0) reject(new Error(`stream closed without an answer (code ${stream.rstCode})`))
      else resolve({ status, contentType, body: Buffer.concat(chunks).toString('utf8') })
    })
    stream.on('error', () => undefined)
    stream.end(r.body)
  })
}

function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms)
    }),
  ])
}

describeEachStore('fuzz: hostile requests', 'fuzz', function (store) {
  this.timeout(120_000)
  let server: ApiServer
  let agent: Agent

  before(async function () {
    this.timeout(60_000)
    server = await ApiServer.start({ args: store.args, waitFor: 'ready' })
    agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY })
    const post = async (path: string, body: unknown) => {
      const r = await server.get(path, { 'Content-Type': 'application/json' }, 'POST', JSON.stringify(body))
      if (r.status !== 201 && r.status !== 409) throw new Error(`setup ${path}: ${r.status} ${r.body}`)
    }
    await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: TARGETS.namespace } })
    const crd = crontabCrd({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true })
    await post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: crd.metadata, spec: crd.spec })
    await server.waitUntil('/apis/stable.example.com/v1', 200)
    await post(TARGETS.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: TARGETS.existingConfigMap }, data: { a: 'b' } })
    await post(TARGETS.crontabs, { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: TARGETS.existingCronTab }, spec: { a: 1 } })
    await post('/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'elsewhere' }, stringData: { k: 'v' } })
  })

  after(async () => {
    agent?.destroy()
    await server?.stop()
  })

  it(`answers ${COUNT} seeded malformed requests with the reference's 4xx Status, no 5xx, no hang, /livez throughout, bounded memory`, async () => {
    const requests = hostileRequests(SEED, COUNT)
    const problems: string[] = []
    const seen = new Map<string, number>()
    let peakRss = 0
    let next = 0
    const worker = async () => {
      while (next < requests.length) {
        const i = next++
        const r = requests[i]!
        seen.set(r.kind, (seen.get(r.kind) ?? 0) + 1)
        const what = `#${i} ${r.kind} ${r.method} ${r.path.slice(0, 120)}`
        let answer: Answer
        try {
          answer = await withDeadline(r.http2 ? send2(server, r) : send1(server, agent, r), HANG_MS, what)
        } catch (err) {
          problems.push(`${what}: ${(err as Error).message}`)
          continue
        }
        if (answer.status >= 500 && !(answer.status === 504 && r.expect.includes(504))) problems.push(`${what}: ${answer.status} ${answer.body.slice(0, 300)}`)
        else if (!r.expect.includes(answer.status)) problems.push(`${what}: ${answer.status}, expected ${r.expect.join('/')}: ${answer.body.slice(0, 300)}`)
        if (answer.status >= 400 && answer.contentType.startsWith('application/json')) {
          const status = JSON.parse(answer.body) as { kind?: string; code?: number; message?: string }
          if (status.kind !== 'Status' || status.code !== answer.status) problems.push(`${what}: not a Status with code ${answer.status}: ${answer.body.slice(0, 200)}`)
          if ((status.message ?? '').length > 64 * 1024) problems.push(`${what}: the error message echoes ${status.message!.length} characters`)
        } else if (answer.status >= 400 && answer.status !== 404 && answer.status !== 405) {
          problems.push(`${what}: ${answer.status} is not a Status (${answer.contentType}): ${answer.body.slice(0, 200)} ${JSON.stringify(answer.headers ?? {})}`)
        }
        if (i % 50 === 0) {
          const live = await withDeadline(server.get('/livez'), HANG_MS, `/livez after ${what}`).catch((err: Error) => ({ status: 0, body: err.message }))
          if (live.status !== 200) problems.push(`/livez after ${what}: ${live.status} ${live.body}`)
          peakRss = Math.max(peakRss, rssMb(server.pid))
        }
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, worker))
    peakRss = Math.max(peakRss, rssMb(server.pid))
    assert.deepEqual(problems.slice(0, 40), [], `${problems.length} problems`)
    assert.ok(seen.size > 15, [...seen.keys()].join(', '))
    assert.ok(peakRss < RSS_BOUND_MB, `peak RSS ${peakRss.toFixed(0)} MB`)
    // Nothing of another namespace leaked through a dot segment.
    const dotted = await server.get('/api/v1/namespaces/%2e%2e/secrets')
    assert.equal(dotted.status, 200, dotted.body)
    assert.deepEqual((JSON.parse(dotted.body) as { items: unknown[] }).items, [])
  })
})
