/**
 * The bodies kubectl 1.32 itself posts for `kubectl create <generator>` (protobuf, recorded by
 * scripts/record-kubectl-protobuf.mjs) against the JSON the same kubectl prints for the same
 * object with --dry-run=client -o json: both come from the reference's Go types, so decoding the
 * first must give the second exactly (including "creationTimestamp": null, "spec": {}, zero values
 * that Go prints and the ones its omitempty drops).
 */
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadProtobufCodec, type ProtobufCodec } from '../../../src/core/protobuf/index.js'

const dir = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/protobuf/kubectl')
const names = readdirSync(dir)
  .filter((name) => name.endsWith('.pb'))
  .map((name) => name.slice(0, -3))
  .sort()

describe('protobuf codec: bodies recorded from kubectl 1.32', () => {
  let codec: ProtobufCodec
  before(async () => {
    codec = await loadProtobufCodec()
  })

  it('has the recorded fixtures', () => {
    assert.ok(names.length >= 25, `only ${names.length} fixtures`)
  })

  for (const name of names) {
    const body = () => readFileSync(join(dir, `${name}.pb`))
    const json = () => JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as Record<string, unknown>

    it(`${name}: decodes to the JSON kubectl prints for the same object, in Go's field order`, () => {
      const decoded = codec.decode(body())
      assert.deepEqual(decoded, json())
      assert.equal(JSON.stringify(decoded), JSON.stringify(json()))
    })

    it(`${name}: encodes with the same envelope type and decodes back losslessly`, () => {
      const encoded = codec.encode(json())
      // Up to the raw field, the envelope is the same bytes: magic, typeMeta {apiVersion, kind}.
      const recorded = body()
      const typeMetaEnd = 4 + 2 + recorded[5]
      assert.deepEqual(encoded.subarray(0, typeMetaEnd), recorded.subarray(0, typeMetaEnd))
      // ...and it ends as Go's Unknown does: empty contentEncoding (3) and contentType (4).
      assert.deepEqual([...encoded.subarray(-4)], [0x1a, 0x00, 0x22, 0x00])
      assert.deepEqual(codec.decode(encoded), json())
    })
  }

  it('prints a list Go has no omitempty for as null (ClusterRole rules)', () => {
    const role = codec.decode(readFileSync(join(dir, 'clusterrole-aggregated.pb')))
    assert.equal(role.rules, null)
  })

  it('keeps a pointer zero that Go sent (replicas: 0) and drops value zeros Go omits', () => {
    const deployment = codec.decode(readFileSync(join(dir, 'deployment.pb')))
    const spec = deployment.spec as Record<string, unknown>
    assert.equal(spec.replicas, 0)
    assert.equal('minReadySeconds' in spec, false)
    assert.equal('paused' in spec, false)
    assert.deepEqual(spec.strategy, {})
  })
})
