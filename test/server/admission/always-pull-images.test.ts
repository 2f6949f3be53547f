import assert from 'node:assert/strict'
import { AlwaysPullImages } from '../../../src/server/admission/always-pull-images.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { attributesFor, refusal } from './table-support.js'

// The reference's alwayspullimages/admission_test.go, case by case.
const policies = (prefix: string) => [
  { name: `${prefix}1`, image: 'image' },
  { name: `${prefix}2`, image: 'image', imagePullPolicy: 'Never' },
  { name: `${prefix}3`, image: 'image', imagePullPolicy: 'IfNotPresent' },
  { name: `${prefix}4`, image: 'image', imagePullPolicy: 'Always' },
]

function pod(spec: Record<string, unknown>, name = '123', namespace = 'test'): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec }
}

describe('admission: AlwaysPullImages', () => {
  it('TestAdmission: a created pod pulls Always in every container and image volume', async () => {
    const p = pod({
      initContainers: policies('init'),
      containers: policies('ctr'),
      ephemeralContainers: [{ name: 'debug', image: 'image', imagePullPolicy: 'Never' }],
      volumes: [
        { name: 'volume1', image: { pullPolicy: 'Never' } },
        { name: 'volume2', image: { pullPolicy: 'IfNotPresent' } },
        { name: 'volume3', image: { pullPolicy: 'Always' } },
        { name: 'plain', emptyDir: {} },
      ],
    })
    await new AlwaysPullImages().admit(attributesFor({ object: p, namespace: 'test', name: '123' }))
    const spec = p.spec as Record<string, Array<Record<string, unknown>>>
    for (const c of [...spec.initContainers!, ...spec.containers!, ...spec.ephemeralContainers!]) assert.equal(c.imagePullPolicy, 'Always', String(c.name))
    assert.deepEqual(
      spec.volumes!.map((v) => (v.image as { pullPolicy?: string } | undefined)?.pullPolicy),
      ['Always', 'Always', 'Always', undefined],
    )
  })

  it('TestValidate: every container and image volume not pulling Always is refused, in the reference order and words', async () => {
    const p = pod({
      initContainers: policies('init'),
      containers: policies('ctr'),
      volumes: [
        { name: 'volume1', image: { pullPolicy: '' } },
        { name: 'volume2', image: { pullPolicy: 'Never' } },
        { name: 'volume3', image: { pullPolicy: 'IfNotPresent' } },
        { name: 'volume4', image: { pullPolicy: 'Always' } },
      ],
    })
    const expected =
      '[' +
      'pods "123" is forbidden: spec.initContainers[0].imagePullPolicy: Unsupported value: "": supported values: "Always", ' +
      'pods "123" is forbidden: spec.initContainers[1].imagePullPolicy: Unsupported value: "Never": supported values: "Always", ' +
      'pods "123" is forbidden: spec.initContainers[2].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always", ' +
      'pods "123" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "": supported values: "Always", ' +
      'pods "123" is forbidden: spec.containers[1].imagePullPolicy: Unsupported value: "Never": supported values: "Always", ' +
      'pods "123" is forbidden: spec.containers[2].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always", ' +
      'pods "123" is forbidden: spec.volumes[0].image.pullPolicy: Unsupported value: "": supported values: "Always", ' +
      'pods "123" is forbidden: spec.volumes[1].image.pullPolicy: Unsupported value: "Never": supported values: "Always", ' +
      'pods "123" is forbidden: spec.volumes[2].image.pullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"' +
      ']'
    // An aggregate is no Status: the reference's handler answers 500 with its text.
    const got = await refusal(new AlwaysPullImages().validate(attributesFor({ object: p, namespace: 'test', name: '123' })))
    assert.equal(got?.message, expected)
    assert.equal(got?.code, 500)
    await new AlwaysPullImages().validate(attributesFor({ object: pod({ containers: [policies('ctr')[3]] }), name: '123' }))
  })

  it('TestOtherResources: other resources and subresources are left alone; a non-pod marked as a pod is a BadRequest', async () => {
    const cases = [
      { name: 'non-pod resource', kind: 'Foo', resource: 'foos', object: undefined as KubeObject | undefined, expectError: false },
      { name: 'pod subresource', kind: 'Pod', resource: 'pods', subresource: 'exec', expectError: false },
      { name: 'non-pod object', kind: 'Pod', resource: 'pods', object: { kind: 'Service', metadata: {} }, expectError: true },
    ]
    for (const tc of cases) {
      const p = pod({ containers: [{ name: 'ctr2', image: 'image', imagePullPolicy: 'Never' }] }, 'testname', 'testnamespace')
      const attributes = attributesFor({ kind: tc.kind, resource: tc.resource, subresource: tc.subresource ?? '', object: tc.object ?? p, namespace: 'testnamespace', name: 'testname' })
      const got = await refusal(new AlwaysPullImages().admit(attributes))
      if (tc.expectError) {
        assert.deepEqual(got, { code: 400, reason: 'BadRequest', message: 'Resource was marked with kind Pod but was unable to be converted' }, tc.name)
        continue
      }
      assert.equal(got, undefined, tc.name)
      assert.equal((p.spec as { containers: Array<{ imagePullPolicy: string }> }).containers[0]!.imagePullPolicy, 'Never', tc.name)
    }
  })

  it('TestUpdatePod: an update bringing no new image is left alone; a new image is made to pull Always', async () => {
    const oldPod = pod({ containers: [{ name: 'ctr2', image: 'image', imagePullPolicy: 'IfNotPresent' }] }, 'testname', 'testnamespace')
    const annotated = pod({ containers: [{ name: 'ctr2', image: 'image', imagePullPolicy: 'IfNotPresent' }] }, 'testname', 'testnamespace')
    annotated.metadata.annotations = { test: 'test' }
    const newImage = pod({ containers: [{ name: 'ctr2', image: 'image2', imagePullPolicy: 'IfNotPresent' }] }, 'testname', 'testnamespace')
    const plugin = new AlwaysPullImages()
    await plugin.admit(attributesFor({ operation: 'UPDATE', object: annotated, oldObject: oldPod }))
    await plugin.validate(attributesFor({ operation: 'UPDATE', object: annotated, oldObject: oldPod }))
    assert.equal((annotated.spec as { containers: Array<{ imagePullPolicy: string }> }).containers[0]!.imagePullPolicy, 'IfNotPresent')
    await plugin.admit(attributesFor({ operation: 'UPDATE', object: newImage, oldObject: oldPod }))
    assert.equal((newImage.spec as { containers: Array<{ imagePullPolicy: string }> }).containers[0]!.imagePullPolicy, 'Always')
  })

  it('handles creates and updates only', () => {
    const plugin = new AlwaysPullImages()
    assert.deepEqual((['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const).map((op) => plugin.handles(op)), [true, true, false, false])
  })
})
