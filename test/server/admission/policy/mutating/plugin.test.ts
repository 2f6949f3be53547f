/**
 * The MutatingAdmissionPolicy plugin over stored policies and bindings
 * (admissionregistration.k8s.io/v1beta1, stored as the API stores them): the cases of the
 * reference's mutating/dispatcher_test.go TestDispatcher, the failurePolicy and reinvocation
 * rules of dispatcher.go and reinvocationcontext.go with the generic dispatcher's refusal
 * (policy_dispatcher.go: a 403 whose message is the first PolicyError's), and the feature gate
 * (plugin.go InspectFeatureGates).
 */
import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'mocha'

import type { AdmissionAttributes } from '../../../../../src/server/admission/attributes.js'
import type { PluginInitialization } from '../../../../../src/server/admission/plugins.js'
import { MutatingAdmissionPolicy } from '../../../../../src/server/admission/policy/mutating/plugin.js'
import type { KubeObject } from '../../../../../src/server/api/registry/object.js'
import { ApiError } from '../../../../../src/server/api/status-errors.js'
import { type TestRegistry, openTestRegistry } from '../../../api/support.js'

type Obj = Record<string, any>

const GROUP = 'admissionregistration.k8s.io'

const DEPLOYMENTS = {
  matchPolicy: 'Equivalent',
  namespaceSelector: {},
  objectSelector: {},
  resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['*'] }],
}

const applyConfiguration = (expression: string) => ({ patchType: 'ApplyConfiguration', applyConfiguration: { expression } })
const jsonPatch = (expression: string) => ({ patchType: 'JSONPatch', jsonPatch: { expression } })

function deployment(metadata: Obj = {}, spec: Obj = { template: { spec: { volumes: [{ name: 'x' }] } } }): Obj {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd1', namespace: 'default', ...metadata }, spec }
}

function create(object: Obj): AdmissionAttributes {
  return {
    operation: 'CREATE',
    kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
    resource: { group: 'apps', version: 'v1', resource: 'deployments' },
    subresource: '',
    namespace: 'default',
    name: 'd1',
    object: object as KubeObject,
    dryRun: false,
  }
}

