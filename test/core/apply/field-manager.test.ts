/**
 * The field manager against reference behaviour: the Update entries kube-apiserver wrote for
 * real objects, apply's merge (associative lists, sets, atomic values), prune, conflicts with
 * the reference's messages, forcing, and the cap of update managers.
 */
import assert from 'node:assert/strict'
import {
  ApplyBadRequest,
  ApplyConflictError,
  type FieldManagerScope,
  applyConfiguration as applyConfigurationOf,
  builtInType,
  crdType,
  DEDUCED,
  updateManagedFields as updateManagedFieldsOf,
  withoutStatus,
} from '../../../src/core/apply/index.js'

type Obj = Record<string, any>
// The results as loosely typed objects, for reading nested fields in assertions.
const updateManagedFields = (...a: Parameters<typeof updateManagedFieldsOf>): Obj => updateManagedFieldsOf(...a)
const applyConfiguration = (...a: Parameters<typeof applyConfigurationOf>): Obj => applyConfigurationOf(...a)
const NOW = '2024-05-06T07:08:09Z'
const podScope: FieldManagerScope = { type: builtInType('v1', 'Pod')!, apiVersion: 'v1', resetFields: withoutStatus, now: NOW }
const cmScope: FieldManagerScope = { type: builtInType('v1', 'ConfigMap')!, apiVersion: 'v1', now: NOW }
const deployScope: FieldManagerScope = { type: builtInType('apps/v1', 'Deployment')!, apiVersion: 'apps/v1', resetFields: withoutStatus, now: NOW }

const entries = (o: Obj) => o.metadata.managedFields as Obj[]
const fieldsOf = (o: Obj, manager: string, operation = 'Update') => entries(o).find((e) => e.manager === manager && e.operation === operation)?.fieldsV1

/** A pod as `kubectl run ngx --image=nginx` makes it, after the reference's defaulting. */
function kubectlRunPod(): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'ngx', namespace: 'default', labels: { run: 'ngx' } },
    spec: {
      containers: [{ name: 'ngx', image: 'nginx', imagePullPolicy: 'Always', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }],
      dnsPolicy: 'ClusterFirst',
      enableServiceLinks: true,
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
    },
    status: { phase: 'Pending' },
  }
}

