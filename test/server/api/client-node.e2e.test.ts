import assert from 'node:assert/strict'
import { CoreV1Api, KubeConfig, type V1ConfigMap, Watch } from '@kubernetes/client-node'
import { ApiServer } from '../../support/api-server.js'
import { describeEachStore } from '../../support/stores.js'

describeEachStore('api: a @kubernetes/client-node client against the built server (end to end)', 'client-node-e2e', function (store) {
  this.timeout(120_000)
  let server: ApiServer | undefined
  let kc: KubeConfig
  let core: CoreV1Api

  before(async () => {
    server = await ApiServer.start({ waitFor: 'ready', admin: true, args: store.args })
    const admin = server.admin()
    kc = new KubeConfig()
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: `https://127.0.0.1:${server.port}`, caData: Buffer.from(server.ca()).toString('base64'), skipTLSVerify: false }],
      users: [{ name: 'u', certData: Buffer.from(admin.cert).toString('base64'), keyData: Buffer.from(admin.key).toString('base64') }],
      contexts: [{ name: 'c', cluster: 'c', user: 'u', namespace: 'default' }],
      currentContext: 'c',
    })
    core = kc.makeApiClient(CoreV1Api)
  })
  after(async () => {
    await server?.stop()
  })

  it('lists namespaces (verifying the server against its CA)', async () => {
    const list = await core.listNamespace()
    const names = list.items.map((n) => n.metadata?.name)
    for (const n of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) assert.ok(names.includes(n), `${n} missing in ${names.join(',')}`)
  })

  it('creates and lists config maps', async () => {
    const created = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'listed' }, data: { a: '1' } } })
    assert.equal(created.metadata?.name, 'listed')
    assert.ok(created.metadata?.resourceVersion)
    const list = await core.listNamespacedConfigMap({ namespace: 'default' })
    const found = list.items.find((c) => c.metadata?.name === 'listed')
    assert.deepEqual(found?.data, { a: '1' })
    assert.ok(list.metadata?.resourceVersion)
  })

  // Each test creates the objects it needs (names of its own), so one failure reads as one failure.
  const configMap = (name: string, data: Record<string, string>) => core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name }, data } })

  it('watches config maps and receives ADDED for an object created meanwhile', async () => {
    await configMap('before-the-watch', { b: '1' })
    const list = await core.listNamespacedConfigMap({ namespace: 'default' })
    const events: { phase: string; obj: V1ConfigMap }[] = []
    let done: unknown = 'open'
    const controller = await new Watch(kc).watch(
      '/api/v1/namespaces/default/configmaps',
      { resourceVersion: list.metadata!.resourceVersion! },
      (phase, obj: V1ConfigMap) => events.push({ phase, obj }),
      (err) => (done = err ?? 'closed'),
    )
    try {
      await configMap('watched', { w: 'x' })
      const deadline = Date.now() + 15_000
      let added: { phase: string; obj: V1ConfigMap } | undefined
      while (!(added = events.find((e) => e.phase === 'ADDED' && e.obj.metadata?.name === 'watched'))) {
        assert.ok(Date.now() < deadline, `no ADDED event (done: ${String(done)}, events: ${JSON.stringify(events)})`)
        await new Promise((r) => setTimeout(r, 50))
      }
      assert.deepEqual(added.obj.data, { w: 'x' })
      assert.equal(done, 'open')
      assert.ok(!events.some((e) => e.obj.metadata?.name === 'before-the-watch'), 'watch from the list resourceVersion replayed an older object')
    } finally {
      controller.abort()
    }
  })

  it('watches with sendInitialEvents: ADDED for the current state, then the initial-events-end BOOKMARK', async () => {
    await configMap('initial-a', { a: '1' })
    await configMap('initial-b', { b: '2' })
    const events: { phase: string; obj: V1ConfigMap }[] = []
    let done: unknown = 'open'
    const controller = await new Watch(kc).watch(
      '/api/v1/namespaces/default/configmaps',
      { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true },
      (phase, obj: V1ConfigMap) => events.push({ phase, obj }),
      (err) => (done = err ?? 'closed'),
    )
    try {
      const deadline = Date.now() + 15_000
      while (!events.some((e) => e.phase === 'BOOKMARK')) {
        assert.ok(Date.now() < deadline, `no BOOKMARK (done: ${String(done)}, events: ${JSON.stringify(events)})`)
        await new Promise((r) => setTimeout(r, 50))
      }
      const names = events.filter((e) => e.phase === 'ADDED').map((e) => e.obj.metadata?.name)
      assert.ok(names.includes('initial-a') && names.includes('initial-b'), names.join(','))
      const bookmark = events[events.length - 1]!
      assert.equal(bookmark.phase, 'BOOKMARK')
      assert.deepEqual(bookmark.obj.metadata?.annotations, { 'k8s.io/initial-events-end': 'true' })
    } finally {
      controller.abort()
    }
  })
})
