/**
 * Byte-level checks: expected encodings derived by hand from the field numbers in the reference's
 * generated.proto files (runtime.Unknown: typeMeta 1, raw 2, contentEncoding 3, contentType 4;
 * TypeMeta: apiVersion 1, kind 2; core/v1 Namespace: metadata 1, spec 2, status 3; ConfigMap:
 * metadata 1, data 2, binaryData 3, immutable 4; ObjectMeta: name 1, namespace 3,
 * creationTimestamp 8, labels 11; Time: seconds 1, nanos 2; IntOrString: type 1, intVal 2,
 * strVal 3; WatchEvent: type 1, object 2; RawExtension: raw 1).
 */
import assert from 'node:assert/strict'
import { loadProtobufCodec, isProtobufEnvelope, ProtobufError, type ProtobufCodec, PROTOBUF_MEDIA_TYPE, PROTOBUF_WATCH_MEDIA_TYPE } from '../../../src/core/protobuf/index.js'

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex')
const str = (text: string) => Buffer.from(text).toString('hex')
const len = (n: number) => n.toString(16).padStart(2, '0')
/** A length-delimited field (tag, length, body) for bodies under 128 bytes. */
const ld = (tag: string, body: string) => `${tag}${len(body.length / 2)}${body}`

const MAGIC = '6b387300'
const envelope = (apiVersion: string, kind: string, raw: string) =>
  MAGIC + ld('0a', ld('0a', str(apiVersion)) + ld('12', str(kind))) + ld('12', raw) + '1a00' + '2200'

