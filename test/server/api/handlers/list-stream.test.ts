/**
 * Lists written while they are read (issue 13 item 7): in JSON, YAML and protobuf, as
 * `<Kind>List`, PartialObjectMetadataList and Table, the streamed bytes are exactly those of the
 * whole-list encoder (writeObject) for 0, 1 and many items; protobuf falls back as writeObject
 * does; a client that stops reading stops the reading of the list; a list that changes between
 * the two protobuf passes is cut off, never answered wrong.
 */
import assert from 'node:assert/strict'
import { type IncomingMessage, type Server, type ServerResponse, createServer, get } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type ListSource, PROTOBUF_KEPT_BYTES, mapSource, sourceOfItems, writeListStream } from '../../../../src/server/api/handlers/list-stream.js'
import { type Format, type Output, partialObjectMetadata, writeObject } from '../../../../src/server/api/negotiation.js'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import { DEFAULT_COLUMNS, tableHead, tableRow, toTable } from '../../../../src/server/api/table.js'
import type { Response } from '../../../../src/server/http/types.js'
import { loadProtobufCodec } from '../../../../src/core/protobuf/index.js'
import { listItemWithResourceVersion } from '../../../../src/core/protobuf/resource-version.js'

type Handler = (res: Response) => Promise<void>

interface Reply {
  status: number
  contentType: string
  body: Buffer
  /** The response was cut off before its end. */
  broken: boolean
}

let server: Server
let handler: Handler

before(async () => {
  server = createServer((_req: IncomingMessage, res: ServerResponse) => {
    handler(res).catch(() => {
      if (!res.headersSent) {
        res.statusCode = 500
        res.end('failed')
      } else res.destroy()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
})
after(() => new Promise<void>((resolve) => server.close(() => resolve())))

function fetch(h: Handler): Promise<Reply> {
  handler = h
  const { port } = server.address() as AddressInfo
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      const done = (broken: boolean) => resolve({ status: res.statusCode!, contentType: String(res.headers['content-type']), body: Buffer.concat(chunks), broken })
      res.on('end', () => done(false))
      res.on('aborted', () => done(true))
      res.on('error', () => done(true))
    }).on('error', reject)
  })
}

