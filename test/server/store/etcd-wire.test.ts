import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import path from 'node:path'
import protobuf from 'protobufjs'
import {
  decodeRange,
  decodeTxn,
  decodeWatch,
  encodeRange,
  encodeRangeMessage,
  encodeTxnMessage,
  encodeWatchCreate,
  encodeWatchProgress,
} from '../../../src/server/store/etcd-wire.js'

// The messages are checked against protobufjs reading etcd's own .proto files (the copies the
// etcd3 package ships), not against bytes this code produced.
const protoDir = path.join(path.dirname(createRequire(import.meta.url).resolve('etcd3/package.json')), 'proto')
// keepCase: the field names of the .proto files (etcd's snake_case).
const root = new protobuf.Root().loadSync(path.join(protoDir, 'rpc.proto'), { keepCase: true })
const type = (name: string): protobuf.Type => root.lookupType(name)
const RangeRequest = type('etcdserverpb.RangeRequest')
const RangeResponse = type('etcdserverpb.RangeResponse')
const TxnRequest = type('etcdserverpb.TxnRequest')
const TxnResponse = type('etcdserverpb.TxnResponse')
const WatchRequest = type('etcdserverpb.WatchRequest')
const WatchResponse = type('etcdserverpb.WatchResponse')

const b = (s: string): Buffer => Buffer.from(s)

function decoded(t: protobuf.Type, bytes: Buffer): Record<string, unknown> {
  return t.toObject(t.decode(bytes), { longs: String, bytes: String, enums: String, defaults: false, oneofs: false }) as Record<string, unknown>
}