describe('apply: managedFields of Update operations', () => {
  it('a create records what kube-apiserver recorded for `kubectl run` (real object)', () => {
    const created = updateManagedFields(undefined, kubectlRunPod(), 'kubectl-run', podScope)
    assert.deepEqual(entries(created), [
      {
        manager: 'kubectl-run',
        operation: 'Update',
        apiVersion: 'v1',
        time: NOW,
        fieldsType: 'FieldsV1',
        fieldsV1: JSON.parse(
          '{"f:metadata":{"f:labels":{".":{},"f:run":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"ngx\\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}',
        ),
      },
    ])
  })

  it('a create records what kube-apiserver recorded for `kubectl create deployment` (real object, 2024): pointer structs own themselves', () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'nginx-0930', namespace: 'default', labels: { app: 'nginx-0930' } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'nginx-0930' } },
        template: {
          metadata: { labels: { app: 'nginx-0930' } },
          spec: {
            containers: [{ name: 'nginx', image: 'nginx', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'Always' }],
            restartPolicy: 'Always',
            terminationGracePeriodSeconds: 30,
            dnsPolicy: 'ClusterFirst',
            securityContext: {},
            schedulerName: 'default-scheduler',
          },
        },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
      },
      status: {},
    }
    const created = updateManagedFields(undefined, deployment, 'kubectl-create', deployScope)
    assert.equal(
      JSON.stringify(fieldsOf(created, 'kubectl-create')),
      '{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:progressDeadlineSeconds":{},"f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}}',
    )
  })

  // OwnerReference is an atomic struct (x-kubernetes-map-type): its item is a leaf, `k:{"uid":...}: {}`,
  // as in the managedFields of a 2022 cluster's ReplicaSet pod (older clusters listed its fields).
  it('a controller-made pod: owner references by uid (atomic items), ports by containerPort and protocol (real object)', () => {
    const pod = kubectlRunPod()
    pod.metadata = {
      generateName: 'easyspark-5d8f-',
      namespace: 'default',
      labels: { app: 'easyspark', 'pod-template-hash': '5d8f' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'easyspark-5d8f', uid: '4d451b5a-c85c-4949-8154-cec202f4f09f', controller: true, blockOwnerDeletion: true }],
    }
    pod.spec.containers = [{ ...pod.spec.containers[0], name: 'easyspark', ports: [{ containerPort: 8080, protocol: 'TCP' }] }]
    const created = updateManagedFields(undefined, pod, 'kube-controller-manager', podScope)
    assert.equal(
      JSON.stringify(fieldsOf(created, 'kube-controller-manager')),
      '{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\\"uid\\":\\"4d451b5a-c85c-4949-8154-cec202f4f09f\\"}":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"easyspark\\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{".":{},"k:{\\"containerPort\\":8080,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{},"f:protocol":{}}},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}',
    )
  })

  it('an update takes the fields it changes from their owners; an unchanged write keeps the time', () => {
    const created = updateManagedFields(undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1', b: '2' } }, 'kubectl-create', { ...cmScope, now: '2024-01-01T00:00:00Z' })
    const next = structuredClone(created)
    next.data.a = '9'
    const updated = updateManagedFields(created, next, 'kubectl-edit', cmScope)
    assert.deepEqual(
      entries(updated).map((e) => [e.manager, e.time, e.fieldsV1]),
      [
        ['kubectl-create', '2024-01-01T00:00:00Z', { 'f:data': { '.': {}, 'f:b': {} } }],
        ['kubectl-edit', NOW, { 'f:data': { 'f:a': {} } }],
      ],
    )
    const again = updateManagedFields(updated, structuredClone(updated), 'kubectl-edit', { ...cmScope, now: '2030-01-01T00:00:00Z' })
    assert.deepEqual(again.metadata.managedFields, updated.metadata.managedFields)
  })

  it('removing a field removes it from its owner; an owner left with nothing is dropped', () => {
    const created = updateManagedFields(undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } }, 'creator', cmScope)
    const next = structuredClone(created)
    delete next.data
    const updated = updateManagedFields(created, next, 'editor', cmScope)
    assert.equal(updated.metadata.managedFields, undefined)
  })

  it('managedFields: [] in the request resets them; a status write records the subresource', () => {
    const created = updateManagedFields(undefined, kubectlRunPod(), 'kubectl-run', podScope)
    const reset = structuredClone(created)
    reset.metadata.managedFields = []
    assert.equal(updateManagedFields(created, reset, 'x', podScope).metadata.managedFields, undefined)
    const withStatus = structuredClone(created)
    withStatus.status = { phase: 'Running' }
    const status = updateManagedFields(created, withStatus, 'kubelet', { ...podScope, subresource: 'status', resetFields: undefined })
    assert.deepEqual(entries(status).find((e) => e.manager === 'kubelet'), {
      manager: 'kubelet',
      operation: 'Update',
      apiVersion: 'v1',
      time: NOW,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:status': { 'f:phase': {} } },
      subresource: 'status',
    })
  })

  it('a create (no live object) records exactly what an update from an empty live object records', () => {
    // The create builds the creator's entry directly; the update path is the general one.
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', labels: { app: 'd' } }, spec: { replicas: 2, selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } }, status: { replicas: 2 } }
    const cases: [Obj, string, FieldManagerScope][] = [
      [kubectlRunPod(), 'kubectl-run', podScope],
      [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'c-', namespace: 'bench', labels: { app: 'bench' } }, data: { payload: 'x' } }, 'wrk', cmScope],
      [deployment, 'kubectl-create', deployScope],
      [{ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't' }, spec: { replicas: 1, list: [1, 2] } }, 'creator', { type: DEDUCED, apiVersion: 'example.com/v1', now: NOW }],
      [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nothing-owned' } }, 'creator', cmScope],
      [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: 'not an object', data: { a: '1' } }, 'creator', cmScope],
      [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad' }, data: ['not', 'a', 'map'] }, 'creator', cmScope],
      [kubectlRunPod(), 'kubelet', { ...podScope, subresource: 'status', resetFields: undefined }],
    ]
    for (const [obj, manager, scope] of cases) {
      const created = updateManagedFields(undefined, structuredClone(obj), manager, scope)
      const general = updateManagedFields({}, structuredClone(obj), manager, scope)
      assert.equal(JSON.stringify(created), JSON.stringify(general), `${manager} ${JSON.stringify(obj.metadata)}`)
    }
    assert.equal(updateManagedFields(undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nothing-owned' } }, 'creator', cmScope).metadata.managedFields, undefined)
  })

  it('keeps at most 10 update managers: the oldest merge into ancient-changes', () => {
    let obj: Obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: {} }
    for (let i = 0; i < 12; i++) {
      const next = structuredClone(obj)
      next.data[`k${i}`] = 'v'
      obj = updateManagedFields(obj, next, `m${String(i).padStart(2, '0')}`, { ...cmScope, now: `2024-01-01T00:00:${String(i).padStart(2, '0')}Z` })
    }
    const managers = entries(obj).map((e) => e.manager)
    assert.equal(managers.length, 10)
    assert.equal(managers[0], 'ancient-changes')
    assert.deepEqual(entries(obj)[0]!.fieldsV1, { 'f:data': { 'f:k0': {}, 'f:k1': {}, 'f:k2': {} } })
    assert.equal(entries(obj)[0]!.time, '2024-01-01T00:00:02Z')
  })
})

