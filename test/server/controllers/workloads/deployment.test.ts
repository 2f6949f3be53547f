/**
 * The Deployment controller over a registry, the replicaset controller beside it and the test
 * playing the nodes (pods made Ready one at a time): a rollout to a new ReplicaSet on a template
 * change keeps within maxSurge and maxUnavailable at every step, re-applying an old template (what
 * `kubectl rollout undo` writes) reuses the old ReplicaSet with the next revision, scaling
 * resizes the ReplicaSet, Recreate scales the old one down first. Expected strings are the
 * reference's (pkg/controller/deployment/util/deployment_util.go reasons and messages,
 * sync.go "Scaled up replica set %s to %d" and "Scaled %s replica set %s to %d from %d").
 */
import assert from 'node:assert/strict'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import { DeploymentController } from '../../../../src/server/controllers/deployment.js'
import { ReplicaSetController } from '../../../../src/server/controllers/replicaset.js'
import { computeHash } from '../../../../src/server/controllers/workloads/template-hash.js'
import { type Cluster, eventually, events, openCluster, podTemplate } from './support.js'

interface Status {
  replicas?: number
  updatedReplicas?: number
  readyReplicas?: number
  availableReplicas?: number
  unavailableReplicas?: number
  observedGeneration?: number
  conditions?: Array<{ type: string; status: string; reason: string; message: string }>
}