describe('etcd wire messages (Range, Txn)', () => {
  it('encodes range requests as etcd reads them', () => {
    assert.deepEqual(decoded(RangeRequest, encodeRangeMessage({ key: b('/registry/pods/a') })), { key: b('/registry/pods/a').toString('base64') })
    const full = encodeRangeMessage({ key: b('/a/'), rangeEnd: b('/a0'), limit: 500, revision: 2 ** 40 + 3, countOnly: true })
    assert.deepEqual(decoded(RangeRequest, full), {
      key: b('/a/').toString('base64'),
      range_end: b('/a0').toString('base64'),
      limit: '500',
      revision: String(2 ** 40 + 3),
      count_only: true,
    })
    // Byte for byte what protobufjs writes for the same request (fields in number order).
    const expected = RangeRequest.encode(RangeRequest.fromObject({ key: b('/a/'), range_end: b('/a0'), limit: 500, revision: 2 ** 40 + 3, count_only: true })).finish()
    assert.deepEqual(full, Buffer.from(expected))
  })

  it('frames a request for gRPC: uncompressed, big-endian length', () => {
    const framed = encodeRange({ key: b('/k') })
    assert.equal(framed[0], 0)
    assert.equal(framed.readUInt32BE(1), framed.length - 5)
    assert.deepEqual(framed.subarray(5), encodeRangeMessage({ key: b('/k') }))
  })

  it('encodes the create transaction: mod revision equal 0, put with a lease', () => {
    const message = encodeTxnMessage({
      compare: [{ key: b('/registry/cm/a'), modRevision: 0 }],
      success: [{ put: { key: b('/registry/cm/a'), value: b('{"a":1}'), lease: '7587869436378318091' } }],
      failure: [],
    })
    const txn = TxnRequest.decode(message) as unknown as {
      compare: Array<{ result: number; target: number; key: Buffer; target_union?: string; mod_revision: { toString(): string } }>
      success: Array<{ request_put: { key: Buffer; value: Buffer; lease: { toString(): string } } }>
      failure: unknown[]
    }
    assert.equal(txn.compare.length, 1)
    const [compare] = txn.compare
    assert.equal(compare!.result, 0) // EQUAL
    assert.equal(compare!.target, 2) // MOD
    assert.equal(Buffer.from(compare!.key).toString(), '/registry/cm/a')
    // The oneof member is present although zero: etcd compares against mod_revision 0.
    assert.equal(compare!.target_union, 'mod_revision')
    assert.equal(compare!.mod_revision.toString(), '0')
    assert.equal(Buffer.from(txn.success[0]!.request_put.value).toString(), '{"a":1}')
    assert.equal(txn.success[0]!.request_put.lease.toString(), '7587869436378318091')
    assert.deepEqual(txn.failure, [])
  })

  it('encodes update and conditional delete transactions with their failure reads', () => {
    const update = decoded(
      TxnRequest,
      encodeTxnMessage({
        compare: [{ key: b('/k'), modRevision: 41 }],
        success: [{ put: { key: b('/k'), value: b('v'), prevKv: true, lease: 0 } }],
        failure: [{ range: { key: b('/k') } }],
      }),
    )
    assert.deepEqual(update, {
      compare: [{ target: 'Mod', key: b('/k').toString('base64'), mod_revision: '41' }],
      success: [{ request_put: { key: b('/k').toString('base64'), value: b('v').toString('base64'), prev_kv: true } }],
      failure: [{ request_range: { key: b('/k').toString('base64') } }],
    })
    const del = decoded(
      TxnRequest,
      encodeTxnMessage({
        compare: [{ key: b('/k'), modRevision: 7 }],
        success: [{ deleteRange: { key: b('/k'), prevKv: true } }],
        failure: [{ range: { key: b('/k') } }],
      }),
    )
    assert.deepEqual(del.success, [{ request_delete_range: { key: b('/k').toString('base64'), prev_kv: true } }])
  })

  it('refuses a revision that is not a non-negative integer instead of encoding garbage', () => {
    assert.throws(() => encodeRangeMessage({ key: b('/k'), revision: -1 }), RangeError)
    assert.throws(() => encodeRangeMessage({ key: b('/k'), limit: 1.5 }), RangeError)
  })

  it('decodes range responses, skipping the fields it does not read', () => {
    const bytes = RangeResponse.encode(
      RangeResponse.fromObject({
        header: { cluster_id: '14841639068965178418', member_id: '10276657743932975437', revision: 2 ** 40 + 9, raft_term: 3 },
        kvs: [
          { key: b('/registry/a'), create_revision: 5, mod_revision: 2 ** 40 + 9, version: 4, value: b('A'), lease: '7587869436378318091' },
          { key: b('/registry/b'), create_revision: 6, mod_revision: 6, version: 1, value: b('') },
        ],
        more: true,
        count: 12,
      }),
    ).finish()
    const res = decodeRange(Buffer.from(bytes))
    assert.equal(res.revision, 2 ** 40 + 9)
    assert.equal(res.more, true)
    assert.equal(res.count, 12)
    assert.deepEqual(
      res.kvs.map(kv => [kv.key.toString(), kv.value.toString(), kv.createRevision, kv.modRevision]),
      [
        ['/registry/a', 'A', 5, 2 ** 40 + 9],
        ['/registry/b', '', 6, 6],
      ],
    )
    const empty = decodeRange(Buffer.from(RangeResponse.encode(RangeResponse.fromObject({ header: { revision: 3 } })).finish()))
    assert.deepEqual(empty, { revision: 3, kvs: [], more: false, count: 0 })
  })

  it('decodes transaction responses: succeeded, put prev_kv, range and delete results', () => {
    const ok = TxnResponse.encode(
      TxnResponse.fromObject({
        header: { revision: 77 },
        succeeded: true,
        responses: [{ response_put: { header: { revision: 77 }, prev_kv: { key: b('/k'), create_revision: 3, mod_revision: 70, value: b('old') } } }],
      }),
    ).finish()
    const res = decodeTxn(Buffer.from(ok))
    assert.equal(res.succeeded, true)
    assert.equal(res.revision, 77)
    const op = res.responses[0]!
    assert.ok('put' in op)
    assert.equal(op.put.prevKv?.createRevision, 3)
    assert.equal(op.put.prevKv?.value.toString(), 'old')

    const failed = decodeTxn(
      Buffer.from(
        TxnResponse.encode(
          TxnResponse.fromObject({
            header: { revision: 78 },
            succeeded: false,
            responses: [{ response_range: { header: { revision: 78 }, kvs: [{ key: b('/k'), create_revision: 3, mod_revision: 71 }], count: 1 } }],
          }),
        ).finish(),
      ),
    )
    assert.equal(failed.succeeded, false)
    const range = failed.responses[0]!
    assert.ok('range' in range)
    assert.equal(range.range.kvs[0]!.modRevision, 71)

    const deleted = decodeTxn(
      Buffer.from(
        TxnResponse.encode(
          TxnResponse.fromObject({
            header: { revision: 79 },
            succeeded: true,
            responses: [{ response_delete_range: { header: { revision: 79 }, deleted: 1, prev_kvs: [{ key: b('/k'), create_revision: 3, mod_revision: 71, value: b('x') }] } }],
          }),
        ).finish(),
      ),
    )
    const del = deleted.responses[0]!
    assert.ok('deleteRange' in del)
    assert.equal(del.deleteRange.deleted, 1)
    assert.equal(del.deleteRange.prevKvs[0]!.value.toString(), 'x')
  })

  it('rejects truncated messages instead of reading past them', () => {
    const bytes = Buffer.from(RangeResponse.encode(RangeResponse.fromObject({ header: { revision: 3 }, kvs: [{ key: b('/k'), value: b('vvvv') }] })).finish())
    assert.throws(() => decodeRange(bytes.subarray(0, bytes.length - 2)), /truncated/)
  })
})

