/**
 * The batch and network controllers of kube-controller-manager are in the table under the
 * reference's --controllers names, and only a whole cluster runs them (`server start` stays
 * kube-apiserver).
 */
import assert from 'node:assert/strict'
import { CONTROLLERS, type ControllerDeps, buildControllers } from '../../../src/server/controllers/index.js'

const NAMES = [
  'job-controller',
  'cronjob-controller',
  'ttl-after-finished-controller',
  'pod-garbage-collector-controller',
  'endpoints-controller',
  'endpointslice-controller',
  'endpointslice-mirroring-controller',
  'disruption-controller',
]

describe('controllers: batch and network controllers in the table', () => {
  const built = (deps: Partial<ControllerDeps>) =>
    buildControllers({ config: {}, log: { warning: () => {} }, ...deps } as unknown as ControllerDeps, CONTROLLERS.filter((e) => NAMES.includes(e.name))).map((c) => c.name)

  it('runs them only in a whole cluster, each under its kube-controller-manager name', () => {
    assert.deepEqual(built({}), [])
    assert.deepEqual(built({ cluster: true }).sort(), [...NAMES].sort())
  })
})
