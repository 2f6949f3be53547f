/**
 * The stored protobuf of an object served with its resourceVersion spliced in must be byte for
 * byte what the encoder writes for the decoded object with that resourceVersion: checked for
 * one fully filled object of every served kind (test/fixtures/protobuf/samples.json).
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadProtobufCodec, type ProtobufCodec } from '../../../src/core/protobuf/index.js'
import { listItemWithResourceVersion, messageWithResourceVersion, withResourceVersion } from '../../../src/core/protobuf/resource-version.js'

interface Sample {
  served: boolean
  apiVersion: string
  kind: string
  object: Record<string, unknown> & { metadata?: Record<string, unknown> }
}

const samples = (JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/protobuf/samples.json'), 'utf8')) as Sample[]).filter((s) => s.served)

/** The object as the store keeps it: no resourceVersion. */
function stored(object: Sample['object']): Sample['object'] {
  const { resourceVersion: _rv, ...metadata } = object.metadata ?? {}
  void _rv
  return { ...object, metadata }
}

describe('protobuf: a stored object served with its resourceVersion spliced in', () => {
  let codec: ProtobufCodec
  before(async () => {
    codec = await loadProtobufCodec()
  })

  it('has served samples to check', () => {
    assert.ok(samples.length > 40, `only ${samples.length} samples`)
  })

  for (const sample of samples) {
    it(`${sample.apiVersion} ${sample.kind}: the encoder's bytes`, () => {
      const type = { apiVersion: sample.apiVersion, kind: sample.kind }
      for (const rv of ['7', '123456789012']) {
        const spliced = withResourceVersion(codec.encode(stored(sample.object)), type, rv)
        const expected = codec.encode({ ...sample.object, metadata: { ...stored(sample.object).metadata, resourceVersion: rv } })
        assert.ok(spliced, 'not spliced')
        assert.equal(spliced.toString('hex'), expected.toString('hex'))
        assert.equal((codec.decode(spliced).metadata as { resourceVersion?: string }).resourceVersion, rv)
      }
    })
  }

  // Binding is created through pods/binding only: it has no list type.
  for (const sample of samples.filter((s) => s.kind !== 'Binding')) {
    it(`${sample.apiVersion} ${sample.kind}: a list item's bytes are those of the encoded list`, () => {
      const listKind = `${sample.kind}List`
      assert.ok(codec.hasType(sample.apiVersion, listKind), `no ${listKind}`)
      const type = { apiVersion: sample.apiVersion, kind: sample.kind }
      const rv = '123456789'
      const item = listItemWithResourceVersion(codec.encode(stored(sample.object)), type, rv)
      assert.ok(item, 'not spliced')
      // A list without metadata of that one item: runtime.Unknown's raw is exactly the items field.
      const list = codec.encode({ apiVersion: sample.apiVersion, kind: listKind, items: [{ ...sample.object, metadata: { ...stored(sample.object).metadata, resourceVersion: rv } }] })
      assert.ok(list.includes(item), 'the encoded list does not hold the item field')
      assert.equal(item[0], 0x12)
      const decoded = codec.decode(Buffer.concat([list.subarray(0, list.indexOf(item)), item, list.subarray(list.indexOf(item) + item.length)]))
      assert.equal(((decoded.items as { metadata: { resourceVersion: string } }[])[0]!).metadata.resourceVersion, rv)
    })
  }

  it('also splices into metadata with nothing after the resourceVersion, or no metadata fields at all', () => {
    for (const metadata of [{ name: 'a', namespace: 'b' }, {}]) {
      const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { k: 'v' } }
      const spliced = withResourceVersion(codec.encode(object), { apiVersion: 'v1', kind: 'ConfigMap' }, '42')
      assert.equal(spliced?.toString('hex'), codec.encode({ ...object, metadata: { ...metadata, resourceVersion: '42' } }).toString('hex'))
    }
  })

  it('gives the bare message too, as a list embeds it in its items', () => {
    const items = ['a', 'b'].map((name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'n', labels: { x: name } }, data: { k: name } }))
    const type = { apiVersion: 'v1', kind: 'ConfigMap' }
    const messages = items.map((item, i) => messageWithResourceVersion(codec.encode(item), type, String(10 + i))!)
    const list = codec.encode({ apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '11' }, items: items.map((item, i) => ({ ...item, metadata: { ...item.metadata, resourceVersion: String(10 + i) } })) })
    // ConfigMapList: metadata (1), then each item as field 2.
    const embedded = Buffer.concat(messages.map((m) => Buffer.concat([Buffer.from([0x12, m.length]), m])))
    assert.ok(list.includes(embedded), 'the list does not hold the spliced messages')
  })

  it('leaves to the decoding path what it cannot splice exactly', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } }
    const bytes = codec.encode(cm)
    assert.equal(withResourceVersion(Buffer.from(JSON.stringify(cm)), { apiVersion: 'v1', kind: 'ConfigMap' }, '1'), undefined, 'JSON')
    assert.equal(withResourceVersion(bytes, { apiVersion: 'v1', kind: 'Secret' }, '1'), undefined, 'another kind')
    assert.equal(withResourceVersion(bytes, { apiVersion: 'v1beta1', kind: 'ConfigMap' }, '1'), undefined, 'another version')
    const withRv = codec.encode({ ...cm, metadata: { name: 'a', resourceVersion: '5' } })
    assert.equal(withResourceVersion(withRv, { apiVersion: 'v1', kind: 'ConfigMap' }, '6'), undefined, 'a resourceVersion already stored')
    assert.equal(withResourceVersion(bytes.subarray(0, bytes.length - 6), { apiVersion: 'v1', kind: 'ConfigMap' }, '1'), undefined, 'truncated')
  })
})
