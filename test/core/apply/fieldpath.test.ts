/**
 * fieldsV1 as kube-apiserver writes it: real managedFields entries (from objects a cluster
 * returned, found in public repositories) decode and encode back byte for byte, and the paths
 * print as the reference's conflicts print them.
 */
import assert from 'node:assert/strict'
import { FieldSet, pathString } from '../../../src/core/apply/index.js'

// A pod made by `kubectl run` (kubectl-run, Update, 2023).
const KUBECTL_RUN_POD =
  '{"f:metadata":{"f:labels":{".":{},"f:run":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"ngx\\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}'

// A ReplicaSet's pod (kube-controller-manager, Update): owner references keyed by uid, ports by containerPort and protocol.
const CONTROLLER_POD =
  '{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\\"uid\\":\\"4d451b5a-c85c-4949-8154-cec202f4f09f\\"}":{".":{},"f:apiVersion":{},"f:blockOwnerDeletion":{},"f:controller":{},"f:kind":{},"f:name":{},"f:uid":{}}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"easyspark\\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{".":{},"k:{\\"containerPort\\":8080,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{},"f:protocol":{}}},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}'

// The kubelet's status of a pod: conditions keyed by type.
const KUBELET_STATUS =
  '{"f:status":{"f:conditions":{"k:{\\"type\\":\\"ContainersReady\\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\\"type\\":\\"Initialized\\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}}}}'

describe('apply: fieldsV1', () => {
  for (const [name, text] of [
    ['kubectl run', KUBECTL_RUN_POD],
    ['a controller-made pod', CONTROLLER_POD],
    ['kubelet status', KUBELET_STATUS],
  ] as const) {
    it(`round-trips the managedFields of ${name}`, () => {
      const set = FieldSet.fromFieldsV1(JSON.parse(text))
      assert.equal(JSON.stringify(set.toFieldsV1()), text)
    })
  }

  it('decodes members, children and the `.` of a node that is both', () => {
    const set = FieldSet.fromFieldsV1(JSON.parse(KUBECTL_RUN_POD))
    assert.ok(set.has(['f:metadata', 'f:labels']))
    assert.ok(set.has(['f:metadata', 'f:labels', 'f:run']))
    assert.ok(!set.has(['f:metadata']))
    assert.ok(!set.has(['f:spec', 'f:containers']))
    assert.ok(set.has(['f:spec', 'f:containers', 'k:{"name":"ngx"}']))
    assert.ok(set.has(['f:spec', 'f:securityContext']))
  })

  it('orders fields, then keys, then values, then indexes', () => {
    const set = FieldSet.of(['f:x', 'i:10'], ['f:x', 'i:2'], ['f:x', 'v:"b"'], ['f:x', 'k:{"a":1}'], ['f:x', 'f:z'], ['f:x', 'v:"a"'])
    assert.deepEqual(Object.keys(set.toFieldsV1()['f:x'] as object), ['f:z', 'k:{"a":1}', 'v:"a"', 'v:"b"', 'i:2', 'i:10'])
  })

  it('set algebra: union, difference and intersection keep only non-empty children', () => {
    const a = FieldSet.of(['f:spec', 'f:replicas'], ['f:spec', 'f:paused'])
    const b = FieldSet.of(['f:spec', 'f:replicas'], ['f:data'])
    assert.deepEqual(a.union(b).toFieldsV1(), { 'f:data': {}, 'f:spec': { 'f:paused': {}, 'f:replicas': {} } })
    assert.deepEqual(a.difference(b).toFieldsV1(), { 'f:spec': { 'f:paused': {} } })
    assert.deepEqual(a.intersection(b).toFieldsV1(), { 'f:spec': { 'f:replicas': {} } })
    assert.ok(a.difference(a).isEmpty())
  })

  it('rejects unknown path element types', () => {
    assert.throws(() => FieldSet.fromFieldsV1({ 'x:y': {} }), /unknown path element type/)
  })

  it('prints paths as conflicts do', () => {
    assert.equal(pathString(['f:spec', 'f:replicas']), '.spec.replicas')
    assert.equal(pathString(['f:spec', 'f:containers', 'k:{"name":"nginx"}', 'f:image']), '.spec.containers[name="nginx"].image')
    assert.equal(pathString(['f:spec', 'f:ports', 'k:{"containerPort":80,"protocol":"TCP"}']), '.spec.ports[containerPort=80,protocol="TCP"]')
    assert.equal(pathString(['f:metadata', 'f:finalizers', 'v:"a"']), '.metadata.finalizers[="a"]')
  })
})
