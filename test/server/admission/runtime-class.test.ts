/**
 * The RuntimeClass plugin, with the cases of the reference's plugin/pkg/admission/runtimeclass
 * admission_test.go (TestSetOverhead, TestSetScheduling, TestAdmit, TestValidate,
 * TestValidateOverhead) and its messages.
 */
import assert from 'node:assert/strict'
import type { AdmissionAttributes } from '../../../src/server/admission/attributes.js'
import { RuntimeClass } from '../../../src/server/admission/runtime-class.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { ApiError } from '../../../src/server/api/status-errors.js'
import { type TestRegistry, openTestRegistry } from '../api/support.js'

const guaranteed = { limits: { cpu: '1', memory: '10' }, requests: { cpu: '1', memory: '10' } }
const overhead = { cpu: '100m', memory: '1' }

function overheadPod(name: string, resources: Record<string, unknown> = {}, setOverhead = false, runtimeClassName = 'foo'): KubeObject {
  return {
    metadata: { name, namespace: 'test' },
    spec: { runtimeClassName, containers: [{ name: 'foo-0', image: 'foo:V0', resources }], ...(setOverhead ? { overhead: { ...overhead } } : {}) },
  }
}

function schedulingPod(name: string, nodeSelector?: Record<string, string>, tolerations?: unknown[]): KubeObject {
  return { metadata: { name, namespace: 'test' }, spec: { runtimeClassName: 'foo', ...(nodeSelector ? { nodeSelector } : {}), ...(tolerations ? { tolerations } : {}) } }
}

function runtimeClass(over: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'foo' }, handler: 'bar', ...over }
}

function attributes(object: KubeObject): AdmissionAttributes {
  return {
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource: '',
    namespace: 'test',
    name: object.metadata.name ?? '',
    object,
    dryRun: false,
  }
}

const toleration = (key: string, value: string) => ({ key, operator: 'Equal', value, effect: 'NoSchedule' })