describe('apply: Apply operations', () => {
  const cm = (data: Obj, extra: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', ...extra }, data })

  it('owns exactly the applied fields: no `.` for maps it applies entries of (the reference docs example)', () => {
    const out = applyConfiguration(undefined, cm({ key: 'some value' }, { labels: { 'test-label': 'test' } }), { manager: 'kubectl', force: false }, cmScope)
    assert.deepEqual(entries(out), [
      { manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', time: NOW, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:key': {} }, 'f:metadata': { 'f:labels': { 'f:test-label': {} } } } },
    ])
  })

  it('merges associative lists by key, sets by value, replaces atomic lists and maps', () => {
    const live = updateManagedFields(
      undefined,
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd', finalizers: ['a'] },
        spec: {
          selector: { matchLabels: { app: 'd', tier: 'x' } },
          template: { spec: { containers: [{ name: 'one', image: 'i1', args: ['--a', '--b'] }, { name: 'two', image: 'i2' }] } },
        },
      },
      'creator',
      deployScope,
    )
    const config = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', finalizers: ['b'] },
      spec: { selector: { matchLabels: { app: 'd' } }, template: { spec: { containers: [{ name: 'three', image: 'i3' }, { name: 'one', args: ['--c'] }] } } },
    }
    const out = applyConfiguration(live, config, { manager: 'applier', force: true }, deployScope)
    assert.deepEqual(out.metadata.finalizers, ['a', 'b'])
    assert.deepEqual(out.spec.selector, { matchLabels: { app: 'd' } }, 'an atomic struct is replaced whole')
    assert.deepEqual(
      out.spec.template.spec.containers.map((c: Obj) => [c.name, c.image, c.args]),
      [
        ['three', 'i3', undefined],
        ['one', 'i1', ['--c']],
        ['two', 'i2', undefined],
      ],
    )
  })

  it('conflicts with an Update manager: the reference message and causes; force moves the field', () => {
    const live = updateManagedFields(undefined, cm({ a: '1', b: '2' }), 'kubectl-client-side-apply', cmScope)
    assert.throws(
      () => applyConfiguration(live, cm({ a: 'x' }), { manager: 'mine', force: false }, cmScope),
      (err: unknown) => {
        assert.ok(err instanceof ApplyConflictError)
        assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a')
        assert.deepEqual(err.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using v1', field: '.data.a' }])
        return true
      },
    )
    // The same value is shared ownership, not a conflict.
    const shared = applyConfiguration(live, cm({ a: '1' }), { manager: 'mine', force: false }, cmScope)
    assert.deepEqual(fieldsOf(shared, 'kubectl-client-side-apply'), { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } })
    const forced = applyConfiguration(live, cm({ a: 'x' }), { manager: 'mine', force: true }, cmScope)
    assert.equal(forced.data.a, 'x')
    assert.deepEqual(fieldsOf(forced, 'kubectl-client-side-apply'), { 'f:data': { '.': {}, 'f:b': {} } })
    assert.deepEqual(fieldsOf(forced, 'mine', 'Apply'), { 'f:data': { 'f:a': {} } })
  })

  it('several conflicts: grouped by manager, Apply managers without a version', () => {
    let live = applyConfiguration(undefined, cm({ a: '1' }, { labels: { app: 'x' } }), { manager: 'bar', force: false }, cmScope)
    const next = structuredClone(live)
    next.data.b = '2'
    live = updateManagedFields(live, next, 'foo', cmScope)
    assert.throws(
      () => applyConfiguration(live, cm({ a: '9', b: '9' }, { labels: { app: 'y' } }), { manager: 'mine', force: false }, cmScope),
      (err: unknown) => {
        assert.ok(err instanceof ApplyConflictError)
        assert.equal(err.message, 'Apply failed with 3 conflicts: conflicts with "bar":\n- .data.a\n- .metadata.labels.app\nconflicts with "foo" using v1:\n- .data.b')
        return true
      },
    )
  })

  it('prunes what the applier applied before and left out, unless another manager owns it', () => {
    const first = applyConfiguration(undefined, cm({ a: '1', b: '2', c: '3' }), { manager: 'mine', force: false }, cmScope)
    const shared = applyConfiguration(first, cm({ b: '2' }), { manager: 'other', force: false }, cmScope)
    const second = applyConfiguration(shared, cm({ a: '1' }), { manager: 'mine', force: false }, cmScope)
    assert.deepEqual(second.data, { a: '1', b: '2' })
    assert.deepEqual(fieldsOf(second, 'mine', 'Apply'), { 'f:data': { 'f:a': {} } })
    const third = applyConfiguration(second, cm({}), { manager: 'mine', force: false }, cmScope)
    assert.deepEqual(third.data, { b: '2' })
  })

  it('an unchanged re-apply keeps the time; before-first-apply owns what an untracked object held', () => {
    const first = applyConfiguration(undefined, cm({ a: '1' }), { manager: 'mine', force: false }, { ...cmScope, now: '2024-01-01T00:00:00Z' })
    const again = applyConfiguration(first, cm({ a: '1' }), { manager: 'mine', force: false }, cmScope)
    assert.deepEqual(again, first)
    const sharer = applyConfiguration(first, cm({ a: '1' }), { manager: 'sharer', force: false }, cmScope)
    assert.deepEqual(
      entries(sharer).find((e) => e.manager === 'sharer'),
      { manager: 'sharer', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } },
      'a first apply that changes nothing has no time',
    )
    const untracked = applyConfiguration(cm({ old: 'x' }), cm({ a: '1' }), { manager: 'mine', force: false }, cmScope)
    assert.deepEqual(fieldsOf(untracked, 'before-first-apply'), { 'f:data': { '.': {}, 'f:old': {} } })
    assert.deepEqual(untracked.data, { old: 'x', a: '1' })
  })

  it('rejects a configuration of another version or one with managedFields (the reference messages)', () => {
    assert.throws(() => applyConfiguration(undefined, { apiVersion: 'apps/v1beta1', kind: 'Deployment', metadata: { name: 'd' } }, { manager: 'm', force: false }, deployScope), (err: unknown) => {
      assert.ok(err instanceof ApplyBadRequest)
      assert.equal(err.message, 'Incorrect version specified in apply patch. Specified patch version: apps/v1beta1, expected: apps/v1')
      return true
    })
    assert.throws(() => applyConfiguration(undefined, cm({}, { managedFields: [] }), { manager: 'm', force: false }, cmScope), /^Error: metadata.managedFields must be nil$/)
  })

  it('rejects what the schema does not declare, with the path of each field', () => {
    const np = { type: builtInType('networking.k8s.io/v1', 'NetworkPolicy')!, apiVersion: 'networking.k8s.io/v1', now: NOW }
    const config = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'p' }, spec: { ingress: [{ _from: [] }] } }
    // As reported against kube-apiserver (defenseunicorns/kubernetes-fluent-client#819).
    assert.throws(() => applyConfiguration(undefined, config, { manager: 'm', force: false }, np), /^Error: \.spec\.ingress\[0\]\._from: field not declared in schema$/)
    const two = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ protocol: 'UDP' }], bogus: 1 } }
    assert.throws(
      () => applyConfiguration(undefined, two, { manager: 'm', force: false }, { type: builtInType('v1', 'Service')!, apiVersion: 'v1', now: NOW }),
      (err: Error) => {
        assert.equal(err.message, 'errors:\n  .spec.ports: element 0: associative list with keys has an element that omits key field "port" (and doesn\'t have default value)\n  .spec.bogus: field not declared in schema')
        return true
      },
    )
  })

  it('custom resources: the CRD schema keys lists; without one lists are atomic and maps granular', () => {
    const schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } } },
            tags: { type: 'array', items: { type: 'string' } },
          },
        },
      },
    }
    const cr = (spec: Obj): Obj => ({ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't' }, spec })
    const typed = { type: crdType(schema), apiVersion: 'example.com/v1', now: NOW }
    const live = applyConfiguration(undefined, cr({ ports: [{ name: 'a', port: 1 }], tags: ['x'] }), { manager: 'one', force: false }, typed)
    assert.deepEqual(fieldsOf(live, 'one', 'Apply'), { 'f:spec': { 'f:ports': { 'k:{"name":"a"}': { '.': {}, 'f:name': {}, 'f:port': {} } }, 'f:tags': {} } })
    const merged = applyConfiguration(live, cr({ ports: [{ name: 'b', port: 2 }] }), { manager: 'two', force: false }, typed)
    assert.deepEqual(merged.spec.ports, [{ name: 'a', port: 1 }, { name: 'b', port: 2 }])
    // An embedded resource (x-kubernetes-embedded-resource) has its own apiVersion, kind and metadata.
    const embedded = crdType({ type: 'object', properties: { spec: { type: 'object', properties: { template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: {} } } } } })
    const withTemplate = applyConfiguration(
      undefined,
      { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't' }, spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { labels: { a: 'b' } } } } },
      { manager: 'one', force: false },
      { type: embedded, apiVersion: 'example.com/v1', now: NOW },
    )
    assert.deepEqual(fieldsOf(withTemplate, 'one', 'Apply'), { 'f:spec': { 'f:template': { 'f:apiVersion': {}, 'f:kind': {}, 'f:metadata': { 'f:labels': { 'f:a': {} } } } } })
    const deduced = { type: DEDUCED, apiVersion: 'example.com/v1', now: NOW }
    const created = updateManagedFields(undefined, cr({ replicas: 1, list: [1, 2] }), 'kubectl-create', deduced)
    assert.deepEqual(fieldsOf(created, 'kubectl-create'), { 'f:spec': { '.': {}, 'f:list': {}, 'f:replicas': {} } })
  })
})