describe('etcd wire messages (Watch)', () => {
  it('encodes the create request as etcd reads it, in its gRPC frame', () => {
    const framed = encodeWatchCreate({ key: b('/registry/pods/'), rangeEnd: b('/registry/pods0'), startRevision: 2 ** 40 + 1, prevKv: true, progressNotify: true })
    assert.equal(framed[0], 0)
    assert.equal(framed.readUInt32BE(1), framed.length - 5)
    const fields = { key: b('/registry/pods/'), range_end: b('/registry/pods0'), start_revision: 2 ** 40 + 1, progress_notify: true, prev_kv: true }
    assert.deepEqual(decoded(WatchRequest, framed.subarray(5)), {
      create_request: { key: fields.key.toString('base64'), range_end: fields.range_end.toString('base64'), start_revision: String(2 ** 40 + 1), progress_notify: true, prev_kv: true },
    })
    // Byte for byte what protobufjs writes for the same request.
    assert.deepEqual(framed.subarray(5), Buffer.from(WatchRequest.encode(WatchRequest.fromObject({ create_request: fields })).finish()))
    // From "now" on one key: no start revision, no range end, no flags.
    const now = encodeWatchCreate({ key: b('/k'), startRevision: 0, prevKv: false, progressNotify: false })
    assert.deepEqual(decoded(WatchRequest, now.subarray(5)), { create_request: { key: b('/k').toString('base64') } })
  })

  it('encodes the progress request: the oneof member set, empty', () => {
    const framed = encodeWatchProgress()
    assert.equal(framed.readUInt32BE(1), framed.length - 5)
    const message = WatchRequest.decode(framed.subarray(5)) as unknown as { request_union?: string }
    assert.equal(WatchRequest.toObject(message as protobuf.Message, { oneofs: true }).request_union, 'progress_request')
    assert.deepEqual(framed.subarray(5), Buffer.from(WatchRequest.encode(WatchRequest.fromObject({ progress_request: {} })).finish()))
  })

  it('decodes watch responses: created, events with prev_kv, progress, cancellation on compaction', () => {
    const header = { cluster_id: '14841639068965178418', member_id: '10276657743932975437', revision: 2 ** 40 + 9, raft_term: 3 }
    const encode = (o: Record<string, unknown>): Buffer => Buffer.from(WatchResponse.encode(WatchResponse.fromObject(o)).finish())
    assert.deepEqual(decodeWatch(encode({ header, watch_id: 0, created: true })), { revision: 2 ** 40 + 9, created: true, canceled: false, compactRevision: 0, cancelReason: '', events: [] })
    const res = decodeWatch(
      encode({
        header,
        watch_id: 7,
        events: [
          { type: 'Put', kv: { key: b('/registry/a'), create_revision: 5, mod_revision: 5, version: 1, value: b('A') } },
          { type: 'Put', kv: { key: b('/registry/a'), create_revision: 5, mod_revision: 6, version: 2, value: b('B') }, prev_kv: { key: b('/registry/a'), create_revision: 5, mod_revision: 5, version: 1, value: b('A') } },
          { type: 'Delete', kv: { key: b('/registry/a'), mod_revision: 7 }, prev_kv: { key: b('/registry/a'), create_revision: 5, mod_revision: 6, version: 2, value: b('B') } },
        ],
      }),
    )
    assert.equal(res.revision, 2 ** 40 + 9)
    assert.deepEqual(
      res.events.map(e => [e.type, e.kv.key.toString(), e.kv.value.toString(), e.kv.createRevision, e.kv.modRevision, e.prevKv?.value.toString(), e.prevKv?.modRevision]),
      [
        ['put', '/registry/a', 'A', 5, 5, undefined, undefined],
        ['put', '/registry/a', 'B', 5, 6, 'A', 5],
        ['delete', '/registry/a', '', 0, 7, 'B', 6],
      ],
    )
    assert.deepEqual(decodeWatch(encode({ header: { revision: 40 } })), { revision: 40, created: false, canceled: false, compactRevision: 0, cancelReason: '', events: [] })
    const canceled = decodeWatch(encode({ header, canceled: true, compact_revision: 33, cancel_reason: 'mvcc: required revision has been compacted' }))
    assert.deepEqual([canceled.canceled, canceled.compactRevision, canceled.cancelReason], [true, 33, 'mvcc: required revision has been compacted'])
  })
})
