/**
 * JSON -> protobuf -> JSON for one fully filled object of every built-in kind the server serves
 * (plus Namespace and ConfigMap, which have hand-written kinds) (test/fixtures/protobuf/samples.json, generated from the reference's swagger.json by
 * scripts/gen-protobuf-samples.mjs): every property set, so every field's conversion (times,
 * micro-times, quantities, int-or-string in both forms, bytes, maps, nested lists, embedded JSON,
 * inlined structs, renamed fields) has to be lossless.
 *
 * A round trip through our own encoder and decoder cannot catch a mistake the two share; the
 * reference checks both halves: kubectl-decodes.test.ts has kubectl 1.32 decode these same samples
 * (every kind it has a create generator for), and kubectl-bodies.test.ts decodes bytes kubectl
 * encoded (recorded by scripts/record-kubectl-protobuf.mjs) against the JSON kubectl printed.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { RESOURCES } from '../../../src/server/api/generated/resources.js'
import { loadProtobufCodec, type ProtobufCodec } from '../../../src/core/protobuf/index.js'

interface Sample {
  /** false for the non-resource objects (Status, discovery, options, subresources). */
  served: boolean
  apiVersion: string
  kind: string
  object: Record<string, unknown>
}

const samples = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/protobuf/samples.json'), 'utf8')) as Sample[]

/** Counts the leaves of a JSON value, to show that a sample really is filled. */
function leaves(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, item) => n + leaves(item), 0)
  if (value && typeof value === 'object') return Object.values(value).reduce((n: number, item) => n + leaves(item), 0)
  return 1
}

describe('protobuf codec: lossless round trip of every served kind and the API objects around them', () => {
  let codec: ProtobufCodec
  before(async () => {
    codec = await loadProtobufCodec()
  })

  it('has a sample for every served kind', () => {
    // APIServices (kube-aggregator) have no .proto in the reference tree: they are stored as JSON.
    // The GA versions served by default and the beta and alpha ones --runtime-config turns on.
    // scheduling.k8s.io/v1alpha2 is in the reference's OpenAPI document but not in its .proto tree (which has v1alpha3).
    const served = [...RESOURCES.filter((r) => r.group !== 'apiregistration.k8s.io' && `${r.group}/${r.version}` !== 'scheduling.k8s.io/v1alpha2'), { group: '', version: 'v1', kind: 'Namespace' }, { group: '', version: 'v1', kind: 'ConfigMap' }]
    const want = served.map((r) => `${r.group ? `${r.group}/${r.version}` : r.version} ${r.kind}`).sort()
    assert.deepEqual(samples.filter((s) => s.served).map((s) => `${s.apiVersion} ${s.kind}`).sort(), want)
  })

  for (const sample of samples) {
    it(`${sample.apiVersion} ${sample.kind}`, () => {
      assert.ok(codec.hasType(sample.apiVersion, sample.kind))
      const encoded = codec.encode(sample.object)
      assert.ok(encoded.length > 100, `suspiciously small encoding: ${encoded.length} bytes`)
      const decoded = codec.decode(encoded)
      assert.ok(leaves(decoded) >= leaves(sample.object))
      assert.deepEqual(decoded, sample.object)
    })

    // Kinds that are only created (Binding) have no list, and no List message.
    const listed = !RESOURCES.some((r) => `${r.group ? `${r.group}/${r.version}` : r.version}` === sample.apiVersion && r.kind === sample.kind && !r.verbs.includes('list'))
    if (sample.served && listed) it(`${sample.apiVersion} ${sample.kind}List with two items`, () => {
      const list = { apiVersion: sample.apiVersion, kind: `${sample.kind}List`, metadata: { resourceVersion: '42', continue: 'token' }, items: [sample.object, sample.object] }
      const decoded = codec.decode(codec.encode(list))
      // List items carry no apiVersion/kind in protobuf (Go's TypeMeta is not a proto field).
      const strip = ({ apiVersion: _a, kind: _k, ...rest }: Record<string, unknown>) => rest
      assert.deepEqual(decoded, { ...list, items: list.items.map(strip) })
    })
  }
})