describe('controllers: deployment-controller', function () {
  this.timeout(30_000)
  let c: Cluster
  const deployments = () => c.store('apps', 'deployments')
  const get = () => deployments().get('default', 'web')
  const status = async () => ((await get()).status ?? {}) as Status
  const replicaSets = async () => (await c.store('apps', 'replicasets').list({ namespace: 'default' })).items
  const rsOf = async (image: string) => (await replicaSets()).find((rs) => ((rs.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers[0]!.image === image))
  const setImage = (image: string) =>
    deployments().update('default', 'web', (cur) => {
      const spec = structuredClone(cur.spec) as { template: { spec: { containers: Array<{ image: string }> } } }
      spec.template.spec.containers[0]!.image = image
      return { ...cur, spec }
    }, { retryOnConflict: true })
  const complete = async (replicas: number) => {
    const d = await get()
    const s = (d.status ?? {}) as Status
    return s.observedGeneration === d.metadata.generation && s.updatedReplicas === replicas && s.replicas === replicas && s.availableReplicas === replicas
  }
  const deployment = (replicas: number, strategy?: Record<string, unknown>): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: podTemplate({ app: 'web' }), ...(strategy ? { strategy } : {}) },
  })
  const readyCount = async () => (await c.pods()).filter((p) => (p.status as { phase?: string }).phase === 'Running').length

  /** The nodes' part, a pod at a time, checking the rollout's bounds at every step. */
  const rollStepwise = async (replicas: number, surge: number, unavailable: number) => {
    for (let step = 0; step < 40 && !(await complete(replicas)); step++) {
      await c.settle()
      const pods = await c.pods()
      assert.ok(pods.length <= replicas + surge, `step ${step}: ${pods.length} pods exceed ${replicas} + maxSurge ${surge}`)
      assert.ok((await readyCount()) >= replicas - unavailable, `step ${step}: fewer than ${replicas} - maxUnavailable ${unavailable} ready`)
      const pending = pods.find((p) => (p.status as { phase?: string }).phase !== 'Running')
      if (pending) await c.markReady(pending)
    }
    await eventually(() => complete(replicas), 'the rollout to complete')
  }

  beforeEach(async () => {
    c = await openCluster('deploy-', [new DeploymentController(), new ReplicaSetController()])
  })
  afterEach(() => c.close())

  it('creates <name>-<hash> with revision 1, then reports the reference conditions once pods are Ready', async () => {
    await deployments().create(deployment(3))
    await eventually(async () => (await replicaSets()).length === 1, 'a ReplicaSet')
    const [rs] = await replicaSets()
    const hash = (rs!.metadata.labels as Record<string, string>)['pod-template-hash']!
    assert.match(hash, /^[bcdfghjklmnpqrstvwxz2456789]+$/)
    assert.equal(rs!.metadata.name, `web-${hash}`)
    assert.equal(rs!.metadata.annotations?.['deployment.kubernetes.io/revision'], '1')
    assert.equal(rs!.metadata.annotations?.['deployment.kubernetes.io/desired-replicas'], '3')
    assert.equal(rs!.metadata.annotations?.['deployment.kubernetes.io/max-replicas'], '4')
    assert.deepEqual((rs!.spec as { selector: unknown }).selector, { matchLabels: { app: 'web', 'pod-template-hash': hash } })
    await eventually(async () => (await c.pods()).length === 3, 'three pods')
    assert.ok((await c.pods()).every((p) => (p.metadata.labels as Record<string, string>)['pod-template-hash'] === hash))
    // Created, or already progressing once the ReplicaSet counts its pods (the same race as the reference's).
    const progressing = (await status()).conditions?.find((x) => x.type === 'Progressing')
    const expected: Record<string, string> = { NewReplicaSetCreated: `Created new replica set "web-${hash}"`, ReplicaSetUpdated: `ReplicaSet "web-${hash}" is progressing.` }
    assert.equal(progressing?.message, expected[progressing?.reason ?? ''], `Progressing ${progressing?.reason}`)
    await c.markAllReady()
    await eventually(() => complete(3), 'available')
    await eventually(async () => (await status()).conditions?.find((x) => x.type === 'Progressing')?.reason === 'NewReplicaSetAvailable', 'progressed')
    const s = await status()
    assert.deepEqual(
      s.conditions?.map(({ type, status, reason, message }) => ({ type, status, reason, message })).sort((a, b) => a.type.localeCompare(b.type)),
      [
        { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' },
        { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "web-${hash}" has successfully progressed.` },
      ],
    )
    assert.equal((await get()).metadata.annotations?.['deployment.kubernetes.io/revision'], '1')
    assert.equal(s.readyReplicas, 3)
    assert.equal(s.unavailableReplicas, undefined)
    assert.ok((await events(c, 'web')).some((e) => e.reason === 'ScalingReplicaSet' && e.message === `Scaled up replica set web-${hash} to 3` && e.component === 'deployment-controller'))
  })

  it('rolls to a new ReplicaSet within maxSurge and maxUnavailable, and undo reuses the old one with the next revision', async () => {
    await deployments().create(deployment(4, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } }))
    await eventually(async () => (await c.pods()).length === 4, 'four pods')
    await c.markAllReady()
    await eventually(() => complete(4), 'the first rollout')
    const first = (await rsOf('nginx:1.25'))!
    await setImage('nginx:1.26')
    await rollStepwise(4, 1, 1)
    const second = (await rsOf('nginx:1.26'))!
    assert.notEqual(second.metadata.name, first.metadata.name)
    assert.equal(second.metadata.annotations?.['deployment.kubernetes.io/revision'], '2')
    assert.equal((await get()).metadata.annotations?.['deployment.kubernetes.io/revision'], '2')
    await eventually(async () => ((await rsOf('nginx:1.25'))!.spec as { replicas: number }).replicas === 0, 'the old ReplicaSet at 0')
    assert.ok((await events(c, 'web')).some((e) => e.message === `Scaled down replica set ${first.metadata.name} to 3 from 4`))

    // kubectl rollout undo (apps/v1): the old ReplicaSet's template without the hash label.
    const template = structuredClone((first.spec as { template: { metadata: { labels: Record<string, string> } } }).template)
    delete template.metadata.labels['pod-template-hash']
    await deployments().update('default', 'web', (cur) => ({ ...cur, spec: { ...(cur.spec as object), template } }), { retryOnConflict: true })
    await rollStepwise(4, 1, 1)
    const back = (await rsOf('nginx:1.25'))!
    assert.equal(back.metadata.name, first.metadata.name)
    assert.equal((await replicaSets()).length, 2)
    assert.equal(back.metadata.annotations?.['deployment.kubernetes.io/revision'], '3')
    assert.equal(back.metadata.annotations?.['deployment.kubernetes.io/revision-history'], '1')
    assert.equal((await get()).metadata.annotations?.['deployment.kubernetes.io/revision'], '3')
  })

  it('scales the ReplicaSet on a scaling event', async () => {
    await deployments().create(deployment(2))
    await eventually(async () => (await c.pods()).length === 2, 'two pods')
    await c.markAllReady()
    await eventually(() => complete(2), 'available')
    await deployments().update('default', 'web', (cur) => ({ ...cur, spec: { ...(cur.spec as object), replicas: 5 } }), { retryOnConflict: true })
    await eventually(async () => (await c.pods()).length === 5, 'five pods')
    const rs = (await replicaSets())[0]!
    assert.equal(rs.metadata.annotations?.['deployment.kubernetes.io/desired-replicas'], '5')
    assert.ok((await events(c, 'web')).some((e) => e.message === `Scaled up replica set ${rs.metadata.name} to 5 from 2`))
  })

  it('Recreate scales the old ReplicaSet to zero before creating the new one', async () => {
    await deployments().create(deployment(2, { type: 'Recreate' }))
    await eventually(async () => (await c.pods()).length === 2, 'two pods')
    await c.markAllReady()
    await eventually(() => complete(2), 'available')
    await setImage('nginx:1.26')
    await eventually(async () => (await rsOf('nginx:1.26')) !== undefined, 'the new ReplicaSet')
    await eventually(async () => (await c.pods()).length === 2, 'new pods')
    assert.ok((await c.pods()).every((p) => (p.spec as { containers: Array<{ image: string }> }).containers[0]!.image === 'nginx:1.26'))
    await c.markAllReady()
    await eventually(() => complete(2), 'the Recreate rollout')
  })

  it('a paused deployment does not roll out, and reports DeploymentPaused then DeploymentResumed', async () => {
    // Every Progressing reason and message the deployment goes through, in order.
    const seen: string[] = []
    c.t.registry.onChange(({ object }) => {
      if (object.kind !== 'Deployment') return
      const p = ((object.status ?? {}) as Status).conditions?.find((x) => x.type === 'Progressing')
      const entry = p ? `${p.reason}: ${p.message}` : undefined
      if (entry && seen.at(-1) !== entry) seen.push(entry)
    })
    await deployments().create(deployment(1))
    await eventually(async () => (await c.pods()).length === 1, 'a pod')
    await deployments().update('default', 'web', (cur) => ({ ...cur, spec: { ...(cur.spec as object), paused: true } }), { retryOnConflict: true })
    await eventually(async () => (await status()).conditions?.find((x) => x.type === 'Progressing')?.message === 'Deployment is paused', 'paused')
    await setImage('nginx:1.26')
    await c.settle()
    assert.equal((await replicaSets()).length, 1)
    await deployments().update('default', 'web', (cur) => ({ ...cur, spec: { ...(cur.spec as object), paused: false } }), { retryOnConflict: true })
    await eventually(async () => (await replicaSets()).length === 2, 'the rollout after resume')
    await eventually(async () => seen.includes('DeploymentResumed: Deployment is resumed'), 'DeploymentResumed')
    assert.ok(seen.indexOf('DeploymentPaused: Deployment is paused') < seen.indexOf('DeploymentResumed: Deployment is resumed'))
  })

  it('reports ProgressDeadlineExceeded when no pod becomes Ready within progressDeadlineSeconds', async () => {
    const d = deployment(1)
    ;(d.spec as Record<string, unknown>).progressDeadlineSeconds = 1
    await deployments().create(d)
    await eventually(async () => (await replicaSets()).length === 1, 'a ReplicaSet')
    const name = (await replicaSets())[0]!.metadata.name
    await eventually(async () => (await status()).conditions?.find((x) => x.type === 'Progressing')?.reason === 'ProgressDeadlineExceeded', 'the deadline', 8000)
    const progressing = (await status()).conditions!.find((x) => x.type === 'Progressing')!
    assert.equal(progressing.status, 'False')
    assert.equal(progressing.message, `ReplicaSet "${name}" has timed out progressing.`)
    assert.equal((await status()).conditions!.find((x) => x.type === 'Available')?.reason, 'MinimumReplicasUnavailable')
  })

  it('adopts a matching orphan ReplicaSet with the same template instead of making one', async () => {
    const orphan = await c.store('apps', 'replicasets').create({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'legacy', namespace: 'default', labels: { app: 'web' } },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: podTemplate({ app: 'web' }) },
    })
    const created = await deployments().create(deployment(2))
    await eventually(async () => (await c.store('apps', 'replicasets').get('default', 'legacy')).metadata.ownerReferences !== undefined, 'adopted')
    const adopted = await c.store('apps', 'replicasets').get('default', 'legacy')
    assert.deepEqual(adopted.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true }])
    await eventually(async () => adopted.metadata.uid === orphan.metadata.uid && (await c.store('apps', 'replicasets').get('default', 'legacy')).metadata.annotations?.['deployment.kubernetes.io/revision'] === '1', 'revision 1 on the adopted ReplicaSet')
    await c.settle()
    assert.deepEqual((await replicaSets()).map((rs) => rs.metadata.name), ['legacy'])
  })

  it('on a name taken by a ReplicaSet it does not own, bumps collisionCount and hashes again', async () => {
    const d = deployment(1)
    ;(d.spec as Record<string, unknown>).paused = true
    await deployments().create(d)
    // The name the Deployment would take, held by a stranger that its selector does not match.
    const taken = `web-${computeHash(((await get()).spec as { template: object }).template)}`
    await c.store('apps', 'replicasets').create({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: taken, namespace: 'default' },
      spec: { replicas: 0, selector: { matchLabels: { app: 'other' } }, template: podTemplate({ app: 'other' }) },
    })
    await deployments().update('default', 'web', (cur) => ({ ...cur, spec: { ...(cur.spec as object), paused: false } }), { retryOnConflict: true })
    await eventually(async () => (await replicaSets()).length === 2, 'a ReplicaSet under another name')
    assert.equal((await status()) && ((await get()).status as { collisionCount?: number }).collisionCount, 1)
    const mine = (await replicaSets()).find((rs) => rs.metadata.name !== taken)!
    assert.equal(mine.metadata.name, `web-${computeHash(((await get()).spec as { template: object }).template, 1)}`)
  })
})
