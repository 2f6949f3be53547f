import assert from 'node:assert/strict'
import { ExtendedResourceToleration } from '../../../src/server/admission/extended-resource-toleration.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { attributesFor } from './table-support.js'

// The reference's extendedresourcetoleration/admission_test.go.
const cpu = { resources: { requests: { cpu: '2' } } }
const memory = { resources: { requests: { memory: '2048' } } }
const ext1 = 'example.com/device-ek'
const ext2 = 'example.com/device-do'
const device1 = { resources: { requests: { [ext1]: '1' } } }
const device2 = { resources: { requests: { [ext2]: '2' } } }
const tolerating = (key: string) => ({ key, operator: 'Exists', effect: 'NoSchedule' })
const foo = { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' }

const CASES: Array<{ description: string; spec: Record<string, unknown>; expected: unknown[] | undefined }> = [
  { description: 'empty pod without any extended resources, expect no change in tolerations', spec: {}, expected: undefined },
  { description: 'pod with container without any extended resources, expect no change in tolerations', spec: { containers: [cpu] }, expected: undefined },
  { description: 'pod with init container without any extended resources, expect no change in tolerations', spec: { initContainers: [memory] }, expected: undefined },
  { description: 'pod with container with extended resource, expect toleration to be added', spec: { containers: [device1] }, expected: [tolerating(ext1)] },
  { description: 'pod with init container with extended resource, expect toleration to be added', spec: { initContainers: [device2] }, expected: [tolerating(ext2)] },
  {
    description: 'pod with existing tolerations and container with extended resource, expect existing tolerations to be preserved and new toleration to be added',
    spec: { containers: [cpu, device1], tolerations: [foo] },
    expected: [foo, tolerating(ext1)],
  },
  {
    description: 'pod with multiple extended resources, expect multiple tolerations to be added',
    spec: { containers: [memory, device1], initContainers: [cpu, device2] },
    // Sorted by key.
    expected: [tolerating(ext2), tolerating(ext1)],
  },
  {
    description: 'pod with container requesting extended resource and existing correct toleration, expect no change in tolerations',
    spec: { containers: [cpu, memory, device1], tolerations: [tolerating(ext1)] },
    expected: [tolerating(ext1)],
  },
  {
    description: 'pod with container requesting extended resource and existing toleration with the same key but different effect and value, expect existing tolerations to be preserved and new toleration to be added',
    spec: { containers: [cpu, memory, device1], tolerations: [{ key: ext1, operator: 'Equal', value: 'foo', effect: 'NoExecute' }] },
    expected: [{ key: ext1, operator: 'Equal', value: 'foo', effect: 'NoExecute' }, tolerating(ext1)],
  },
  {
    description: 'pod with wildcard toleration and container requesting extended resource, expect existing tolerations to be preserved and new toleration to be added',
    spec: { containers: [cpu, memory, device1], tolerations: [{ operator: 'Exists' }] },
    expected: [{ operator: 'Exists' }, tolerating(ext1)],
  },
]

describe('admission: ExtendedResourceToleration', () => {
  for (const tc of CASES) {
    it(tc.description, async () => {
      const pod: KubeObject = { kind: 'Pod', metadata: { name: 'name', namespace: 'foo' }, spec: structuredClone(tc.spec) }
      await new ExtendedResourceToleration().admit(attributesFor({ object: pod, namespace: 'foo' }))
      assert.deepEqual((pod.spec as { tolerations?: unknown }).tolerations, tc.expected)
    })
  }

  it('kubernetes.io resources are native, not extended', async () => {
    const pod: KubeObject = { kind: 'Pod', metadata: { name: 'name' }, spec: { containers: [{ resources: { requests: { 'kubernetes.io/x': '1', 'hugepages-2Mi': '1' } } }] } }
    await new ExtendedResourceToleration().admit(attributesFor({ object: pod }))
    assert.equal((pod.spec as { tolerations?: unknown }).tolerations, undefined)
  })

  it('TestHandles: creates and updates', () => {
    const plugin = new ExtendedResourceToleration()
    assert.deepEqual((['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const).map((op) => plugin.handles(op)), [true, true, false, false])
  })
})
