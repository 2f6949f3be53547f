import assert from 'node:assert/strict'
import { type TestRegistry, openTestRegistry } from '../support.js'

describe('api: defaulting of the built-in kinds (pkg/apis/*/v1/defaults.go)', () => {
  let t: TestRegistry
  beforeEach(async () => {
    t = await openTestRegistry('api-defaults-')
  })
  afterEach(async () => {
    await t.close()
  })

  const template = { metadata: { labels: { app: 'legacy', tier: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }

  it('a ReplicationController without selector and labels takes both from its template; given ones stay', async () => {
    const rcs = t.registry.lookup('', 'v1', 'replicationcontrollers')!
    const rc = await rcs.create({ apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'legacy', namespace: 'default' }, spec: { template } })
    assert.deepEqual((rc.spec as { selector: unknown }).selector, { app: 'legacy', tier: 'web' })
    assert.deepEqual(rc.metadata.labels, { app: 'legacy', tier: 'web' })
    assert.equal((rc.spec as { replicas: number }).replicas, 1)
    const own = await rcs.create({ apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'own', namespace: 'default', labels: { mine: 'yes' } }, spec: { selector: { app: 'legacy' }, template } })
    assert.deepEqual((own.spec as { selector: unknown }).selector, { app: 'legacy' })
    assert.deepEqual(own.metadata.labels, { mine: 'yes' })
  })

  it('pods: fieldRef apiVersion v1, probe timings, volume file modes and emptyDir for a volume without a source', async () => {
    const pods = t.registry.lookup('', 'v1', 'pods')!
    const pod = await pods.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'default' },
      spec: {
        // Without the ServiceAccount plugin's token volume, which is not defaulting.
        automountServiceAccountToken: false,
        containers: [
          {
            name: 'c',
            image: 'nginx:1.27',
            env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
            readinessProbe: { httpGet: { port: 80 } },
          },
        ],
        volumes: [{ name: 'scratch' }, { name: 'cfg', configMap: { name: 'cfg' } }],
      },
    })
    const c = (pod.spec as { containers: Array<Record<string, any>> }).containers[0]!
    assert.deepEqual(c.env[0].valueFrom.fieldRef, { fieldPath: 'spec.nodeName', apiVersion: 'v1' })
    assert.deepEqual(c.readinessProbe, { httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 })
    assert.equal(c.imagePullPolicy, 'IfNotPresent')
    const volumes = (pod.spec as { volumes: Array<Record<string, any>> }).volumes
    assert.deepEqual(volumes, [
      { name: 'scratch', emptyDir: {} },
      { name: 'cfg', configMap: { name: 'cfg', defaultMode: 420 } },
    ])
  })

  it('storage classes, CSI drivers, flow schemas, priority levels and webhooks get the reference defaults', async () => {
    const sc = await t.registry.lookup('storage.k8s.io', 'v1', 'storageclasses')!.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'p' })
    assert.equal(sc.reclaimPolicy, 'Delete')
    assert.equal(sc.volumeBindingMode, 'Immediate')
    const driver = await t.registry.lookup('storage.k8s.io', 'v1', 'csidrivers')!.create({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'd.example.com' }, spec: {} })
    assert.deepEqual(driver.spec, { attachRequired: true, podInfoOnMount: false, storageCapacity: false, fsGroupPolicy: 'ReadWriteOnceWithFSType', requiresRepublish: false, seLinuxMount: false, volumeLifecycleModes: ['Persistent'] })
    const fs = await t.registry.lookup('flowcontrol.apiserver.k8s.io', 'v1', 'flowschemas')!.create({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: 'f' }, spec: { priorityLevelConfiguration: { name: 'global-default' } } })
    assert.equal((fs.spec as { matchingPrecedence: number }).matchingPrecedence, 1000)
    const pl = await t.registry.lookup('flowcontrol.apiserver.k8s.io', 'v1', 'prioritylevelconfigurations')!.create({
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'PriorityLevelConfiguration',
      metadata: { name: 'p' },
      spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue' } } },
    })
    assert.deepEqual((pl.spec as { limited: unknown }).limited, { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } } })
    const hook = await t.registry.lookup('admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations')!.create({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'w' },
      webhooks: [{ name: 'w.example.com', clientConfig: { service: { namespace: 'default', name: 'hook' } }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }], sideEffects: 'None', admissionReviewVersions: ['v1'] }],
    })
    const w = (hook.webhooks as Array<Record<string, any>>)[0]!
    assert.deepEqual([w.failurePolicy, w.matchPolicy, w.timeoutSeconds, w.rules[0].scope, w.clientConfig.service.port], ['Fail', 'Equivalent', 10, '*', 443])
  })
})