describe('admission/policy/mutating: the MutatingAdmissionPolicy plugin', () => {
  let registry: TestRegistry
  let init: PluginInitialization

  const store = (resource: string) => registry.registry.lookup(GROUP, 'v1beta1', resource)!
  const policy = (name: string, spec: Obj) =>
    store('mutatingadmissionpolicies').create({ apiVersion: `${GROUP}/v1beta1`, kind: 'MutatingAdmissionPolicy', metadata: { name }, spec: { reinvocationPolicy: 'Never', ...spec } } as unknown as KubeObject)
  const binding = (name: string, spec: Obj) =>
    store('mutatingadmissionpolicybindings').create({ apiVersion: `${GROUP}/v1beta1`, kind: 'MutatingAdmissionPolicyBinding', metadata: { name }, spec } as unknown as KubeObject)
  const plugin = () => new MutatingAdmissionPolicy(init)
  async function admit(object: Obj): Promise<Obj> {
    const attributes = create(structuredClone(object))
    await plugin().admit(attributes)
    return attributes.object as unknown as Obj
  }

  before(async () => {
    registry = await openTestRegistry('map-')
  })
  after(async () => {
    await registry.close()
  })
  beforeEach(async () => {
    init = { stores: () => registry.registry, config: { featureGates: new Map([['MutatingAdmissionPolicy', true]]) }, log: () => {} }
    for (const resource of ['mutatingadmissionpolicies', 'mutatingadmissionpolicybindings']) {
      for (const item of (await store(resource).list()).items) await store(resource).delete(undefined, item.metadata.name!)
    }
  })

  it('simple patch', async () => {
    await policy('policy1', { matchConstraints: DEPLOYMENTS, mutations: [applyConfiguration('Object{\n spec: Object.spec{\n replicas: object.spec.replicas + 100\n }\n }')] })
    await binding('binding', { policyName: 'policy1' })
    const spec = { replicas: 1, template: { spec: { volumes: [{ name: 'x' }] } } }
    assert.deepEqual(await admit(deployment({}, spec)), deployment({}, { ...spec, replicas: 101 }))
  })

  it('with param', async () => {
    await registry.registry.lookup('', 'v1', 'configmaps')!.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1', namespace: 'default' }, data: { key: '10' } } as unknown as KubeObject)
    await policy('policy1', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: DEPLOYMENTS,
      mutations: [applyConfiguration("Object{\n spec: Object.spec{\n replicas: object.spec.replicas + int(params.data['key'])\n }\n }")],
    })
    await binding('binding', { policyName: 'policy1', paramRef: { name: 'cm1', namespace: 'default', parameterNotFoundAction: 'Deny' } })
    const spec = { replicas: 1, template: { spec: { volumes: [{ name: 'x' }] } } }
    assert.deepEqual(await admit(deployment({}, spec)), deployment({}, { ...spec, replicas: 11 }))
  })

  it('both policies reinvoked', async () => {
    for (const name of ['policy1', 'policy2']) {
      await policy(name, {
        matchConstraints: DEPLOYMENTS,
        mutations: [applyConfiguration(`Object{\n metadata: Object.metadata{\n labels: {"${name}": string(int(object.?metadata.labels["count"].orValue("1")) + 1)}\n }\n }`)],
      })
      await binding(`binding-${name}`, { policyName: name })
    }
    assert.deepEqual(await admit(deployment()), deployment({ labels: { policy1: '2', policy2: '2' } }))
  })

  it('1st policy sets match condition that 2nd policy matches', async () => {
    await policy('policy1', { matchConstraints: DEPLOYMENTS, mutations: [applyConfiguration('Object{\n metadata: Object.metadata{\n labels: {"environment": "production"}\n }\n }')] })
    await policy('policy2', {
      matchConstraints: DEPLOYMENTS,
      matchConditions: [{ name: 'prodonly', expression: 'object.?metadata.labels["environment"].orValue("") == "production"' }],
      mutations: [applyConfiguration('Object{\n metadata: Object.metadata{\n labels: {"policy1invoked": "true"}\n }\n }')],
    })
    await binding('binding1', { policyName: 'policy1' })
    await binding('binding2', { policyName: 'policy2' })
    assert.deepEqual(await admit(deployment()), deployment({ labels: { environment: 'production', policy1invoked: 'true' } }))
  })

  it('1st policy still does not match after 2nd policy sets match condition', async () => {
    await policy('policy1', {
      matchConstraints: DEPLOYMENTS,
      matchConditions: [{ name: 'prodonly', expression: 'object.?metadata.labels["environment"].orValue("") == "production"' }],
      mutations: [applyConfiguration('Object{\n metadata: Object.metadata{\n labels: {"policy1invoked": "true"}\n }\n }')],
    })
    await policy('policy2', { matchConstraints: DEPLOYMENTS, mutations: [applyConfiguration('Object{\n metadata: Object.metadata{\n labels: {"environment": "production"}\n }\n }')] })
    await binding('binding1', { policyName: 'policy1' })
    await binding('binding2', { policyName: 'policy2' })
    assert.deepEqual(await admit(deployment()), deployment({ labels: { environment: 'production' } }))
  })

  it('reinvocationPolicy IfNeeded: a policy that ran before a later change runs once more', async () => {
    const first = applyConfiguration('Object{metadata: Object.metadata{labels: {"first": object.?metadata.labels["second"].orValue("unset")}}}')
    await policy('a-first', { matchConstraints: DEPLOYMENTS, reinvocationPolicy: 'IfNeeded', mutations: [first] })
    await policy('b-second', { matchConstraints: DEPLOYMENTS, mutations: [applyConfiguration('Object{metadata: Object.metadata{labels: {"second": "set"}}}')] })
    await binding('binding-a', { policyName: 'a-first' })
    await binding('binding-b', { policyName: 'b-second' })
    assert.deepEqual(await admit(deployment()), deployment({ labels: { first: 'set', second: 'set' } }))

    await store('mutatingadmissionpolicies').delete(undefined, 'a-first')
    await policy('a-first', { matchConstraints: DEPLOYMENTS, reinvocationPolicy: 'Never', mutations: [first] })
    assert.deepEqual(await admit(deployment()), deployment({ labels: { first: 'unset', second: 'set' } }))
  })

  it('failurePolicy Fail: the mutation error refuses with the reference message (403, reason Invalid); the next mutation still ran', async () => {
    await policy('policy1', {
      matchConstraints: DEPLOYMENTS,
      failurePolicy: 'Fail',
      mutations: [jsonPatch('[JSONPatch{op: "replace", path: "/spec/template/spec/containers/-", value: {"name": "x"}}]'), applyConfiguration('Object{metadata: Object.metadata{labels: {"after": "error"}}}')],
    })
    await binding('binding', { policyName: 'policy1' })
    const attributes = create(deployment({}, { template: { spec: { containers: [{ name: 'a' }] } } }))
    await assert.rejects(plugin().admit(attributes), (err: unknown) => {
      assert.ok(err instanceof ApiError)
      assert.equal(err.status.code, 403)
      assert.equal(err.status.reason, 'Invalid')
      assert.equal(
        err.status.message,
        "policy 'policy1' with binding 'binding' denied request: JSON Patch: replace operation does not apply: doc is missing key: /spec/template/spec/containers/-: missing value",
      )
      assert.deepEqual(err.status.details, { name: 'd1', group: 'apps', kind: 'deployments', causes: [{ message: err.status.message }] })
      return true
    })
    assert.deepEqual((attributes.object as unknown as Obj).metadata.labels, { after: 'error' })
  })

  it('failurePolicy Ignore: the error is dropped and the object keeps the other mutations', async () => {
    await policy('policy1', {
      matchConstraints: DEPLOYMENTS,
      failurePolicy: 'Ignore',
      mutations: [applyConfiguration('Object{spec: Object.spec{replicasx: 1}}'), applyConfiguration('Object{metadata: Object.metadata{labels: {"ok": "yes"}}}')],
    })
    await binding('binding', { policyName: 'policy1' })
    assert.deepEqual(await admit(deployment()), deployment({ labels: { ok: 'yes' } }))
  })

  it('a binding whose param is missing under Deny is a configuration error (no reason: Forbidden)', async () => {
    await policy('policy1', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, matchConstraints: DEPLOYMENTS, mutations: [applyConfiguration('Object{}')] })
    await binding('binding', { policyName: 'policy1', paramRef: { name: 'absent', namespace: 'default', parameterNotFoundAction: 'Deny' } })
    await assert.rejects(plugin().admit(create(deployment())), (err: unknown) => {
      assert.ok(err instanceof ApiError)
      assert.equal(err.status.code, 403)
      assert.equal(err.status.reason, 'Forbidden')
      assert.equal(err.status.message, "policy 'policy1' with binding 'binding' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction")
      return true
    })
  })

  it('off without the MutatingAdmissionPolicy feature gate; never on DELETE', async () => {
    init = { stores: () => registry.registry, config: { featureGates: new Map([['MutatingAdmissionPolicy', false]]) }, log: () => {} }
    assert.equal(plugin().handles('CREATE'), false)
    init = { stores: () => registry.registry, config: { featureGates: new Map([['MutatingAdmissionPolicy', true]]) }, log: () => {} }
    assert.deepEqual(['CREATE', 'UPDATE', 'DELETE', 'CONNECT'].map((op) => plugin().handles(op as AdmissionAttributes['operation'])), [true, true, false, true])
  })
})