describe('admission: RuntimeClass', () => {
  let t: TestRegistry
  let plugin: RuntimeClass

  async function withClass(c: KubeObject | undefined): Promise<void> {
    for (const kv of (await t.store.list('/runtimeclasses/')).items) await t.store.delete(kv.key)
    if (c) await t.store.create(`/runtimeclasses/${c.metadata.name}`, Buffer.from(JSON.stringify(c)))
  }

  async function refused(attempt: Promise<void>, message: string): Promise<void> {
    await assert.rejects(attempt, (err: unknown) => err instanceof ApiError && err.code === 403 && err.message === message)
  }

  before(async () => {
    t = await openTestRegistry('admission-runtime-class-')
    plugin = new RuntimeClass({ stores: () => t.registry, config: {}, log: () => {} })
  })
  after(async () => t.close())

  describe('TestSetOverhead', () => {
    it('overhead, no container requirements', async () => {
      await withClass(runtimeClass({ overhead: { podFixed: overhead } }))
      const pod = overheadPod('no-resource-req-no-overhead')
      await plugin.admit(attributes(pod))
      assert.deepEqual((pod.spec as Record<string, unknown>).overhead, overhead)
    })
    it('overhead, guaranteed pod', async () => {
      await withClass(runtimeClass({ overhead: { podFixed: overhead } }))
      const pod = overheadPod('guaranteed', guaranteed)
      await plugin.admit(attributes(pod))
      assert.deepEqual((pod.spec as Record<string, unknown>).overhead, overhead)
    })
    it('overhead, pod with differing overhead already set', async () => {
      await withClass(runtimeClass({ overhead: { podFixed: { cpu: '10', memory: '10G' } } }))
      await refused(plugin.admit(attributes(overheadPod('empty-requiremennts-overhead', {}, true))), 'pods "empty-requiremennts-overhead" is forbidden: pod rejected: Pod\'s Overhead doesn\'t match RuntimeClass\'s defined Overhead')
    })
    it('overhead, pod with same overhead already set', async () => {
      await withClass(runtimeClass({ overhead: { podFixed: { cpu: '0.1', memory: '1' } } }))
      await plugin.admit(attributes(overheadPod('empty-requiremennts-overhead', {}, true)))
    })
  })

  describe('TestSetScheduling', () => {
    const cases: { name: string; scheduling?: Record<string, unknown>; pod: KubeObject; expected?: KubeObject; error?: string }[] = [
      { name: 'scheduling, nil scheduling', pod: schedulingPod('pod-with-conflict-node-selector', { foo: 'bar' }, []), expected: schedulingPod('pod-with-conflict-node-selector', { foo: 'bar' }, []) },
      {
        name: 'scheduling, conflict node selector',
        scheduling: { nodeSelector: { foo: 'conflict' } },
        pod: schedulingPod('pod-with-conflict-node-selector', { foo: 'bar' }, []),
        error: 'pods "pod-with-conflict-node-selector" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[foo] = conflict; pod.spec.nodeSelector[foo] = bar',
      },
      { name: 'scheduling, nil node selector', scheduling: { nodeSelector: { foo: 'bar' } }, pod: schedulingPod('pod-with-conflict-node-selector'), expected: schedulingPod('pod-with-conflict-node-selector', { foo: 'bar' }) },
      { name: 'scheduling, node selector with the same key value', scheduling: { nodeSelector: { foo: 'bar' } }, pod: schedulingPod('pod-with-same-key-value-node-selector', { foo: 'bar' }), expected: schedulingPod('pod-with-same-key-value-node-selector', { foo: 'bar' }) },
      {
        name: 'scheduling, node selector with different key value',
        scheduling: { nodeSelector: { foo: 'bar', fizz: 'buzz' } },
        pod: schedulingPod('pod-with-different-key-value-node-selector', { foo: 'bar' }),
        expected: schedulingPod('pod-with-different-key-value-node-selector', { foo: 'bar', fizz: 'buzz' }),
      },
      {
        name: 'scheduling, multiple tolerations',
        scheduling: { tolerations: [toleration('foo', 'bar'), toleration('fizz', 'buzz')] },
        pod: schedulingPod('pod-with-tolerations', { foo: 'bar' }, [toleration('foo', 'bar')]),
        expected: schedulingPod('pod-with-tolerations', { foo: 'bar' }, [toleration('foo', 'bar'), toleration('fizz', 'buzz')]),
      },
      {
        name: 'a toleration the class has, covered by one of the pod, is not added',
        scheduling: { tolerations: [toleration('foo', 'bar')] },
        pod: schedulingPod('pod-with-tolerations', undefined, [{ key: 'foo', operator: 'Exists' }]),
        expected: schedulingPod('pod-with-tolerations', undefined, [{ key: 'foo', operator: 'Exists' }]),
      },
    ]
    for (const c of cases) {
      it(c.name, async () => {
        await withClass(runtimeClass(c.scheduling ? { scheduling: c.scheduling } : {}))
        const pod = structuredClone(c.pod)
        if (c.error !== undefined) return refused(plugin.admit(attributes(pod)), c.error)
        await plugin.admit(attributes(pod))
        assert.deepEqual(pod, c.expected)
      })
    }
  })

  describe('TestAdmit', () => {
    it('runtimeClass found', async () => {
      await withClass(runtimeClass({ metadata: { name: 'runtimeClassName' } }))
      await plugin.admit(attributes(overheadPod('podname', {}, false, 'runtimeClassName')))
    })
    it('runtimeClass not found', async () => {
      await withClass(undefined)
      await refused(plugin.admit(attributes(overheadPod('podname', {}, false, 'runtimeClassName'))), 'pods "podname" is forbidden: pod rejected: RuntimeClass "runtimeClassName" not found')
    })
    it('a pod naming no class is left alone', async () => {
      const pod: KubeObject = { metadata: { name: 'p', namespace: 'test' }, spec: { containers: [] } }
      await plugin.admit(attributes(pod))
      await plugin.validate(attributes(pod))
      assert.deepEqual(pod.spec, { containers: [] })
    })
  })

  describe('TestValidate, TestValidateOverhead', () => {
    const cases: { name: string; overhead?: Record<string, string>; pod: KubeObject; error?: string }[] = [
      { name: 'No Overhead in RunntimeClass, Overhead set in pod', pod: overheadPod('no-resource-req-no-overhead', guaranteed, true), error: 'pods "no-resource-req-no-overhead" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead' },
      { name: 'Non-matching Overheads', overhead: { cpu: '10', memory: '10G' }, pod: overheadPod('no-resource-req-no-overhead', {}, true), error: 'pods "no-resource-req-no-overhead" is forbidden: pod rejected: Pod\'s Overhead doesn\'t match RuntimeClass\'s defined Overhead' },
      { name: 'Matching Overheads', overhead, pod: overheadPod('no-resource-req-no-overhead', {}, true) },
      { name: 'Overhead part of RuntimeClass, no Overhead defined in pod', overhead, pod: overheadPod('no-requirements'), error: 'pods "no-requirements" is forbidden: pod rejected: Pod\'s Overhead doesn\'t match RuntimeClass\'s defined Overhead' },
      { name: 'No Overhead in RuntimeClass, no Overhead in pod', pod: overheadPod('no-overhead') },
    ]
    for (const c of cases) {
      it(c.name, async () => {
        await withClass(runtimeClass(c.overhead ? { overhead: { podFixed: c.overhead } } : {}))
        const attempt = plugin.validate(attributes(c.pod))
        if (c.error === undefined) await attempt
        else await refused(attempt, c.error)
      })
    }
  })
})
