/**
 * The workload controllers in the controllers' table: kube-controller-manager's names, run only
 * by a whole cluster (`client cluster start`), never by `client server start`.
 */
import assert from 'node:assert/strict'
import { CONTROLLERS, type ControllerDeps, buildControllers } from '../../../../src/server/controllers/index.js'

// kube-controller-manager's --controllers names (cmd/kube-controller-manager/names/controller_names.go).
const WORKLOADS = ['deployment-controller', 'replicaset-controller', 'replicationcontroller-controller', 'daemonset-controller', 'statefulset-controller']

describe('controllers: the workload controllers in the table', () => {
  const names = (deps: Partial<ControllerDeps>) =>
    buildControllers({ config: {}, ...deps } as ControllerDeps, CONTROLLERS.filter((e) => WORKLOADS.includes(e.name))).map((c) => c.name)

  it('run only in a whole cluster, each under its kube-controller-manager name', () => {
    assert.deepEqual(names({}), [])
    assert.deepEqual(names({ cluster: true }).sort(), [...WORKLOADS].sort())
  })
})
