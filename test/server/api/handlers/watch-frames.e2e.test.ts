/**
 * Shared watch serialization (issue 18 item 3): changes fanned out by the watch cache are
 * decoded once and serialized once per format, and every watcher still gets exactly its own
 * stream: JSON and protobuf, label and field selectors (an update that leaves a selector is a
 * DELETED for that watcher only), bookmarks, and the initial events of sendInitialEvents.
 */
import assert from 'node:assert/strict'
import { request } from 'node:https'
import { loadProtobufCodec } from '../../../../src/core/protobuf/index.js'
import { ApiServer } from '../../../support/api-server.js'
import { describeEachStore } from '../../../support/stores.js'

const CM = '/api/v1/namespaces/watch-frames/configmaps'
const json = { 'content-type': 'application/json' }

interface Event {
  type: string
  object: { kind?: string; metadata?: { name?: string; resourceVersion?: string; labels?: Record<string, string>; annotations?: Record<string, string> } }
}

/** A watch the server ends itself after `timeoutSeconds`; resolves with the raw body and its content type. */
function watch(server: ApiServer, query: string, accept = 'application/json'): Promise<{ contentType: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, path: `${CM}?watch=true&timeoutSeconds=4&${query}`, headers: { accept }, agent: false, rejectUnauthorized: false, ...server.tlsClient() },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ contentType: String(res.headers['content-type']), body: Buffer.concat(chunks) }))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end()
  })
}

const lines = (body: Buffer): Event[] =>
  body
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Event)
const summary = (events: Event[]) => events.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type} ${e.object.metadata?.name} ${e.object.metadata?.resourceVersion}`)

describeEachStore('api: watch events serialized once and shared by every watcher (end to end)', 'watch-frames', function (store) {
  this.timeout(120_000)
  let server: ApiServer

  before(async function () {
    this.timeout(60_000)
    server = await ApiServer.start({ args: store.args, waitFor: 'ready' })
    const ns = await server.get('/api/v1/namespaces', json, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'watch-frames' } }))
    assert.equal(ns.status, 201, ns.body)
  })
  after(async () => {
    await server?.stop()
  })

  it('gives each watcher its own events in its own format', async () => {
    const pre = await server.get(CM, json, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pre' } }))
    assert.equal(pre.status, 201, pre.body)
    const rv = (JSON.parse(pre.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion
    const from = `resourceVersion=${rv}`
    const watching = {
      plain: watch(server, from),
      again: watch(server, from),
      protobuf: watch(server, from, 'application/vnd.kubernetes.protobuf;stream=watch'),
      labels: watch(server, `${from}&labelSelector=team%3Da`),
      fields: watch(server, `${from}&fieldSelector=metadata.name%3Dcm-1`),
      bookmarks: watch(server, `${from}&allowWatchBookmarks=true`),
      initial: watch(server, 'sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true'),
    }
    // Give the watches time to be registered before the changes.
    await new Promise((r) => setTimeout(r, 1000))
    const rvOf = (body: string) => (JSON.parse(body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion
    const c1 = await server.get(CM, json, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-1', labels: { team: 'a' } } }))
    assert.equal(c1.status, 201, c1.body)
    const c2 = await server.get(CM, json, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-2', labels: { team: 'b' } } }))
    assert.equal(c2.status, 201, c2.body)
    const u1 = await server.get(`${CM}/cm-1`, { 'content-type': 'application/merge-patch+json' }, 'PATCH', JSON.stringify({ metadata: { labels: { team: 'b' } } }))
    assert.equal(u1.status, 200, u1.body)
    const d2 = await server.get(`${CM}/cm-2`, json, 'DELETE')
    assert.equal(d2.status, 200, d2.body)
    const [r1, r2, r3] = [rvOf(c1.body), rvOf(c2.body), rvOf(u1.body)]

    const plain = await watching.plain
    // The deletion answers a Status: its revision is the one the watch reports, after the update's.
    const r4 = lines(plain.body).at(-1)?.object.metadata?.resourceVersion
    assert.ok(Number(r4) > Number(r3), `the deletion's revision ${r4} follows ${r3}`)
    const all = [`ADDED cm-1 ${r1}`, `ADDED cm-2 ${r2}`, `MODIFIED cm-1 ${r3}`, `DELETED cm-2 ${r4}`]
    const again = await watching.again
    assert.equal(plain.contentType, 'application/json')
    assert.deepEqual(summary(lines(plain.body)), all)
    assert.deepEqual(again.body, plain.body, 'two JSON watchers of the same events get the same bytes')

    const protobuf = await watching.protobuf
    assert.equal(protobuf.contentType, 'application/vnd.kubernetes.protobuf;stream=watch')
    const codec = await loadProtobufCodec()
    const decoded = codec.decodeWatchFrames(protobuf.body) as Event[]
    assert.deepEqual(summary(decoded), all)
    assert.deepEqual(decoded.map((e) => e.object.metadata?.labels), lines(plain.body).map((e) => e.object.metadata?.labels))

    // cm-1 leaves the selector team=a: a DELETED for this watcher only; cm-2 never matched.
    assert.deepEqual(summary(lines((await watching.labels).body)), [`ADDED cm-1 ${r1}`, `DELETED cm-1 ${r3}`])
    assert.deepEqual(summary(lines((await watching.fields).body)), [`ADDED cm-1 ${r1}`, `MODIFIED cm-1 ${r3}`])
    assert.deepEqual(summary(lines((await watching.bookmarks).body)), all)

    const initial = lines((await watching.initial).body)
    const end = initial.findIndex((e) => e.type === 'BOOKMARK')
    assert.ok(end > 0, 'the initial events end with a BOOKMARK')
    assert.equal(initial[end]!.object.metadata?.annotations?.['k8s.io/initial-events-end'], 'true')
    assert.deepEqual(
      initial.slice(0, end).map((e) => `${e.type} ${e.object.metadata?.name}`),
      ['ADDED pre'],
    )
    assert.deepEqual(summary(initial.slice(end + 1)), all)
  })
})
