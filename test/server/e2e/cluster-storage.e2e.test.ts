/**
 * Storage in a whole cluster with kubectl 1.35 against `client cluster start`: the default
 * StorageClass `standard`, a claim waiting for its first consumer (the reference's event text),
 * then bound to a volume provisioned on the node the scheduler chose, and its pod Running; a
 * StatefulSet's volumeClaimTemplates give each pod a Bound claim. Expected texts and field
 * names are the reference's (pv_controller.go, kubectl's columns).
 */
import assert from 'node:assert/strict'
import { openCluster, waitForKubectl } from '../../support/cluster.js'
import type { KubectlSession } from '../../support/kubectl-session.js'

describe('cluster start: claims bound and provisioned (kubectl 1.35)', function () {
  this.timeout(120_000)
  let k: KubectlSession

  before(async function () {
    k = await openCluster(this, 'cluster-storage-', { args: ['--nodes=2'] })
  })
  after(async () => k?.close())

  it('has the default StorageClass standard', async () => {
    const classes = await waitForKubectl(k, ['get', 'storageclass'], /standard \(default\)/)
    assert.match(classes, /standard \(default\)\s+\S+\s+Delete\s+WaitForFirstConsumer/)
  })

  it('binds a claim once its pod is scheduled, and the pod runs', async () => {
    await k.ok('apply', '-f', k.file('claim.yaml', [
      'apiVersion: v1', 'kind: PersistentVolumeClaim', 'metadata: {name: data}',
      'spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}', '',
    ].join('\n')))
    const waiting = await waitForKubectl(k, ['get', 'events', '--field-selector=involvedObject.name=data', '-o', 'jsonpath={.items[*].message}'], /waiting/)
    assert.match(waiting, /waiting for first consumer to be created before binding/)
    assert.equal(await k.ok('get', 'pvc', 'data', '-o', 'jsonpath={.status.phase}/{.spec.storageClassName}'), 'Pending/standard')

    await k.ok('apply', '-f', k.file('pod.yaml', [
      'apiVersion: v1', 'kind: Pod', 'metadata: {name: user}',
      'spec:', '  containers: [{name: c, image: busybox, volumeMounts: [{name: d, mountPath: /data}]}]',
      '  volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]', '',
    ].join('\n')))
    const waited = await k.run('wait', '--for=condition=Ready', 'pod/user', '--timeout=60s')
    assert.equal(waited.code, 0, waited.stderr)
    const uid = await k.ok('get', 'pvc', 'data', '-o', 'jsonpath={.metadata.uid}')
    assert.equal(await k.ok('get', 'pvc', 'data', '-o', 'jsonpath={.status.phase} {.spec.volumeName} {.metadata.annotations.pv\\.kubernetes\\.io/bind-completed}'), `Bound pvc-${uid} yes`)
    const node = await k.ok('get', 'pod', 'user', '-o', 'jsonpath={.spec.nodeName}')
    assert.equal(await k.ok('get', 'pvc', 'data', '-o', 'jsonpath={.metadata.annotations.volume\\.kubernetes\\.io/selected-node}'), node)
    const pv = await k.ok('get', 'pv', `pvc-${uid}`, '-o', 'jsonpath={.status.phase} {.spec.claimRef.name} {.spec.persistentVolumeReclaimPolicy} {.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]}')
    assert.equal(pv, `Bound data Delete ${node}`)
    const reasons = await k.ok('get', 'events', '--field-selector=involvedObject.name=data', '-o', 'jsonpath={.items[*].reason}')
    for (const reason of ['WaitForFirstConsumer', 'ExternalProvisioning', 'Provisioning', 'ProvisioningSucceeded']) assert.match(reasons, new RegExp(`\\b${reason}\\b`))

    // reclaimPolicy Delete: with the pod and the claim gone, so is the volume.
    await k.ok('delete', 'pod', 'user', '--wait=true')
    await k.ok('delete', 'pvc', 'data', '--wait=true')
    await waitForKubectl(k, ['get', 'pv', '-o', 'name'], /^$/)
  })

  it("gives each StatefulSet pod a Bound claim from its volumeClaimTemplates", async () => {
    await k.ok('apply', '-f', k.file('sts.yaml', [
      'apiVersion: apps/v1', 'kind: StatefulSet', 'metadata: {name: db}',
      'spec:', '  serviceName: db', '  replicas: 2', '  selector: {matchLabels: {app: db}}',
      '  template:', '    metadata: {labels: {app: db}}',
      '    spec: {containers: [{name: db, image: postgres, volumeMounts: [{name: pgdata, mountPath: /var/lib/postgresql}]}]}',
      '  volumeClaimTemplates:', '  - metadata: {name: pgdata}', '    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 2Gi}}}', '',
    ].join('\n')))
    const status = await k.run('rollout', 'status', 'statefulset/db', '--timeout=60s')
    assert.equal(status.code, 0, status.stderr)
    assert.equal(await k.ok('get', 'pvc', 'pgdata-db-0', 'pgdata-db-1', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.phase}={.status.capacity.storage} {end}'), 'pgdata-db-0=Bound=2Gi pgdata-db-1=Bound=2Gi ')
    assert.equal(await k.ok('get', 'pods', '-l', 'app=db', '-o', 'jsonpath={range .items[*]}{.status.phase} {end}'), 'Running Running ')
  })
})
