/**
 * The Priority plugin, with the cases of the reference's plugin/pkg/admission/priority
 * admission_test.go (TestPodAdmission, TestPriorityClassAdmission, TestDefaultPriority) and
 * its messages.
 */
import assert from 'node:assert/strict'
import type { AdmissionAttributes, AdmissionOperation } from '../../../src/server/admission/attributes.js'
import { Priority } from '../../../src/server/admission/priority.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { ApiError } from '../../../src/server/api/status-errors.js'
import { type TestRegistry, openTestRegistry } from '../api/support.js'

const defaultClass1 = { metadata: { name: 'default1' }, value: 1000, globalDefault: true }
const defaultClass2 = { metadata: { name: 'default2' }, value: 2000, globalDefault: true }
const nondefaultClass1 = { metadata: { name: 'nondefault1' }, value: 2000, description: 'Just a test priority class' }
const systemClusterCritical = { metadata: { name: 'system-cluster-critical' }, value: 2000000000, globalDefault: true }
const preemptionPolicyClass = { metadata: { name: 'nopreemptionpolicy' }, value: 2000, description: 'Just a test priority class', globalDefault: true, preemptionPolicy: 'PreemptLowerPriority' }
const neverPreemptionPolicyClass = { ...preemptionPolicyClass, preemptionPolicy: 'Never' }

type Class = { metadata: { name: string } } & Record<string, unknown>

function pod(name: string, namespace: string, spec: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, ...(annotations ? { annotations } : {}) }, spec: { containers: [{ name: 'container' }], ...spec } }
}

function podAttributes(object: KubeObject, operation: AdmissionOperation = 'CREATE', oldObject?: KubeObject): AdmissionAttributes {
  return {
    operation,
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource: '',
    namespace: object.metadata.namespace ?? '',
    name: object.metadata.name ?? '',
    object,
    ...(oldObject ? { oldObject } : {}),
    dryRun: false,
  }
}

