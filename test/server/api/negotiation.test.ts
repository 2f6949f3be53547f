/**
 * Content negotiation against the reference's rules (apiserver handlers/negotiation over
 * goautoneg) and its exact 406 / 415 / 400 messages.
 */
import assert from 'node:assert/strict'
import { loadProtobufCodec } from '../../../src/core/protobuf/index.js'
import type { Request } from '../../../src/server/http/types.js'
import {
  decodeRequestBody,
  negotiateAll,
  negotiateOutput,
  negotiateWatchOutput,
  parseAccept,
  summarizeData,
  writeErrorNegotiated,
  writeObject,
} from '../../../src/server/api/negotiation.js'
import { ApiError, errors } from '../../../src/server/api/status-errors.js'
import type { Response } from '../../../src/server/http/types.js'

const PB = 'application/vnd.kubernetes.protobuf'
/** The reference's NotAcceptable message for the built-in serializers (CodecFactory order). */
const NOT_ACCEPTABLE = 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf'
const NOT_ACCEPTABLE_STREAM = 'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch'
const UNSUPPORTED = 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf'

function media(accept: string | undefined, r: Parameters<typeof negotiateAll>[1] = { resource: true, table: true }): string[] {
  return negotiateAll(accept, r).map((m) => (m.table ? `${m.mediaType} as ${m.table}` : m.mediaType))
}

function apiError(fn: () => unknown): ApiError {
  try {
    fn()
  } catch (err) {
    assert.ok(err instanceof ApiError, `not an ApiError: ${String(err)}`)
    return err
  }
  assert.fail('no error thrown')
}

async function apiErrorAsync(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p
  } catch (err) {
    assert.ok(err instanceof ApiError, `not an ApiError: ${String(err)}`)
    return err
  }
  assert.fail('no error thrown')
}

function request(contentType: string, accept?: string): Request {
  return { headers: { 'content-type': contentType, ...(accept !== undefined ? { accept } : {}) } } as unknown as Request
}

/** A response that records what is written. */
function response() {
  const headers: Record<string, string> = {}
  const out: { statusCode: number; body: Buffer; headersSent: boolean; writableEnded: boolean } = { statusCode: 0, body: Buffer.alloc(0), headersSent: false, writableEnded: false }
  const res = {
    setHeader: (k: string, v: string) => (headers[k.toLowerCase()] = v),
    set statusCode(c: number) {
      out.statusCode = c
    },
    get headersSent() {
      return out.headersSent
    },
    get writableEnded() {
      return out.writableEnded
    },
    end: (b: string | Buffer) => {
      out.body = Buffer.isBuffer(b) ? b : Buffer.from(b)
      out.headersSent = out.writableEnded = true
    },
  } as unknown as Response
  return { res, headers, out }
}