describe('protobuf codec: wire format', () => {
  let codec: ProtobufCodec
  before(async () => {
    codec = await loadProtobufCodec()
  })

  it('names the media types as the reference does', () => {
    assert.equal(PROTOBUF_MEDIA_TYPE, 'application/vnd.kubernetes.protobuf')
    assert.equal(PROTOBUF_WATCH_MEDIA_TYPE, 'application/vnd.kubernetes.protobuf;stream=watch')
  })

  it('encodes a Namespace byte for byte', () => {
    const raw = ld('0a', ld('0a', str('x')))
    const expected = envelope('v1', 'Namespace', raw)
    assert.equal(expected, '6b3873000a0f0a0276311209' + str('Namespace') + '12050a030a0178' + '1a002200')
    assert.equal(codec.encode({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } }).toString('hex'), expected)
  })

  it('encodes a ConfigMap byte for byte: sorted map keys, bytes, bool', () => {
    const meta = ld('0a', str('cm')) + ld('1a', str('ns')) + ld('5a', ld('0a', str('a')) + ld('12', str('1'))) + ld('5a', ld('0a', str('b')) + ld('12', str('2')))
    const raw = ld('0a', meta) + ld('12', ld('0a', str('k')) + ld('12', str('v'))) + ld('1a', ld('0a', str('bin')) + ld('12', '0001ff')) + '2001'
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm', namespace: 'ns', labels: { b: '2', a: '1' } },
      data: { k: 'v' },
      binaryData: { bin: 'AAH/' },
      immutable: true,
    }
    assert.equal(codec.encode(configMap).toString('hex'), envelope('v1', 'ConfigMap', raw))
    assert.deepEqual(codec.decode(hex(envelope('v1', 'ConfigMap', raw))), { ...configMap, metadata: { name: 'cm', namespace: 'ns', labels: { a: '1', b: '2' } } })
  })

  it('encodes metav1.Time as {seconds, nanos} and prints it with second precision', () => {
    // 2024-01-02T03:04:05Z = 1704164645 s = varint a5 fa cd ac 06
    const time = '08a5facdac06' + '1000'
    const raw = ld('0a', ld('0a', str('t')) + ld('42', time))
    const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 't', creationTimestamp: '2024-01-02T03:04:05Z' } }
    assert.equal(codec.encode(namespace).toString('hex'), envelope('v1', 'Namespace', raw))
    assert.deepEqual(codec.decode(hex(envelope('v1', 'Namespace', raw))), namespace)
    // Fractional seconds are kept in protobuf (nanos 500000000 = 80 ca b5 ee 01) but not in JSON.
    const fraction = codec.encode({ ...namespace, metadata: { name: 't', creationTimestamp: '2024-01-02T04:04:05.5+01:00' } })
    assert.ok(fraction.toString('hex').includes('08a5facdac06' + '1080cab5ee01'))
    assert.deepEqual(codec.decode(fraction), namespace)
  })

  it('keeps six fractional digits of a MicroTime', () => {
    const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: { renewTime: '2024-01-02T03:04:05.123456Z', acquireTime: '2024-01-02T03:04:05.000000Z' } }
    assert.deepEqual(codec.decode(codec.encode(lease)), lease)
    const nanos = codec.decode(codec.encode({ ...lease, spec: { renewTime: '2024-01-02T03:04:05.123456789Z' } }))
    assert.deepEqual(nanos.spec, { renewTime: '2024-01-02T03:04:05.123456Z' })
  })

  it('encodes IntOrString with all three fields, as Go does, in both forms', () => {
    const service = (targetPort: number | string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80, targetPort }] } })
    const port = (intOrString: string) => ld('0a', '1850' + ld('22', intOrString))
    const raw = (intOrString: string) => ld('0a', ld('0a', str('s'))) + ld('12', port(intOrString))
    assert.equal(codec.encode(service(8080)).toString('hex'), envelope('v1', 'Service', raw('0800' + '10903f' + '1a00')))
    assert.equal(codec.encode(service('http')).toString('hex'), envelope('v1', 'Service', raw('0801' + '1000' + ld('1a', str('http')))))
    assert.deepEqual(codec.decode(codec.encode(service(8080))), service(8080))
    assert.deepEqual(codec.decode(codec.encode(service('http'))), service('http'))
  })

  it('holds JSON in RawExtension and FieldsV1 bytes', () => {
    const revision = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: { name: 'r', managedFields: [{ manager: 'm', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } }] },
      data: { spec: { template: { a: [1, 2] } } },
      revision: 3,
    }
    const encoded = codec.encode(revision)
    assert.ok(encoded.includes(Buffer.from('{"spec":{"template":{"a":[1,2]}}}')))
    assert.ok(encoded.includes(Buffer.from('{"f:data":{}}')))
    assert.deepEqual(codec.decode(encoded), revision)
  })

  it('maps list wrappers (metav1.Verbs) to arrays and renamed fields to their JSON names', () => {
    const list = { apiVersion: 'v1', kind: 'APIResourceList', groupVersion: 'v1', resources: [{ name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get', 'list'], shortNames: ['po'] }] }
    assert.deepEqual(codec.decode(codec.encode(list)), list)
    const ingressClass = { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'c' }, spec: { controller: 'x', parameters: { apiGroup: 'k8s.example.com', kind: 'P', name: 'p' } } }
    const encoded = codec.encode(ingressClass)
    assert.ok(encoded.includes(Buffer.from('k8s.example.com')))
    assert.deepEqual(codec.decode(encoded), ingressClass)
  })

  it('inlines embedded structs (Volume.volumeSource, Probe.handler, LocalObjectReference)', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        volumes: [{ name: 'v', configMap: { name: 'cm', optional: false } }],
        containers: [{ name: 'c', livenessProbe: { exec: { command: ['true'] }, periodSeconds: 3 }, env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }],
      },
    }
    assert.deepEqual(codec.decode(codec.encode(pod)), pod)
  })

  it('encodes aggregated discovery as the reference prints it (the core group has no name)', () => {
    const gvk = { group: '', version: 'v1', kind: 'Pod' }
    const resource = { resource: 'pods', responseKind: gvk, scope: 'Namespaced', singularResource: 'pod', verbs: ['get', 'list'], shortNames: ['po'], categories: ['all'], subresources: [{ subresource: 'status', responseKind: gvk, verbs: ['get'] }] }
    const list = { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items: [{ metadata: { name: '', creationTimestamp: null }, versions: [{ version: 'v1', resources: [resource], freshness: 'Current' }] }] }
    const decoded = codec.decode(codec.encode(list))
    assert.equal(
      JSON.stringify(decoded),
      '{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[{"metadata":{"creationTimestamp":null},"versions":[{"version":"v1","resources":[{"resource":"pods","responseKind":{"group":"","version":"v1","kind":"Pod"},"scope":"Namespaced","singularResource":"pod","verbs":["get","list"],"shortNames":["po"],"categories":["all"],"subresources":[{"subresource":"status","responseKind":{"group":"","version":"v1","kind":"Pod"},"verbs":["get"]}]}],"freshness":"Current"}]}]}',
    )
  })

  describe('empty versus absent', () => {
    const namespace = (metadata: Record<string, unknown>, rest: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Namespace', metadata, ...rest })

    it('writes a null time as an empty Time message and reads it back as null', () => {
      const raw = ld('0a', ld('0a', str('x')) + '4200')
      assert.equal(codec.encode(namespace({ name: 'x', creationTimestamp: null })).toString('hex'), envelope('v1', 'Namespace', raw))
      assert.deepEqual(codec.decode(hex(envelope('v1', 'Namespace', raw))), namespace({ name: 'x', creationTimestamp: null }))
    })

    it('keeps an empty struct ({}) and leaves an absent one out', () => {
      assert.deepEqual(codec.decode(codec.encode(namespace({ name: 'x' }, { spec: {}, status: {} }))), namespace({ name: 'x' }, { spec: {}, status: {} }))
      assert.deepEqual(codec.decode(codec.encode(namespace({ name: 'x' }))), namespace({ name: 'x' }))
    })

    it('reads what Go always writes as the reference prints it', () => {
      // ObjectMeta from a Go client: every string field, generation 0 and an empty creationTimestamp.
      const meta = ld('0a', str('x')) + '1200' + '1a00' + '2200' + '2a00' + '3200' + '3800' + '4200'
      const raw = ld('0a', meta) + '1200' + ld('1a', '0a00')
      assert.deepEqual(codec.decode(hex(envelope('v1', 'Namespace', raw))), namespace({ name: 'x', creationTimestamp: null }, { spec: {}, status: {} }))
    })

    it('keeps zero pointers and required zero values, drops omitempty zero values', () => {
      const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', generateName: '', generation: 0 }, spec: { replicas: 0, minReadySeconds: 0, paused: false, template: { spec: { containers: [{ name: '', image: '', stdin: false }], automountServiceAccountToken: false } } } }
      assert.deepEqual(codec.decode(codec.encode(deployment)), {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd' },
        spec: { replicas: 0, template: { spec: { containers: [{ name: '' }], automountServiceAccountToken: false } } },
      })
    })

    it('reads a null list element or map value as the zero value, as Go does', () => {
      const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', finalizers: [null, 'a'] }, data: { a: null, b: 'x' } }
      assert.deepEqual(codec.decode(codec.encode(configMap)), { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x', finalizers: ['', 'a'] }, data: { a: '', b: 'x' } })
      const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { cpu: null } } }
      assert.deepEqual(codec.decode(codec.encode(quota)), { ...quota, spec: { hard: { cpu: '0' } } })
    })

    it('leaves empty maps and lists out, keeps empty strings in maps and bytes', () => {
      const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', labels: {}, finalizers: [] }, data: { empty: '' }, stringData: {} }
      assert.deepEqual(codec.decode(codec.encode(secret)), { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { empty: '' } })
    })
  })

  describe('envelope', () => {
    it('recognises the magic prefix', () => {
      assert.equal(isProtobufEnvelope(hex('6b387300')), true)
      assert.equal(isProtobufEnvelope(Buffer.from('{"kind":"Pod"}')), false)
      assert.equal(isProtobufEnvelope(hex('6b3873')), false)
    })

    it('takes apiVersion and kind from `expected` when the envelope has none', () => {
      const raw = ld('0a', ld('0a', str('x')))
      const bare = hex(MAGIC + ld('12', raw))
      assert.deepEqual(codec.decode(bare, { apiVersion: 'v1', kind: 'Namespace' }), namespaceNamed('x'))
      // The envelope's own type wins over `expected`.
      assert.deepEqual(codec.decode(hex(envelope('v1', 'Namespace', raw)), { apiVersion: 'v1', kind: 'ConfigMap' }), namespaceNamed('x'))
    })

    it('skips fields it does not know', () => {
      // Namespace with an extra varint field 99 (tag 0x98 0x06) and an extra bytes field 100.
      const raw = ld('0a', ld('0a', str('x'))) + '980601' + 'a20603616263'
      assert.deepEqual(codec.decode(hex(envelope('v1', 'Namespace', raw))), namespaceNamed('x'))
    })

    it('knows the kinds of every group, the meta types and nothing else', () => {
      assert.equal(codec.hasType('v1', 'Pod'), true)
      assert.equal(codec.hasType('apps/v1', 'Deployment'), true)
      assert.equal(codec.hasType('apps/v1', 'DeploymentList'), true)
      assert.equal(codec.hasType('v1', 'Status'), true)
      assert.equal(codec.hasType('apps/v1', 'WatchEvent'), true)
      assert.equal(codec.hasType('meta.k8s.io/v1', 'PartialObjectMetadataList'), true)
      assert.equal(codec.hasType('meta.k8s.io/v1', 'Table'), false, 'metav1.Table is +protobuf=false in the reference')
      assert.equal(codec.hasType('apidiscovery.k8s.io/v2', 'APIGroupDiscoveryList'), true)
      assert.equal(codec.hasType('apidiscovery.k8s.io/v2beta1', 'APIGroupDiscoveryList'), true)
      assert.equal(codec.hasType('admission.k8s.io/v1', 'AdmissionReview'), true)
      assert.equal(codec.hasType('v1', 'PodTemplateSpec'), false)
      assert.equal(codec.hasType('example.com/v1', 'Widget'), false)
      assert.equal(codec.hasType('v1', 'Deployment'), false)
    })

    it('reports malformed input and unknown types as ProtobufError', () => {
      assert.throws(() => codec.decode(Buffer.from('{"kind":"Pod"}')), (e: Error) => e instanceof ProtobufError && /prefix/.test(e.message))
      assert.throws(() => codec.decode(hex(envelope('v1', 'Namespace', '0a05'))), (e: Error) => e instanceof ProtobufError && /v1, Kind=Namespace/.test(e.message))
      assert.throws(() => codec.decode(hex(MAGIC + '0a')), ProtobufError)
      assert.throws(() => codec.decode(hex(envelope('example.com/v1', 'Widget', ''))), (e: Error) => e instanceof ProtobufError && /example\.com\/v1, Kind=Widget/.test(e.message))
      assert.throws(() => codec.decode(hex(MAGIC + ld('12', ''))), (e: Error) => e instanceof ProtobufError && /kind/i.test(e.message))
      assert.throws(() => codec.encode({ apiVersion: 'example.com/v1', kind: 'Widget' }), ProtobufError)
      assert.throws(() => codec.encode({ metadata: {} }), ProtobufError)
      assert.throws(() => codec.encode({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 5 } }), (e: Error) => e instanceof ProtobufError && /Namespace\.metadata\.name: expected a string/.test(e.message))
      assert.throws(() => codec.encode({ apiVersion: 'v1', kind: 'Namespace', metadata: { creationTimestamp: 'yesterday' } }), (e: Error) => e instanceof ProtobufError && /RFC 3339/.test(e.message))
      assert.throws(() => codec.encode({ apiVersion: 'v1', kind: 'Secret', data: { a: 'not base64!' } }), (e: Error) => e instanceof ProtobufError && /base64/.test(e.message))
    })
  })

  describe('watch frames', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }

    it('frames a bare WatchEvent with a big-endian length, the object as a full envelope inside', () => {
      const object = envelope('v1', 'Pod', ld('0a', ld('0a', str('p'))))
      const event = ld('0a', str('ADDED')) + ld('12', ld('0a', object))
      const frame = codec.encodeWatchFrame('ADDED', pod, 'v1')
      assert.equal(frame.toString('hex'), (event.length / 2).toString(16).padStart(8, '0') + event)
    })

    it('splits and decodes a stream of frames', () => {
      const status = { apiVersion: 'v1', kind: 'Status', status: 'Failure', message: 'too old resource version', reason: 'Expired', code: 410 }
      const stream = Buffer.concat([codec.encodeWatchFrame('ADDED', pod, 'v1'), codec.encodeWatchFrame('MODIFIED', { ...pod, metadata: { name: 'p', resourceVersion: '7' } }, 'v1'), codec.encodeWatchFrame('ERROR', status, 'v1')])
      assert.deepEqual(codec.decodeWatchFrames(stream), [
        { type: 'ADDED', object: pod },
        { type: 'MODIFIED', object: { ...pod, metadata: { name: 'p', resourceVersion: '7' } } },
        { type: 'ERROR', object: status },
      ])
    })

    it('uses the request group version only for an object without apiVersion', () => {
      const [event] = codec.decodeWatchFrames(codec.encodeWatchFrame('DELETED', { kind: 'Deployment', metadata: { name: 'd' } }, 'apps/v1'))
      assert.deepEqual(event, { type: 'DELETED', object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } } })
    })

    it('rejects truncated frames', () => {
      const frame = codec.encodeWatchFrame('ADDED', pod, 'v1')
      assert.throws(() => codec.decodeWatchFrames(frame.subarray(0, frame.length - 1)), (e: Error) => e instanceof ProtobufError && /truncated/.test(e.message))
      assert.throws(() => codec.decodeWatchFrames(frame.subarray(0, 2)), ProtobufError)
    })
  })
})

function namespaceNamed(name: string) {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }
}