function classAttributes(object: KubeObject | undefined, operation: AdmissionOperation, name = object?.metadata.name ?? ''): AdmissionAttributes {
  return {
    operation,
    kind: { group: 'scheduling.k8s.io', version: 'v1', kind: 'PriorityClass' },
    resource: { group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses' },
    subresource: '',
    namespace: '',
    name,
    ...(object ? { object } : {}),
    dryRun: false,
  }
}

describe('admission: Priority', () => {
  let t: TestRegistry
  let plugin: Priority

  /** The classes in the store, as the reference adds them to its informer (no validation). */
  async function withClasses(classes: readonly Class[]): Promise<void> {
    for (const kv of (await t.store.list('/priorityclasses/')).items) await t.store.delete(kv.key)
    for (const c of classes) await t.store.create(`/priorityclasses/${c.metadata.name}`, Buffer.from(JSON.stringify({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', ...c })))
  }

  before(async () => {
    t = await openTestRegistry('admission-priority-')
    plugin = new Priority({ stores: () => t.registry, config: {}, log: () => {} })
  })
  after(async () => t.close())

  describe('pods (TestPodAdmission)', () => {
    const cases: { name: string; classes: Class[]; pod: KubeObject; priority?: number; error?: string; policy?: string }[] = [
      { name: 'Pod with priority class', classes: [defaultClass1, nondefaultClass1], pod: pod('pod-w-priorityclass', 'namespace', { priorityClassName: 'default1' }), priority: 1000 },
      { name: 'Pod without priority class', classes: [defaultClass1], pod: pod('pod-wo-priorityclass', 'namespace'), priority: 1000 },
      { name: 'pod without priority class and no existing priority class', classes: [], pod: pod('pod-wo-priorityclass', 'namespace'), priority: 0, policy: 'PreemptLowerPriority' },
      { name: 'pod without priority class and no default class', classes: [nondefaultClass1], pod: pod('pod-wo-priorityclass', 'namespace'), priority: 0 },
      { name: 'pod with a system priority class', classes: [systemClusterCritical], pod: pod('pod-w-system-priority', 'kube-system', { priorityClassName: 'system-cluster-critical' }), priority: 2000000000 },
      {
        name: 'Pod with non-existing priority class',
        classes: [defaultClass1, nondefaultClass1],
        pod: pod('pod-w-non-existing-priorityclass', 'namespace', { priorityClassName: 'non-existing' }),
        error: 'pods "pod-w-non-existing-priorityclass" is forbidden: no PriorityClass with name non-existing was found',
      },
      {
        name: 'pod with integer priority',
        classes: [],
        pod: pod('pod-w-integer-priority', 'namespace', { priorityClassName: 'default1', priority: 1000 }),
        error: 'pods "pod-w-integer-priority" is forbidden: no PriorityClass with name default1 was found',
      },
      { name: 'mirror pod with system priority class', classes: [systemClusterCritical], pod: pod('mirror-pod-w-system-priority', 'kube-system', { priorityClassName: 'system-cluster-critical' }, { 'kubernetes.io/config.mirror': '' }), priority: 2000000000 },
      {
        name: 'mirror pod with integer priority',
        classes: [],
        pod: pod('mirror-pod-w-integer-priority', 'namespace', { priorityClassName: 'default1', priority: 1000 }, { 'kubernetes.io/config.mirror': '' }),
        error: 'pods "mirror-pod-w-integer-priority" is forbidden: no PriorityClass with name default1 was found',
      },
      { name: 'pod with system critical priority in non-system namespace', classes: [systemClusterCritical], pod: pod('pod-w-system-priority-in-nonsystem-namespace', 'non-system-namespace', { priorityClassName: 'system-cluster-critical' }), priority: 2000000000 },
      { name: 'pod with priority that matches computed priority', classes: [nondefaultClass1], pod: pod('pod-w-zero-priority-in-nonsystem-namespace', 'non-system-namespace', { priority: 0 }), priority: 0 },
      { name: 'pod with priority that matches default priority', classes: [defaultClass2], pod: pod('pod-w-priority-matching-default-priority', 'non-system-namespace', { priority: 2000 }), priority: 2000 },
      { name: 'pod with priority that matches resolved priority', classes: [systemClusterCritical], pod: pod('pod-w-priority-matching-resolved-default-priority', 'kube-system', { priorityClassName: 'system-cluster-critical', priority: 2000000000 }), priority: 2000000000 },
      { name: 'pod with nil preemtpion policy', classes: [preemptionPolicyClass], pod: pod('pod-never-preemption-policy-matching-resolved-preemption-policy', 'kube-system', { priorityClassName: 'nopreemptionpolicy', priority: 2000 }), priority: 2000, policy: 'PreemptLowerPriority' },
      { name: 'pod with preemtpion policy that matches resolved preemtpion policy', classes: [preemptionPolicyClass], pod: pod('pod-preemption-policy-matching-resolved-preemption-policy', 'kube-system', { priorityClassName: 'nopreemptionpolicy', priority: 2000, preemptionPolicy: 'PreemptLowerPriority' }), priority: 2000, policy: 'PreemptLowerPriority' },
      {
        name: "pod with preemtpion policy that does't matches resolved preemtpion policy",
        classes: [preemptionPolicyClass],
        pod: pod('pod-preemption-policy-not-matching-resolved-preemption-policy', 'kube-system', { priorityClassName: 'nopreemptionpolicy', priority: 2000, preemptionPolicy: 'Never' }),
        error: 'pods "pod-preemption-policy-not-matching-resolved-preemption-policy" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name',
      },
      {
        name: 'pod with a priority other than its class',
        classes: [defaultClass1],
        pod: pod('pod-w-integer-priority', 'namespace', { priorityClassName: 'default1', priority: 5 }),
        error: 'pods "pod-w-integer-priority" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name',
      },
      { name: 'pod taking the never policy of the default class', classes: [neverPreemptionPolicyClass], pod: pod('pod-wo-priorityclass', 'namespace'), priority: 2000, policy: 'Never' },
    ]
    for (const c of cases) {
      it(c.name, async () => {
        await withClasses(c.classes)
        const object = structuredClone(c.pod)
        const attempt = plugin.admit(podAttributes(object))
        if (c.error !== undefined) {
          await assert.rejects(attempt, (err: unknown) => err instanceof ApiError && err.code === 403 && err.message === c.error)
          return
        }
        await attempt
        const spec = object.spec as Record<string, unknown>
        assert.equal(spec.priority, c.priority)
        if (c.policy !== undefined) assert.equal(spec.preemptionPolicy, c.policy)
        // The default class's name is written to the pod that names none.
        const given = (c.pod.spec as Record<string, unknown>).priorityClassName
        const defaults = c.classes.filter((pc) => pc.globalDefault === true).sort((x, y) => Number(x.value) - Number(y.value))
        assert.equal(spec.priorityClassName, given ?? defaults[0]?.metadata.name)
      })
    }

    it('an update keeps the priority and the policy the pod was created with', async () => {
      const old = pod('p', 'namespace', { priority: 1000, preemptionPolicy: 'Never' })
      const object = pod('p', 'namespace')
      await plugin.admit(podAttributes(object, 'UPDATE', old))
      assert.deepEqual([(object.spec as Record<string, unknown>).priority, (object.spec as Record<string, unknown>).preemptionPolicy], [1000, 'Never'])
    })

    it('leaves subresources alone', async () => {
      await withClasses([])
      const object = pod('p', 'namespace', { priorityClassName: 'missing' })
      await plugin.admit({ ...podAttributes(object), subresource: 'status' })
      assert.equal((object.spec as Record<string, unknown>).priority, undefined)
    })
  })

  describe('priority classes (TestPriorityClassAdmission, TestDefaultPriority)', () => {
    const systemClass = { metadata: { name: 'system-test' }, value: 1000000001, description: 'Name has system critical prefix' }
    const cases: { name: string; existing: Class[]; object?: Class; old?: Class; operation: AdmissionOperation; error?: string }[] = [
      { name: 'one default class', existing: [], object: defaultClass1, operation: 'CREATE' },
      { name: 'more than one default classes', existing: [defaultClass1], object: defaultClass2, operation: 'CREATE', error: 'priorityclasses.scheduling.k8s.io "default2" is forbidden: PriorityClass default1 is already marked as default. Only one default can exist' },
      { name: 'system name and value are allowed by admission controller', existing: [], object: systemClass, operation: 'CREATE' },
      { name: 'add a default class', existing: [nondefaultClass1], object: defaultClass1, operation: 'CREATE' },
      { name: 'multiple default classes: deleting one', existing: [defaultClass1, defaultClass2], operation: 'DELETE' },
      { name: 'update default class and remove its global default', existing: [defaultClass1], object: { ...defaultClass1, globalDefault: false }, old: defaultClass1, operation: 'UPDATE' },
      { name: 'the default class updated, still default', existing: [defaultClass1], object: { ...defaultClass1, description: 'd' }, old: defaultClass1, operation: 'UPDATE' },
      {
        name: 'another class marked default while one is',
        existing: [defaultClass1, nondefaultClass1],
        object: { ...nondefaultClass1, globalDefault: true },
        old: nondefaultClass1,
        operation: 'UPDATE',
        error: 'priorityclasses.scheduling.k8s.io "nondefault1" is forbidden: PriorityClass default1 is already marked as default. Only one default can exist',
      },
    ]
    for (const c of cases) {
      it(c.name, async () => {
        await withClasses(c.existing)
        const a = { ...classAttributes(c.object ? structuredClone(c.object) : undefined, c.operation, c.object?.metadata.name ?? 'default1'), ...(c.old ? { oldObject: c.old } : {}) }
        const attempt = plugin.validate(a)
        if (c.error === undefined) await attempt
        else await assert.rejects(attempt, (err: unknown) => err instanceof ApiError && err.code === 403 && err.message === c.error)
      })
    }

    it('of several default classes, the lowest value is the default priority', async () => {
      await withClasses([defaultClass2, defaultClass1])
      const object = pod('p', 'namespace')
      await plugin.admit(podAttributes(object))
      assert.deepEqual([(object.spec as Record<string, unknown>).priorityClassName, (object.spec as Record<string, unknown>).priority], ['default1', 1000])
    })
  })
})