describe('api: content negotiation', () => {
  describe('Accept parsing (goautoneg)', () => {
    it('orders by q, then a concrete type and subtype before wildcards, keeping header order otherwise', () => {
      const order = parseAccept('*/*;q=0.8, application/yaml;q=0.9, application/*, application/json').map((c) => `${c.type}/${c.subtype};q=${c.q}`)
      assert.deepEqual(order, ['application/json;q=1', 'application/*;q=1', 'application/yaml;q=0.9', '*/*;q=0.8'])
    })

    it('drops malformed ranges and reads a bare * as */*', () => {
      assert.deepEqual(
        parseAccept('text, *, application/json/x').map((c) => `${c.type}/${c.subtype}`),
        ['*/*'],
      )
    })
  })

  describe('response media type', () => {
    it('is JSON without an Accept header', () => {
      assert.deepEqual(media(undefined), ['application/json'])
      assert.deepEqual(negotiateOutput(undefined, { table: true }), { kind: 'json', formats: ['json'] })
    })

    it('follows the header order for equal q: kubectl generators ask protobuf, then anything', () => {
      assert.deepEqual(media(`${PB}, */*`), [PB, 'application/json', 'application/yaml'])
      assert.equal(negotiateOutput(`${PB}, */*`, { table: false }).kind, 'protobuf')
      assert.deepEqual(media(`${PB},application/json`), [PB, 'application/json'])
    })

    it('prefers the higher q whatever the order', () => {
      assert.deepEqual(media('application/json;q=0.5, application/yaml'), ['application/yaml', 'application/json'])
      assert.equal(negotiateOutput(`application/json;q=0.9, ${PB};q=0.95`, { table: false }).kind, 'protobuf')
    })

    it('puts a concrete type before */* and application/*', () => {
      assert.deepEqual(media('*/*, application/yaml'), ['application/yaml', 'application/json', PB])
      assert.deepEqual(media('application/*'), ['application/json', 'application/yaml', PB])
    })

    it('q=0 rejects a media type, also against a wildcard; the most specific clause decides', () => {
      assert.deepEqual(media('application/json;q=0, */*'), ['application/yaml', PB])
      assert.deepEqual(media('*/*;q=0, application/yaml'), ['application/yaml'])
      assert.equal(apiError(() => negotiateOutput('application/json;q=0', { table: false })).status.message, NOT_ACCEPTABLE)
    })

    it('answers 406 NotAcceptable naming the served media types', () => {
      const err = apiError(() => negotiateOutput('text/html', { table: true }))
      assert.equal(err.code, 406)
      assert.equal(err.status.reason, 'NotAcceptable')
      assert.equal(err.status.message, NOT_ACCEPTABLE)
    })

    it('serves Tables of meta.k8s.io v1 and v1beta1 in JSON or YAML, never protobuf', () => {
      const kubectl = `${PB};as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io,application/json`
      assert.deepEqual(negotiateOutput(kubectl, { table: true }), { kind: 'table', apiVersion: 'meta.k8s.io/v1', format: 'json' })
      assert.deepEqual(negotiateOutput('application/yaml;as=Table;v=v1beta1;g=meta.k8s.io', { table: true }), {
        kind: 'table',
        apiVersion: 'meta.k8s.io/v1beta1',
        format: 'yaml',
      })
      // Without a table convertor (writes) the Table clauses are skipped.
      assert.deepEqual(media(kubectl, { resource: true }), ['application/json'])
      // An unknown conversion is never served.
      assert.equal(apiError(() => negotiateOutput('application/json;as=Scale;v=v1;g=autoscaling', { table: true })).code, 406)
    })

    it('skips protobuf for custom resources unless transformed, and falls back to */*', () => {
      assert.equal(negotiateOutput(`${PB}, */*`, { table: false, customResource: true }).kind, 'json')
      const err = apiError(() => negotiateOutput(PB, { table: false, customResource: true }))
      assert.equal(err.code, 406)
      assert.equal(err.status.message, NOT_ACCEPTABLE)
    })

    it('watches need a stream serializer: YAML first is 406 naming the stream types', () => {
      assert.equal(negotiateWatchOutput(`${PB};stream=watch`, { table: true }).kind, 'protobuf')
      assert.equal(negotiateWatchOutput(`${PB}, application/json`, { table: true }).kind, 'protobuf')
      const err = apiError(() => negotiateWatchOutput('application/yaml, application/json', { table: true }))
      assert.equal(err.code, 406)
      assert.equal(err.status.message, NOT_ACCEPTABLE_STREAM)
      // stream=watch on YAML does not match at all.
      assert.equal(negotiateWatchOutput('application/yaml;stream=watch, application/json', { table: true }).kind, 'json')
    })
  })

  describe('writing', () => {
    it('writes protobuf for kinds the codec has, and falls through to the next choice for others', async () => {
      const codec = await loadProtobufCodec()
      const output = negotiateOutput(`${PB}, */*`, { table: false })
      const cm = response()
      await writeObject(cm.res, 200, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } }, output)
      assert.equal(cm.headers['content-type'], PB)
      assert.deepEqual(codec.decode(cm.out.body).data, { a: 'b' })
      // A kind without a message in the descriptor: the next choice, JSON.
      const widget = response()
      await writeObject(widget.res, 200, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'x' } }, output)
      assert.equal(widget.headers['content-type'], 'application/json')
      assert.equal((JSON.parse(widget.out.body.toString('utf8')) as { kind: string }).kind, 'Widget')
    })

    it('writes a YAML Table when the YAML Table clause wins', async () => {
      const r = response()
      await writeObject(r.res, 200, { kind: 'Table', apiVersion: 'meta.k8s.io/v1', rows: [] }, negotiateOutput('application/yaml;as=Table;v=v1;g=meta.k8s.io', { table: true }))
      assert.equal(r.headers['content-type'], 'application/yaml')
      assert.match(r.out.body.toString('utf8'), /^kind: Table\napiVersion: meta.k8s.io\/v1\n/)
    })

    it('writes errors in the negotiated type, and as JSON with their own code when nothing is acceptable', async () => {
      const codec = await loadProtobufCodec()
      const pb = response()
      await writeErrorNegotiated(request('', PB), pb.res, errors.notFound({ group: '', resource: 'pods' }, 'p'))
      assert.equal(pb.out.statusCode, 404)
      assert.equal(pb.headers['content-type'], PB)
      const status = codec.decode(pb.out.body)
      assert.equal(status.kind, 'Status')
      assert.equal(status.message, 'pods "p" not found')
      const html = response()
      await writeErrorNegotiated(request('', 'text/html'), html.res, errors.notFound({ group: '', resource: 'pods' }, 'p'))
      assert.equal(html.out.statusCode, 404)
      assert.equal(html.headers['content-type'], 'application/json')
      assert.equal((JSON.parse(html.out.body.toString('utf8')) as { reason: string }).reason, 'NotFound')
    })
  })

  describe('request bodies', () => {
    it('answers 415 UnsupportedMediaType for unknown content types', async () => {
      const err = await apiErrorAsync(decodeRequestBody(request('text/plain'), Buffer.from('x'), { kind: 'ConfigMap' }))
      assert.equal(err.code, 415)
      assert.equal(err.status.reason, 'UnsupportedMediaType')
      assert.equal(err.status.message, UNSUPPORTED)
    })

    it('decodes JSON (also without a Content-Type) and YAML', async () => {
      assert.deepEqual(await decodeRequestBody(request('application/json'), Buffer.from('{"a":1}'), { kind: 'ConfigMap' }), { a: 1 })
      assert.deepEqual(await decodeRequestBody(request(''), Buffer.from('{"a":1}'), { kind: 'ConfigMap' }), { a: 1 })
      assert.deepEqual(await decodeRequestBody(request('application/yaml'), Buffer.from('a: 1\n'), { kind: 'ConfigMap' }), { a: 1 })
    })

    it('rejects a protobuf body without the envelope prefix as the reference does', async () => {
      const err = await apiErrorAsync(decodeRequestBody(request(PB), Buffer.from('{"kind":"Pod"}'), { kind: 'Pod' }))
      assert.equal(err.code, 400)
      assert.equal(
        err.status.message,
        'the object provided is unrecognized (must be of type Pod): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"kind":"Pod"})',
      )
    })

    it('rejects protobuf for custom resources (unstructured objects have no protobuf form)', async () => {
      // 'k8s\0' + Unknown{typeMeta{apiVersion "example.com/v1", kind "Widget"}}
      const typeMeta = Buffer.concat([Buffer.from([0x0a, 14]), Buffer.from('example.com/v1'), Buffer.from([0x12, 6]), Buffer.from('Widget')])
      const body = Buffer.concat([Buffer.from('k8s\0', 'latin1'), Buffer.from([0x0a, typeMeta.length]), typeMeta])
      const err = await apiErrorAsync(decodeRequestBody(request(PB), body, { kind: 'Widget', customResource: true }))
      assert.equal(err.code, 400)
      assert.equal(
        err.status.message,
        'Widget in version "v1" cannot be handled as a Widget: object *unstructured.Unstructured does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message',
      )
    })

    it('decodes protobuf bodies of built-in kinds, DeleteOptions and Scale included', async () => {
      const codec = await loadProtobufCodec()
      const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data: { a: 'b' } }
      assert.deepEqual(await decodeRequestBody(request(PB), codec.encode(cm), { kind: 'ConfigMap' }), cm)
      const del = { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Orphan', preconditions: { uid: 'u-1' } }
      assert.deepEqual(await decodeRequestBody(request(PB), codec.encode(del), { kind: 'DeleteOptions' }), del)
      const scale = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', namespace: 'demo' }, spec: { replicas: 3 } }
      assert.deepEqual(await decodeRequestBody(request(`${PB}; charset=binary`), codec.encode(scale), { kind: 'Scale' }), scale)
    })

    it('summarises undecodable bodies like the reference (text for JSON, hex otherwise, 30 bytes)', () => {
      assert.equal(summarizeData(Buffer.alloc(0)), '<empty>')
      assert.equal(summarizeData(Buffer.from([1, 2, 255])), '0102ff')
      assert.equal(summarizeData(Buffer.from(`{"${'a'.repeat(40)}"}`)), `{"${'a'.repeat(28)} ...`)
    })
  })
})
