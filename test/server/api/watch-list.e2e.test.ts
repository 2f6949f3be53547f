/**
 * The reference's WatchList (1.32, WatchList on): `sendInitialEvents` with
 * `resourceVersionMatch=NotOlderThan` over raw HTTP against the built server, on each store.
 * Expected messages are the reference's ListOptions validation (validateWatchOptions) and its
 * `k8s.io/initial-events-end` bookmark annotation.
 */
import assert from 'node:assert/strict'
import { request as httpsRequest } from 'node:https'
import { loadProtobufCodec } from '../../../src/core/protobuf/index.js'
import { ApiServer } from '../../support/api-server.js'
import { describeEachStore } from '../../support/stores.js'

interface Event {
  type: string
  object: { kind?: string; apiVersion?: string; metadata: { name?: string; resourceVersion: string; annotations?: Record<string, string> } }
}

const NS = '/api/v1/namespaces/wl/configmaps'
const JSON_BODY = { 'Content-Type': 'application/json' }
const END = { 'k8s.io/initial-events-end': 'true' }

describeEachStore('api: watch with sendInitialEvents (WatchList, end to end)', 'watch-list-e2e', function (store) {
  this.timeout(60_000)
  let server: ApiServer

  before(async function () {
    server = await ApiServer.start({ waitFor: 'ready', args: store.args })
    const ns = await server.get('/api/v1/namespaces', JSON_BODY, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wl' } }))
    assert.equal(ns.status, 201, ns.body)
  })
  after(async () => {
    await server?.stop()
  })

  const create = async (name: string): Promise<string> => {
    const r = await server.get(NS, JSON_BODY, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }))
    assert.equal(r.status, 201, r.body)
    return (JSON.parse(r.body) as Event['object']).metadata.resourceVersion
  }
  /**
   * The events of a watch, read until `enough` holds for them (then `settleMs` longer, to see
   * that nothing else comes); `during` runs once the stream is open.
   */
  const watch = (query: string, enough: (events: Event[]) => boolean, during?: () => Promise<unknown>, settleMs = 0): Promise<Event[]> =>
    new Promise((resolve, reject) => {
      const events: Event[] = []
      let buffered = ''
      let finished = false
      const req = httpsRequest({ host: '127.0.0.1', port: server.port, path: `${NS}?watch=true&timeoutSeconds=10&${query}`, rejectUnauthorized: false, agent: false, ...server.tlsClient() })
      const finish = () => {
        if (finished) return
        finished = true
        setTimeout(() => {
          req.destroy()
          resolve(events)
        }, settleMs)
      }
      req.on('response', (res) => {
        if (res.statusCode !== 200) return reject(new Error(`watch ${query}: ${res.statusCode}`))
        res.on('data', (chunk: Buffer) => {
          buffered += chunk.toString()
          let nl: number
          while ((nl = buffered.indexOf('\n')) >= 0) {
            events.push(JSON.parse(buffered.slice(0, nl)) as Event)
            buffered = buffered.slice(nl + 1)
          }
          if (enough(events)) finish()
        })
        res.on('end', finish)
        if (during) during().catch(reject)
      })
      req.on('error', (err) => (finished ? undefined : reject(err)))
      req.end()
    })
  const count = (n: number) => (events: Event[]) => events.length >= n
  const SETTLE_MS = 300
  const summary = (events: Event[]) => events.map((e) => [e.type, e.object.metadata.name ?? e.object.metadata.annotations ?? null])
  const invalid = async (query: string) => {
    const r = await server.get(`${NS}?watch=true&${query}`)
    assert.equal(r.status, 422, r.body)
    return JSON.parse(r.body) as { reason: string; message: string; details: Record<string, unknown> }
  }

  it('lists refuse sendInitialEvents and bad resourceVersionMatch combinations with the same 422', async () => {
    const listInvalid = async (query: string) => {
      const r = await server.get(`${NS}?${query}`)
      assert.equal(r.status, 422, r.body)
      return (JSON.parse(r.body) as { message: string }).message
    }
    assert.equal(await listInvalid('sendInitialEvents=true'), 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list')
    assert.equal(
      await listInvalid('resourceVersionMatch=Exact&resourceVersion=0'),
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    )
    assert.equal(
      await listInvalid('resourceVersionMatch=Newest'),
      'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""]',
    )
  })

  it('rejects the combinations the reference forbids, with its 422 ListOptions messages', async () => {
    const noMatch = await invalid('sendInitialEvents=true')
    assert.equal(noMatch.reason, 'Invalid')
    assert.equal(noMatch.message, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan')
    assert.deepEqual(noMatch.details, {
      group: 'meta.k8s.io',
      kind: 'ListOptions',
      causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan', field: 'resourceVersionMatch' }],
    })
    assert.equal(
      (await invalid('sendInitialEvents=false&resourceVersion=1')).message,
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    )
    assert.equal(
      (await invalid('sendInitialEvents=true&resourceVersionMatch=Exact&allowWatchBookmarks=true')).message,
      'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
    )
    assert.equal(
      (await invalid('resourceVersion=1&resourceVersionMatch=NotOlderThan')).message,
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    )
    assert.equal(
      (await invalid('sendInitialEvents=true&resourceVersionMatch=NotOlderThan&continue=abc')).message,
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided',
    )
  })

  it('sendInitialEvents=true: ADDED for the current state, the initial-events-end BOOKMARK, then the changes', async () => {
    await create('a')
    const rvB = await create('b')
    const events = await watch('sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true', count(4), () => create('c'), SETTLE_MS)
    assert.deepEqual(summary(events), [['ADDED', 'a'], ['ADDED', 'b'], ['BOOKMARK', END], ['ADDED', 'c']])
    const bookmark = events[2]!.object
    assert.deepEqual(Object.keys(bookmark).sort(), ['apiVersion', 'kind', 'metadata'])
    assert.equal(bookmark.kind, 'ConfigMap')
    assert.equal(bookmark.apiVersion, 'v1')
    assert.ok(Number(bookmark.metadata.resourceVersion) >= Number(rvB), 'the bookmark is not older than the state sent')
    assert.ok(Number(events[3]!.object.metadata.resourceVersion) > Number(bookmark.metadata.resourceVersion))
  })

  it('sendInitialEvents=true from a resourceVersion: the current state, not older than it', async () => {
    const rvA = JSON.parse((await server.get(`${NS}/a`)).body).metadata.resourceVersion as string
    const events = await watch(`sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=${rvA}`, count(4), undefined, SETTLE_MS)
    assert.deepEqual(summary(events), [['ADDED', 'a'], ['ADDED', 'b'], ['ADDED', 'c'], ['BOOKMARK', END]])
  })

  it('sendInitialEvents=true from a resourceVersion the store has not reached: an ERROR event (504 Timeout) in the stream', async () => {
    const current = Number(JSON.parse((await server.get(NS)).body).metadata.resourceVersion)
    const events = await watch(`sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=${current + 1000}`, count(1))
    assert.equal(events.length, 1)
    assert.equal(events[0]!.type, 'ERROR')
    const status = events[0]!.object as unknown as { kind: string; code: number; reason: string; message: string; details: unknown }
    assert.deepEqual([status.kind, status.code, status.reason], ['Status', 504, 'Timeout'])
    // storage/errors.go NewTooLargeResourceVersionError, as the cacher's watch sends it.
    assert.match(status.message, new RegExp(`^Timeout: Too large resource version: ${current + 1000}, current: \\d+$`))
    assert.deepEqual(status.details, { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 })
  })

  it('the initial-events-end BOOKMARK in a protobuf watch stream', async () => {
    const body = await new Promise<Buffer>((resolve, reject) => {
      const path = `${NS}?watch=true&timeoutSeconds=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`
      const req = httpsRequest({ host: '127.0.0.1', port: server.port, path, headers: { Accept: 'application/vnd.kubernetes.protobuf' }, rejectUnauthorized: false, agent: false, ...server.tlsClient() }, (res) => {
        assert.equal(res.headers['content-type'], 'application/vnd.kubernetes.protobuf;stream=watch')
        const chunks: Buffer[] = []
        res.on('data', (d: Buffer) => chunks.push(d))
        res.on('end', () => resolve(Buffer.concat(chunks)))
        res.on('error', reject)
      })
      req.on('error', reject)
      req.end()
    })
    const frames = (await loadProtobufCodec()).decodeWatchFrames(body)
    assert.deepEqual(
      frames.map((f) => f.type),
      ['ADDED', 'ADDED', 'ADDED', 'BOOKMARK'],
    )
    const bookmark = frames[3]!.object as Event['object']
    assert.equal(bookmark.kind, 'ConfigMap')
    assert.deepEqual(bookmark.metadata.annotations, END)
  })

  it('sendInitialEvents=true without allowWatchBookmarks: the initial events without the bookmark (not validated, as the reference)', async () => {
    const events = await watch('sendInitialEvents=true&resourceVersionMatch=NotOlderThan', count(3), undefined, SETTLE_MS)
    assert.deepEqual(summary(events), [['ADDED', 'a'], ['ADDED', 'b'], ['ADDED', 'c']])
  })

  it('sendInitialEvents=false: only changes after the resourceVersion, or after now without one', async () => {
    const rvA = JSON.parse((await server.get(`${NS}/a`)).body).metadata.resourceVersion as string
    const fromA = await watch(`sendInitialEvents=false&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=${rvA}`, count(2), undefined, SETTLE_MS)
    assert.deepEqual(summary(fromA), [['ADDED', 'b'], ['ADDED', 'c']])
    for (const rv of ['', '0']) {
      const name = `now${rv}`
      const fromNow = await watch(`sendInitialEvents=false&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=${rv}`, count(1), () => create(name), SETTLE_MS)
      assert.deepEqual(summary(fromNow), [['ADDED', name]])
    }
  })

  it('a watch from "" or "0" with neither option is defaulted to sendInitialEvents (the bookmark when allowed); one from a resourceVersion is not', async () => {
    const bookmarked = (events: Event[]) => events.some((e) => e.type === 'BOOKMARK')
    const plain = await watch('allowWatchBookmarks=true', bookmarked)
    assert.deepEqual(summary(plain).slice(-1), [['BOOKMARK', END]])
    assert.ok(plain.slice(0, -1).every((e) => e.type === 'ADDED'))
    const zero = await watch('allowWatchBookmarks=true&resourceVersion=0', bookmarked)
    assert.deepEqual(summary(zero).slice(-1), [['BOOKMARK', END]])
    assert.deepEqual(summary(await watch('', count(plain.length - 1), undefined, SETTLE_MS)).map(([t]) => t), plain.slice(0, -1).map(() => 'ADDED'))
    const rvA = JSON.parse((await server.get(`${NS}/a`)).body).metadata.resourceVersion as string
    const legacy = await watch(`allowWatchBookmarks=true&resourceVersion=${rvA}`, count(4), undefined, SETTLE_MS)
    assert.ok(legacy.every((e) => e.type !== 'BOOKMARK' || e.object.metadata.annotations === undefined), JSON.stringify(legacy))
    assert.deepEqual(legacy.filter((e) => e.type !== 'BOOKMARK').map((e) => e.object.metadata.name), ['b', 'c', 'now', 'now0'])
  })
})
