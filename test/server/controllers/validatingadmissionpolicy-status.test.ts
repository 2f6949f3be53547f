/**
 * The ValidatingAdmissionPolicy status controller: a policy's status gets observedGeneration
 * and typeChecking (expressionWarnings for the expressions that do not check against the
 * matched kind's schema, none otherwise), again for each new generation, its conditions kept;
 * as the reference's validatingadmissionpolicystatus controller writes it.
 */
import assert from 'node:assert/strict'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'
import { startControllers } from './support.js'

type Obj = Record<string, any>

describe('controllers: validatingadmissionpolicy-status-controller', function () {
  this.timeout(20_000)
  let world: TestRegistry
  let stop: () => Promise<void>

  beforeEach(async () => {
    world = await openTestRegistry('vap-status-')
    const manager = await startControllers(world.registry, ['validatingadmissionpolicy-status-controller'])
    stop = () => manager.stop()
  })
  afterEach(async () => {
    await stop()
    await world.close()
  })

  const store = () => world.registry.lookup('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies')!
  const policy = (name: string, validations: Obj[]) =>
    store().create({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name },
      spec: { matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] }, validations },
    } as KubeObject)
  const statusOf = async (name: string) => (await store().get(undefined, name)).status as Obj

  it('writes the expression warnings and the observed generation', async () => {
    await policy('bad', [{ expression: 'object.spec.replicas > 1' }, { expression: "object.spec.replicas == 'x'" }])
    await eventually(async () => (await statusOf('bad')).observedGeneration === 1, 'observedGeneration 1')
    assert.deepEqual((await statusOf('bad')).typeChecking, {
      expressionWarnings: [
        {
          fieldRef: 'spec.validations[1].expression',
          warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:22: found no matching overload for '_==_' applied to '(int, string)'\n | object.spec.replicas == 'x'\n | .....................^\n",
        },
      ],
    })
  })

  it('a policy that checks gets an empty typeChecking; a new generation is checked again, conditions kept', async () => {
    await policy('good', [{ expression: 'object.spec.replicas > 1' }])
    await eventually(async () => (await statusOf('good')).observedGeneration === 1, 'observedGeneration 1')
    assert.deepEqual(await statusOf('good'), { observedGeneration: 1, typeChecking: {} })
    const condition = { type: 'Checked', status: 'True', reason: 'Test', message: 'kept', lastTransitionTime: '2024-01-01T00:00:00Z' }
    await store().update(undefined, 'good', (current) => ({ ...current, status: { ...(current.status as Obj), conditions: [condition] } }), { subresource: 'status' })
    await store().update(undefined, 'good', (current) => ({ ...current, spec: { ...(current.spec as Obj), validations: [{ expression: 'object.spec.replica > 1' }] } }))
    await eventually(async () => (await statusOf('good')).observedGeneration === 2, 'observedGeneration 2')
    const status = await statusOf('good')
    assert.equal(status.typeChecking.expressionWarnings[0].fieldRef, 'spec.validations[0].expression')
    assert.match(status.typeChecking.expressionWarnings[0].warning, /^apps\/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'/)
    assert.deepEqual(status.conditions, [condition])
  })
})
