/**
 * Input that is valid protobuf but that Go's marshallers (and ours) never write, decoded as Go's
 * generated Unmarshal code does (protobuf encoding spec): a map entry may lack its key or value
 * (zero value) and hold them in either order, a later entry for the same key wins; a non-repeated
 * message field that occurs twice is merged; repeated varints may be packed; unknown fields of
 * every wire type, groups included, are skipped. Field numbers from core/v1 generated.proto:
 * ConfigMap data 2; ObjectMeta name 1, namespace 3, labels 11; Pod spec 2; PodSpec
 * securityContext 14; PodSecurityContext supplementalGroups 4.
 */
import assert from 'node:assert/strict'
import { loadProtobufCodec, type ProtobufCodec } from '../../../src/core/protobuf/index.js'

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex')
const str = (text: string) => Buffer.from(text).toString('hex')
const len = (n: number) => n.toString(16).padStart(2, '0')
const ld = (tag: string, body: string) => `${tag}${len(body.length / 2)}${body}`
const envelope = (apiVersion: string, kind: string, raw: string) =>
  hex('6b387300' + ld('0a', ld('0a', str(apiVersion)) + ld('12', str(kind))) + ld('12', raw) + '1a00' + '2200')

describe('protobuf codec: decoding what encoders rarely write', () => {
  let codec: ProtobufCodec
  before(async () => {
    codec = await loadProtobufCodec()
  })

  it('reads map entries without key or value, in either order, the last entry of a key winning', () => {
    const entries = [
      '', // no key, no value: "" -> ""
      ld('0a', str('k')), // no value
      ld('12', str('v')), // no key: overwrites ""
      ld('12', str('v2')) + ld('0a', str('k2')), // value before key
      ld('0a', str('a')) + ld('12', str('1')),
      ld('0a', str('a')) + ld('12', str('2')), // same key again
    ]
    const raw = entries.map((entry) => ld('12', entry)).join('')
    const decoded = codec.decode(envelope('v1', 'ConfigMap', raw))
    assert.deepEqual(decoded, { kind: 'ConfigMap', apiVersion: 'v1', data: { '': 'v', a: '2', k: '', k2: 'v2' } })
    assert.deepEqual(Object.keys(decoded.data as object), ['', 'a', 'k', 'k2'])
  })

  it('reads map keys byte for byte across objects: invalid UTF-8 becomes U+FFFD, as Go prints it', () => {
    const configMap = (keyHex: string) => codec.decode(envelope('v1', 'ConfigMap', ld('12', ld('0a', keyHex) + ld('12', str('v')))))
    assert.deepEqual(configMap(str('éx')).data, { 'éx': 'v' })
    assert.deepEqual(configMap('e978').data, { '\ufffdx': 'v' })
    assert.deepEqual(configMap(str('ab')).data, { ab: 'v' })
    assert.deepEqual(configMap(str('ba')).data, { ba: 'v' })
    assert.deepEqual(configMap(str('ab')).data, { ab: 'v' })
  })

  it('merges a message field that occurs twice', () => {
    const first = ld('0a', str('a')) + ld('5a', ld('0a', str('x')) + ld('12', str('1')))
    const second = ld('1a', str('ns')) + ld('5a', ld('0a', str('y')) + ld('12', str('2')))
    const decoded = codec.decode(envelope('v1', 'ConfigMap', ld('0a', first) + ld('0a', second)))
    assert.deepEqual(decoded, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: 'ns', labels: { x: '1', y: '2' } } })
  })

  it('reads packed and unpacked repeated varints', () => {
    // supplementalGroups [1, 2] packed, then 300 unpacked (varint ac 02).
    const securityContext = ld('22', '0102') + '20ac02'
    const decoded = codec.decode(envelope('v1', 'Pod', ld('12', ld('72', securityContext))))
    assert.deepEqual((decoded.spec as { securityContext: unknown }).securityContext, { supplementalGroups: [1, 2, 300] })
  })

  it('skips unknown fields of every wire type, groups included', () => {
    // field 50: varint, 64-bit, length-delimited, group {field 1 varint} end group, 32-bit.
    const unknown = '900305' + '9103' + '0102030405060708' + ld('9203', str('xyz')) + '9303' + '0801' + '9403' + '9503' + '01020304'
    const decoded = codec.decode(envelope('v1', 'ConfigMap', unknown + ld('12', ld('0a', str('k')) + ld('12', str('v')))))
    assert.deepEqual(decoded, { kind: 'ConfigMap', apiVersion: 'v1', data: { k: 'v' } })
  })
})