function configMap(i: number, bytes = 40): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${String(i).padStart(4, '0')}`, namespace: 'default', uid: `uid-${i}`, resourceVersion: String(100 + i), creationTimestamp: '2026-11-26T10:00:00Z', labels: { n: String(i), 'yes': 'no' } },
    data: {
      filler: 'x'.repeat(bytes),
      multi: 'line one\nline two\n\n  indented\nlast',
      trailing: 'ends with a newline\n',
      leading: '  starts with spaces\nand goes on',
      unicode: 'ключ – 鍵 – 🔑',
      quoted: 'yes',
      empty: '',
      doc: '--- not a document',
    },
  }
}

const many = (n: number, bytes?: number) => Array.from({ length: n }, (_, i) => configMap(i, bytes))
const META = { resourceVersion: '4242', continue: 'token', remainingItemCount: 7 }

/** The streamed answer and the whole-built one, for the same list. */
async function both(formats: Format[], output: Output, envelope: Record<string, unknown>, key: string, items: unknown[], whole: unknown, source?: ListSource) {
  const streamed = await fetch((res) => writeListStream(res, formats, envelope, key, source ?? sourceOfItems(items)))
  const built = await fetch((res) => writeObject(res, 200, whole, output))
  return { streamed, built }
}

function assertSame(streamed: Reply, built: Reply, what: string) {
  assert.equal(streamed.broken, false, `${what}: streamed answer cut off`)
  assert.equal(streamed.status, built.status, what)
  assert.equal(streamed.contentType, built.contentType, what)
  assert.equal(streamed.body.length, built.body.length, `${what}: ${streamed.body.length} bytes, whole ${built.body.length}`)
  assert.ok(streamed.body.equals(built.body), `${what}: bytes differ`)
}

describe('lists written as they are read: the bytes of the whole list', function () {
  this.timeout(60_000)
  const counts = [0, 1, 250]

  for (const format of ['json', 'yaml', 'protobuf'] as const) {
    it(`<Kind>List in ${format}, for 0, 1 and many items, with list metadata`, async () => {
      for (const n of counts) {
        const items = many(n)
        const envelope = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: n === 1 ? { resourceVersion: '1' } : META }
        const { streamed, built } = await both([format, 'json'], { kind: format, formats: [format, 'json'] }, envelope, 'items', items, { ...envelope, items })
        assertSame(streamed, built, `${format}, ${n} items`)
        if (format === 'protobuf') assert.equal(streamed.contentType, 'application/vnd.kubernetes.protobuf')
      }
    })

    it(`PartialObjectMetadataList in ${format}`, async () => {
      for (const n of counts) {
        const items = many(n)
        const apiVersion = 'meta.k8s.io/v1'
        const envelope = { kind: 'PartialObjectMetadataList', apiVersion, metadata: META }
        const output: Output = { kind: 'partial', apiVersion, list: true, formats: [format, 'json'] }
        const source = mapSource(sourceOfItems(items), (o) => partialObjectMetadata(o, apiVersion))
        const { streamed, built } = await both([format, 'json'], output, envelope, 'items', items, { kind: 'ConfigMapList', apiVersion: 'v1', metadata: META, items }, source)
        assertSame(streamed, built, `partial ${format}, ${n} items`)
      }
    })
  }

  for (const format of ['json', 'yaml'] as const) {
    it(`Table in ${format}, with metadata rows and whole objects`, async () => {
      const now = Date.parse('2026-11-26T12:00:00Z')
      for (const include of ['Metadata', 'Object', 'None'] as const) {
        for (const n of counts) {
          const items = many(n)
          const options = { apiVersion: 'meta.k8s.io/v1', include, now }
          const source = mapSource(sourceOfItems(items), (o) => tableRow(DEFAULT_COLUMNS, o as KubeObject, now, include))
          const { streamed, built } = await both([format], { kind: 'table', apiVersion: 'meta.k8s.io/v1', format }, tableHead(DEFAULT_COLUMNS, META, options), 'rows', items, toTable(DEFAULT_COLUMNS, items, META, options), source)
          assertSame(streamed, built, `table ${format} ${include}, ${n} items`)
        }
      }
    })
  }

  it('a protobuf list larger than what the sizing pass keeps is encoded again while written, to the same bytes', async () => {
    const items = many(200, 10_000)
    assert.ok(items.length * 10_000 > PROTOBUF_KEPT_BYTES)
    let opened = 0
    const inner = sourceOfItems(items)
    const source: ListSource = { open: () => (opened++, inner.open()) }
    const envelope = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: META }
    const { streamed, built } = await both(['protobuf'], { kind: 'protobuf' }, envelope, 'items', items, { ...envelope, items }, source)
    assertSame(streamed, built, 'large protobuf list')
    assert.equal(opened, 2, 'read twice: sized, then written')
  })

  it('protobuf items given as their stored bytes (spliced) among decoded ones: the same bytes, small and large lists', async () => {
    const codec = await loadProtobufCodec()
    for (const [n, bytes] of [[250, 40], [200, 10_000]] as const) {
      const items = many(n, bytes)
      const asStored = items.map((item, i) => {
        if (i % 3 === 2) return item
        const { resourceVersion, ...metadata } = item.metadata
        return listItemWithResourceVersion(codec.encode({ ...item, metadata }), { apiVersion: 'v1', kind: 'ConfigMap' }, resourceVersion!)!
      })
      assert.ok(asStored.filter(Buffer.isBuffer).length > n / 2, 'items spliced')
      let openedForProtobuf = 0
      const source: ListSource = { open: () => assert.fail('the protobuf writer read the decoded items'), openProtobuf: () => (openedForProtobuf++, sourceOfItems(asStored).open()) }
      const envelope = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: META }
      const { streamed, built } = await both(['protobuf'], { kind: 'protobuf' }, envelope, 'items', items, { ...envelope, items }, source)
      assertSame(streamed, built, `${n} items of ${bytes} bytes from stored bytes`)
      assert.equal(openedForProtobuf, bytes > 1000 ? 2 : 1)
    }
  })

  it('a list protobuf cannot encode falls back to the next format, as the whole-list encoder does', async () => {
    // A Service whose port is a string: stored as JSON, it has no protobuf form.
    const items = [{ apiVersion: 'v1', kind: 'Service', metadata: { name: 'a' }, spec: { ports: [{ port: 'eighty' }] } }]
    const envelope = { kind: 'ServiceList', apiVersion: 'v1', metadata: META }
    const { streamed, built } = await both(['protobuf', 'yaml', 'json'], { kind: 'protobuf', formats: ['protobuf', 'yaml', 'json'] }, envelope, 'items', items, { ...envelope, items })
    assert.equal(built.contentType, 'application/yaml')
    assertSame(streamed, built, 'fallback')
  })

  it('a list whose second read differs from the first is cut off, never answered with wrong sizes', async () => {
    const items = many(200, 10_000)
    let opened = 0
    const source: ListSource = { open: () => sourceOfItems(opened++ === 0 ? items : items.slice(1)).open() }
    const reply = await fetch((res) => writeListStream(res, ['protobuf'], { kind: 'ConfigMapList', apiVersion: 'v1', metadata: META }, 'items', source))
    assert.equal(reply.broken, true)
  })
})

describe('lists written as they are read: memory follows the client', function () {
  this.timeout(60_000)

  for (const format of ['json', 'yaml', 'protobuf'] as const) {
    it(`${format}: a client that stops reading stops the reading of the list; one that reads gets all of it`, async () => {
      const total = 5000
      const bytes = 10_000
      let produced = 0
      const source: ListSource = {
        open: async () =>
          (async function* slices() {
            for (let i = 0; i < total; i += 20) {
              produced += 20
              yield Array.from({ length: 20 }, (_, k) => configMap(i + k, bytes))
            }
          })(),
      }
      handler = (res) => writeListStream(res, [format], { kind: 'ConfigMapList', apiVersion: 'v1', metadata: META }, 'items', source)
      const { port } = server.address() as AddressInfo
      const received = await new Promise<{ producedWhilePaused: number; body: number }>((resolve, reject) => {
        get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
          res.pause()
          let size = 0
          setTimeout(() => {
            const producedWhilePaused = produced
            res.on('data', (c: Buffer) => (size += c.length))
            res.on('end', () => resolve({ producedWhilePaused, body: size }))
            res.resume()
          }, 1500)
        }).on('error', reject)
      })
      // A protobuf list is sized first (every item read once), then written at the client's pace.
      const beforeWriting = format === 'protobuf' ? total : 0
      const paused = received.producedWhilePaused - beforeWriting
      // 50 MB of items in all; while the client does not read, at most a few MB are encoded
      // (the slice, the connection's buffers).
      assert.ok(paused < 1000, `${paused} items read while the client was not reading`)
      assert.ok(received.body > total * bytes, `${received.body} bytes received`)
      assert.equal(produced, format === 'protobuf' ? 2 * total : total)
    })
  }
})
