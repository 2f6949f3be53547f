/**
 * `cluster start --controllers` with kube-controller-manager's rule (IsControllerEnabled, its
 * aliases, its disabled-by-default set and its Validate message), the clusterOnly entries it
 * filters, and leader election: kube-controller-manager's controllers run as one group under
 * the Lease kube-system/kube-controller-manager, in one of two candidates on one store, and move
 * to the other when the leader stops.
 */
import assert from 'node:assert/strict'
import { isControllerEnabled, unknownControllerErrors } from '../../../src/core/options/kcm-controllers.js'
import type { ClusterConfig } from '../../../src/server/config.js'
import type { Controller, ControllerContext } from '../../../src/server/controllers/controller.js'
import { type ControllerDeps, type ControllerEntry, buildControllers } from '../../../src/server/controllers/index.js'
import { LeaderElectedControllers } from '../../../src/server/controllers/leader-elected.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'

describe('controllers: --controllers as kube-controller-manager reads it', () => {
  it('enables on-by-default controllers with *, names and -names winning in order', () => {
    assert.equal(isControllerEnabled('deployment-controller', ['*']), true)
    assert.equal(isControllerEnabled('bootstrap-signer-controller', ['*']), false)
    assert.equal(isControllerEnabled('bootstrap-signer-controller', ['*', 'bootstrapsigner']), true)
    assert.equal(isControllerEnabled('deployment-controller', ['*', '-deployment-controller']), false)
    assert.equal(isControllerEnabled('deployment-controller', ['-deployment', '*']), false)
    assert.equal(isControllerEnabled('job-controller', ['deployment-controller']), false)
    assert.equal(isControllerEnabled('root-ca-cert-publisher', ['*', '-root-ca-certificate-publisher-controller']), false)
  })

  it("refuses unknown names with the reference's message", () => {
    assert.deepEqual(unknownControllerErrors(['*', '-nosuch', 'job', 'deployment-controller']), ['"nosuch" is not in the list of known controllers'])
  })

  const entry = (name: string, clusterOnly = true): ControllerEntry => ({ name, clusterOnly, create: () => ({ name, start() {}, stop() {} }) })
  const table = [entry('namespace-controller', false), entry('deployment-controller'), entry('job-controller'), entry('default-scheduler')]
  const deps = (cluster: Partial<ClusterConfig> | undefined, on = true) => ({ config: { cluster }, cluster: on }) as unknown as ControllerDeps

  it("filters the clusterOnly entries named as kube-controller-manager's, not the others", () => {
    const names = buildControllers(deps({ controllers: ['*', '-job-controller'], leaderElect: false }), table).map((c) => c.name)
    assert.deepEqual(names, ['namespace-controller', 'deployment-controller', 'default-scheduler'])
    assert.deepEqual(buildControllers(deps(undefined, false), table).map((c) => c.name), ['namespace-controller'])
  })

  it("groups kube-controller-manager's under its Lease with --leader-elect", () => {
    const built = buildControllers(deps({ controllers: ['*'], leaderElect: true }), table)
    assert.deepEqual(built.map((c) => c.name), ['namespace-controller', 'default-scheduler', 'kube-controller-manager'])
    assert.deepEqual((built[2] as LeaderElectedControllers).controllers.map((c) => c.name), ['deployment-controller', 'job-controller'])
  })
})

describe('controllers: leader-elected group', function () {
  this.timeout(30_000)
  let t: TestRegistry
  beforeEach(async () => {
    t = await openTestRegistry('leader-elected-', ['default', 'kube-system'])
  })
  afterEach(async () => t.close())

  class Probe implements Controller {
    readonly name = 'probe'
    running = false
    start(): void {
      this.running = true
    }
    stop(): void {
      this.running = false
    }
  }
  const ctx = (): ControllerContext => ({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
  const group = (probe: Probe) =>
    new LeaderElectedControllers({ name: 'kube-controller-manager', lease: { namespace: 'kube-system', name: 'kube-controller-manager' }, leaseDurationMs: 1_000, renewDeadlineMs: 700, retryPeriodMs: 100 }, [probe])

  it('runs the controllers in one candidate, and in the other once the leader stops', async () => {
    const [p1, p2] = [new Probe(), new Probe()]
    const [g1, g2] = [group(p1), group(p2)]
    g1.start(ctx())
    await eventually(async () => p1.running, 'the first candidate leading')
    g2.start(ctx())
    await new Promise((r) => setTimeout(r, 400))
    assert.equal(p2.running, false)
    const lease = await t.registry.lookup('coordination.k8s.io', 'v1', 'leases')!.get('kube-system', 'kube-controller-manager')
    assert.match(String((lease.spec as { holderIdentity: string }).holderIdentity), /_[0-9a-f-]{36}$/)
    await g1.stop()
    assert.equal(p1.running, false)
    await eventually(async () => p2.running, 'the second candidate taking over within the lease duration', 5_000)
    await g2.stop()
  })
})
