/**
 * Authorization end to end with the real kubectl 1.35 and real identities (client
 * certificates from a --client-ca-file CA, a token from --token-auth-file, a node
 * certificate) against the default Node,RBAC: the reference's 403 texts, aggregation,
 * escalation, `auth can-i` (with --list, --subresource, paths and --as), the Node graph.
 */
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ApiServer, startExpectingFailure } from '../../support/api-server.js'
import { KUBECTL } from '../../support/kubectl-session.js'
import { type KubeUser, type KubectlRun, type TestCa, kubectl, makeCa, makeClientCert, writeKubeconfig } from '../authentication/helpers.js'

/** Polls the async check every 100 ms until it holds, or fails naming `what`. */
async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe('authorization: Node,RBAC by default, with real identities and kubectl (end to end)', function () {
  this.timeout(180_000)
  let server: ApiServer
  let dir: string
  let ca: TestCa
  const configs: Record<string, string> = {}
  const as = (who: string) => (...args: string[]): Promise<KubectlRun> => kubectl(configs[who]!, dir, ...args)
  const ok = async (who: string, ...args: string[]) => {
    const run = await as(who)(...args)
    assert.equal(run.code, 0, `${who}: kubectl ${args.join(' ')}: ${run.stderr}\n${server.logs.slice(-1500)}`)
    return run.stdout
  }
  const refused = async (who: string, expected: string, ...args: string[]) => {
    const run = await as(who)(...args)
    assert.notEqual(run.code, 0, `${who}: kubectl ${args.join(' ')} succeeded: ${run.stdout}`)
    assert.equal(run.stderr.trim(), expected)
  }

  before(async function () {
    if (!existsSync(KUBECTL)) {
      if (process.env.CI) throw new Error(`${KUBECTL} is missing`)
      this.skip()
    }
    dir = mkdtempSync(join(tmpdir(), 'authz-e2e-'))
    ca = await makeCa('team-ca')
    writeFileSync(join(dir, 'client-ca.crt'), ca.certPem)
    writeFileSync(join(dir, 'tokens.csv'), 'ci-token,ci-robot,ci-uid\n')
    server = await ApiServer.start({ waitFor: 'ready', args: [`--client-ca-file=${join(dir, 'client-ca.crt')}`, `--token-auth-file=${join(dir, 'tokens.csv')}`] })
    const users: Record<string, KubeUser> = {
      admin: server.admin(),
      jane: await makeClientCert(ca, 'jane', ['devs']),
      ci: { token: 'ci-token' },
      node: await makeClientCert(ca, 'system:node:n1', ['system:nodes']),
    }
    for (const [name, user] of Object.entries(users)) configs[name] = writeKubeconfig(dir, `kubeconfig-${name}`, server.port, user)
    await ok('admin', 'create', 'namespace', 'team')
    await ok('admin', 'create', 'namespace', 'other')
    await ok('admin', 'create', 'rolebinding', 'jane-view', '-n', 'team', '--clusterrole=view', '--user=jane')
    await ok('admin', 'create', 'rolebinding', 'ci-admin', '-n', 'team', '--clusterrole=admin', '--user=ci-robot')
  })

  after(async () => {
    await server?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('a user bound to view reads in its namespace and is refused writes and other namespaces with the reference texts', async () => {
    await eventually('the binding to take effect', async () => (await as('jane')('get', 'pods', '-n', 'team')).code === 0)
    assert.match(await ok('jane', 'get', 'pods', '-n', 'team'), /^$|No resources/)
    await refused('jane', 'error: failed to create configmap: configmaps is forbidden: User "jane" cannot create resource "configmaps" in API group "" in the namespace "team"', 'create', 'configmap', 'x', '-n', 'team')
    await refused('jane', 'Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "other"', 'get', 'pods', '-n', 'other')
    await refused('jane', 'Error from server (Forbidden): secrets is forbidden: User "jane" cannot list resource "secrets" in API group "" in the namespace "team"', 'get', 'secrets', '-n', 'team')
    await refused('jane', 'Error from server (Forbidden): namespaces is forbidden: User "jane" cannot list resource "namespaces" in API group "" at the cluster scope', 'get', 'namespaces')
  })

  it('kubectl auth can-i answers as the bindings say (resources, subresources, paths, --list)', async () => {
    const canI = async (who: string, ...args: string[]) => (await as(who)('auth', 'can-i', ...args)).stdout.trim()
    assert.equal(await canI('jane', 'list', 'pods', '-n', 'team'), 'yes')
    assert.equal(await canI('jane', 'delete', 'pods', '-n', 'team'), 'no')
    assert.equal(await canI('jane', 'get', 'pods', '--subresource=log', '-n', 'team'), 'yes')
    assert.equal(await canI('jane', 'create', 'pods', '--subresource=exec', '-n', 'team'), 'no')
    assert.equal(await canI('jane', 'get', '/healthz'), 'yes')
    assert.equal(await canI('jane', 'get', '/metrics'), 'no')
    const list = await ok('jane', 'auth', 'can-i', '--list', '-n', 'team')
    assert.match(list, /^pods\s+\[\]\s+\[\]\s+\[get list watch\]$/m)
    assert.match(list, /^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m)
    assert.match(list, /^\s+\[\/healthz\]\s+\[\]\s+\[get\]$/m)
    assert.doesNotMatch(list, /^secrets\s/m)
    const elsewhere = await ok('jane', 'auth', 'can-i', '--list', '-n', 'other')
    assert.doesNotMatch(elsewhere, /^pods\s/m)
  })

  it('--as works for the administrator and is refused without impersonate', async () => {
    assert.equal((await as('admin')('auth', 'can-i', 'list', 'pods', '-n', 'team', '--as=jane')).stdout.trim(), 'yes')
    assert.equal((await as('admin')('auth', 'can-i', 'list', 'pods', '-n', 'other', '--as=jane')).stdout.trim(), 'no')
    await refused('admin', 'Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "other"', 'get', 'pods', '-n', 'other', '--as=jane')
    await refused('jane', 'Error from server (Forbidden): users "ci-robot" is forbidden: User "jane" cannot impersonate resource "users" in API group "" at the cluster scope', 'get', 'pods', '-n', 'team', '--as=ci-robot')
  })

  it('a ClusterRole labelled for aggregation extends edit and admin', async () => {
    const file = join(dir, 'crontab-edit.yaml')
    writeFileSync(
      file,
      [
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: ClusterRole',
        'metadata:',
        '  name: crontab-edit',
        '  labels: {rbac.authorization.k8s.io/aggregate-to-edit: "true"}',
        'rules:',
        '- {apiGroups: [stable.example.com], resources: [crontabs], verbs: [get, list, create, delete]}',
        '',
      ].join('\n'),
    )
    // kubectl maps `crontabs.stable.example.com` through discovery, so the CRD must exist.
    const crd = join(dir, 'crd.yaml')
    writeFileSync(
      crd,
      [
        'apiVersion: apiextensions.k8s.io/v1',
        'kind: CustomResourceDefinition',
        'metadata: {name: crontabs.stable.example.com}',
        'spec:',
        '  group: stable.example.com',
        '  scope: Namespaced',
        '  names: {plural: crontabs, singular: crontab, kind: CronTab}',
        '  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]',
        '',
      ].join('\n'),
    )
    await ok('admin', 'apply', '-f', crd)
    await ok('admin', 'apply', '-f', file)
    for (const role of ['edit', 'admin']) {
      await eventually(`${role} to aggregate crontabs`, async () => (await ok('admin', 'get', 'clusterrole', role, '-o', 'json')).includes('crontabs'))
    }
    // The authorizer reads roles from its informers: a moment after the store has them.
    await eventually('admin to allow crontabs', async () => (await as('ci')('auth', 'can-i', 'create', 'crontabs.stable.example.com', '-n', 'team')).stdout.trim() === 'yes')
    assert.equal((await as('jane')('auth', 'can-i', 'create', 'crontabs.stable.example.com', '-n', 'team')).stdout.trim(), 'no')
    assert.equal((await as('jane')('auth', 'can-i', 'list', 'crontabs.stable.example.com', '-n', 'team')).stdout.trim(), 'no', 'view did not gain what only edit was given')
  })

  it('granting more than one holds is refused, and allowed with escalate', async () => {
    await ok('ci', 'create', 'role', 'reader', '-n', 'team', '--verb=get', '--resource=secrets')
    await refused(
      'ci',
      'Error from server (Forbidden): roles.rbac.authorization.k8s.io "node-reader" is forbidden: user "ci-robot" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}',
      'create',
      'role',
      'node-reader',
      '-n',
      'team',
      '--verb=get',
      '--resource=nodes',
    )
    await ok('admin', 'create', 'role', 'escalator', '-n', 'team', '--verb=escalate', '--resource=roles.rbac.authorization.k8s.io')
    await ok('admin', 'create', 'rolebinding', 'ci-escalate', '-n', 'team', '--role=escalator', '--user=ci-robot')
    await eventually('escalate to allow the role', async () => (await as('ci')('create', 'role', 'node-reader', '-n', 'team', '--verb=get', '--resource=nodes')).code === 0)
  })

  it("the controllers' system:controller: roles exist and grant their service accounts", async () => {
    const role = JSON.parse(await ok('admin', 'get', 'clusterrole', 'system:controller:job-controller', '-o', 'json'))
    assert.equal(role.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate'], 'true')
    const binding = JSON.parse(await ok('admin', 'get', 'clusterrolebinding', 'system:controller:job-controller', '-o', 'json'))
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'job-controller', namespace: 'kube-system' }])
    const jobController = 'system:serviceaccount:kube-system:job-controller'
    assert.equal((await ok('admin', 'auth', 'can-i', 'create', 'pods', '-n', 'team', `--as=${jobController}`)).trim(), 'yes')
    const secrets = await as('admin')('auth', 'can-i', 'get', 'secrets', '-n', 'team', `--as=${jobController}`)
    assert.equal(secrets.stdout.trim(), 'no')
  })

  it('a node reads only the secrets of the pods bound to it', async () => {
    await ok('admin', 'create', 'secret', 'generic', 'used', '-n', 'team', '--from-literal=k=v')
    await ok('admin', 'create', 'secret', 'generic', 'unused', '-n', 'team', '--from-literal=k=v')
    const pod = join(dir, 'pod.yaml')
    writeFileSync(
      pod,
      [
        'apiVersion: v1',
        'kind: Pod',
        'metadata: {name: web, namespace: team}',
        'spec:',
        '  nodeName: n1',
        '  containers: [{name: c, image: nginx, env: [{name: K, valueFrom: {secretKeyRef: {name: used, key: k}}}]}]',
        '',
      ].join('\n'),
    )
    await ok('admin', 'apply', '-f', pod)
    await eventually('the node to reach its pod\'s secret', async () => (await as('node')('get', 'secret', 'used', '-n', 'team')).code === 0)
    await refused(
      'node',
      `Error from server (Forbidden): secrets "unused" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "team": no relationship found between node 'n1' and this object`,
      'get',
      'secret',
      'unused',
      '-n',
      'team',
    )
    await refused('node', 'Error from server (Forbidden): secrets is forbidden: User "system:node:n1" cannot list resource "secrets" in API group "" in the namespace "team": No Object name found', 'get', 'secrets', '-n', 'team')
  })

  it('a node reaches the volume of its pod, its own lease and Node, and lists only its pods', async () => {
    const manifest = join(dir, 'node-objects.yaml')
    writeFileSync(
      manifest,
      [
        'apiVersion: v1',
        'kind: PersistentVolume',
        'metadata: {name: pv-web}',
        'spec:',
        '  capacity: {storage: 1Gi}',
        '  accessModes: [ReadWriteOnce]',
        '  claimRef: {namespace: team, name: web-data}',
        '  csi: {driver: d.example.com, volumeHandle: h1, nodePublishSecretRef: {name: csi-creds, namespace: team}}',
        '---',
        'apiVersion: v1',
        'kind: PersistentVolume',
        'metadata: {name: pv-unused}',
        'spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /tmp/x}}',
        '---',
        'apiVersion: v1',
        'kind: Pod',
        'metadata: {name: db, namespace: team}',
        'spec:',
        '  nodeName: n1',
        '  containers: [{name: c, image: postgres}]',
        '  volumes: [{name: data, persistentVolumeClaim: {claimName: web-data}}]',
        '',
      ].join('\n'),
    )
    await ok('admin', 'apply', '-f', manifest)
    await ok('admin', 'create', 'secret', 'generic', 'csi-creds', '-n', 'team', '--from-literal=k=v')
    await eventually("the node to reach its pod's volume", async () => (await as('node')('get', 'pv', 'pv-web')).code === 0)
    await ok('node', 'get', 'secret', 'csi-creds', '-n', 'team')
    await refused(
      'node',
      `Error from server (Forbidden): persistentvolumes "pv-unused" is forbidden: User "system:node:n1" cannot get resource "persistentvolumes" in API group "" at the cluster scope: no relationship found between node 'n1' and this object`,
      'get',
      'pv',
      'pv-unused',
    )
    const lease = (name: string) => {
      const file = join(dir, `lease-${name}.yaml`)
      writeFileSync(file, `apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata: {name: ${name}, namespace: kube-node-lease}\nspec: {holderIdentity: ${name}, leaseDurationSeconds: 40}\n`)
      return file
    }
    await ok('node', 'apply', '-f', lease('n1'))
    await ok('node', 'get', 'lease', 'n1', '-n', 'kube-node-lease')
    await ok('admin', 'apply', '-f', lease('n2'))
    await refused(
      'node',
      'Error from server (Forbidden): leases.coordination.k8s.io "n2" is forbidden: User "system:node:n1" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "kube-node-lease": can only access node lease with the same name as the requesting node',
      'get',
      'lease',
      'n2',
      '-n',
      'kube-node-lease',
    )
    const pods = await ok('node', 'get', 'pods', '-A', '--field-selector', 'spec.nodeName=n1', '-o', 'name')
    assert.match(pods, /pod\/db/)
    await refused(
      'node',
      'Error from server (Forbidden): pods is forbidden: User "system:node:n1" cannot list resource "pods" in API group "" at the cluster scope: can only list/watch pods with spec.nodeName field selector',
      'get',
      'pods',
      '-A',
    )
    await refused(
      'node',
      `Error from server (Forbidden): nodes "n2" is forbidden: User "system:node:n1" cannot get resource "nodes" in API group "" at the cluster scope: node 'n1' cannot read 'n2', only its own Node object`,
      'get',
      'node',
      'n2',
    )
  })

  it('anonymous users reach the probes and the version, nothing else', async () => {
    assert.equal((await server.get('/livez', {}, 'GET', undefined, 'anonymous')).status, 200)
    assert.equal((await server.get('/readyz', {}, 'GET', undefined, 'anonymous')).status, 200)
    assert.equal((await server.get('/version', {}, 'GET', undefined, 'anonymous')).status, 200)
    const api = await server.get('/api', {}, 'GET', undefined, 'anonymous')
    assert.equal(api.status, 403)
    assert.equal(JSON.parse(api.body).message, 'forbidden: User "system:anonymous" cannot get path "/api"')
    const secrets = await server.get('/api/v1/namespaces/team/secrets', {}, 'GET', undefined, 'anonymous')
    assert.equal(secrets.status, 403)
  })
})

describe('authorization: explicit modes (end to end)', function () {
  this.timeout(120_000)
  let dir: string
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'authz-modes-'))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('--authorization-mode=AlwaysAllow turns anonymous access off, and says so', async () => {
    const server = await ApiServer.start({ args: ['--authorization-mode=AlwaysAllow'] })
    try {
      assert.equal((await server.get('/api/v1/namespaces/default/secrets', {}, 'GET', undefined, 'anonymous')).status, 401)
      assert.equal((await server.get('/api/v1/namespaces/default/secrets')).status, 200)
      assert.match(server.logs, /AnonymousAuth is not allowed with the AlwaysAllow authorizer\. Resetting AnonymousAuth to false\. You should use a different authorizer/)
    } finally {
      await server.stop()
    }
  })

  it('ABAC allows what its policy file says', async () => {
    const ca = await makeCa('abac-ca')
    writeFileSync(join(dir, 'ca.crt'), ca.certPem)
    const policy = (spec: object) => JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec })
    writeFileSync(join(dir, 'policy.jsonl'), [policy({ user: 'bob', namespace: 'default', resource: 'configmaps', apiGroup: '', readonly: true }), policy({ group: 'system:authenticated', nonResourcePath: '*', readonly: true })].join('\n'))
    const server = await ApiServer.start({ args: ['--authorization-mode=ABAC', `--authorization-policy-file=${join(dir, 'policy.jsonl')}`, `--client-ca-file=${join(dir, 'ca.crt')}`] })
    try {
      const bob = await makeClientCert(ca, 'bob')
      assert.equal((await server.get('/api/v1/namespaces/default/configmaps', {}, 'GET', undefined, bob)).status, 200)
      const write = await server.get('/api/v1/namespaces/default/configmaps', { 'Content-Type': 'application/json' }, 'POST', '{"metadata":{"name":"x"}}', bob)
      assert.equal(write.status, 403)
      assert.equal(JSON.parse(write.body).message, 'configmaps is forbidden: User "bob" cannot create resource "configmaps" in API group "" in the namespace "default": No policy matched.')
      assert.equal((await server.get('/api/v1/namespaces/kube-system/configmaps', {}, 'GET', undefined, bob)).status, 403)
    } finally {
      await server.stop()
    }
  })

  it('a webhook authorizer decides as it answers (v1), with its allow and deny caches', async () => {
    const reviews: Array<{ apiVersion: string; spec: { user: string; groups?: string[]; resourceAttributes?: { verb: string; resource: string } } }> = []
    const hook = createServer((req, res) => {
      let body = ''
      req.on('data', (d) => (body += d))
      req.on('end', () => {
        const review = JSON.parse(body)
        reviews.push(review)
        const user = review.spec.user
        const status = user === 'web-user' ? { allowed: true } : user === 'blocked' ? { allowed: false, denied: true, reason: 'blocked by the test webhook' } : { allowed: false, reason: 'not my business' }
        res.setHeader('Content-Type', 'application/json')
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'SubjectAccessReview', status }))
      })
    })
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve))
    const port = (hook.address() as AddressInfo).port
    writeFileSync(join(dir, 'webhook.kubeconfig'), `apiVersion: v1\nkind: Config\nclusters: [{name: w, cluster: {server: "http://127.0.0.1:${port}/authorize"}}]\nusers: [{name: w, user: {}}]\ncontexts: [{name: w, context: {cluster: w, user: w}}]\ncurrent-context: w\n`)
    writeFileSync(join(dir, 'hook-tokens.csv'), 'web-token,web-user,1\nblocked-token,blocked,2\nother-token,other,3\n')
    const server = await ApiServer.start({
      args: [
        '--authorization-mode=Webhook,RBAC',
        `--authorization-webhook-config-file=${join(dir, 'webhook.kubeconfig')}`,
        '--authorization-webhook-version=v1',
        '--authorization-webhook-cache-unauthorized-ttl=1h',
        `--token-auth-file=${join(dir, 'hook-tokens.csv')}`,
      ],
    })
    try {
      const get = (token: string) => server.get('/api/v1/namespaces/default/configmaps', { Authorization: `Bearer ${token}` }, 'GET', undefined, 'anonymous')
      assert.equal((await get('web-token')).status, 200)
      assert.equal((await get('web-token')).status, 200)
      const denied = await get('blocked-token')
      assert.equal(denied.status, 403)
      assert.equal(JSON.parse(denied.body).message, 'configmaps is forbidden: User "blocked" cannot list resource "configmaps" in API group "" in the namespace "default": blocked by the test webhook')
      await get('blocked-token')
      const other = await get('other-token')
      assert.equal(JSON.parse(other.body).message, 'configmaps is forbidden: User "other" cannot list resource "configmaps" in API group "" in the namespace "default": not my business')
      const asked = (user: string) => reviews.filter((r) => r.spec.user === user && r.spec.resourceAttributes?.resource === 'configmaps').length
      assert.equal(asked('web-user'), 1, 'the allow was cached')
      assert.equal(asked('blocked'), 1, 'the deny was cached')
      const first = reviews.find((r) => r.spec.user === 'web-user')!
      assert.equal(first.apiVersion, 'authorization.k8s.io/v1')
      assert.deepEqual(first.spec.groups, ['system:authenticated'])
    } finally {
      await server.stop()
      hook.close()
    }
  })

  it('a structured-config webhook is asked only when its CEL match conditions hold (kubectl)', async () => {
    const asked: Array<{ user: string; namespace?: string }> = []
    const hook = createServer((req, res) => {
      let body = ''
      req.on('data', (d) => (body += d))
      req.on('end', () => {
        const review = JSON.parse(body)
        asked.push({ user: review.spec.user, namespace: review.spec.resourceAttributes?.namespace })
        res.setHeader('Content-Type', 'application/json')
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'SubjectAccessReview', status: { allowed: true } }))
      })
    })
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve))
    const port = (hook.address() as AddressInfo).port
    writeFileSync(join(dir, 'cel-hook.kubeconfig'), `apiVersion: v1\nkind: Config\nclusters: [{name: w, cluster: {server: "http://127.0.0.1:${port}/authorize"}}]\nusers: [{name: w, user: {}}]\ncontexts: [{name: w, context: {cluster: w, user: w}}]\ncurrent-context: w\n`)
    writeFileSync(join(dir, 'cel-tokens.csv'), 'cel-token,cel-user,1\n')
    const authz = (conditions: string) =>
      `apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- {type: Node, name: node}\n- {type: RBAC, name: rbac}\n- type: Webhook\n  name: cel-hook\n  webhook:\n    timeout: 3s\n    subjectAccessReviewVersion: v1\n    matchConditionSubjectAccessReviewVersion: v1\n    failurePolicy: Deny\n    connectionInfo: {type: KubeConfigFile, kubeConfigFile: ${join(dir, 'cel-hook.kubeconfig')}}\n    matchConditions:\n${conditions}`
    writeFileSync(join(dir, 'authz.yaml'), authz(`    - expression: has(request.resourceAttributes)\n    - expression: "request.resourceAttributes.namespace == 'hooked'"\n`))
    const server = await ApiServer.start({ waitFor: 'ready', args: [`--authorization-config=${join(dir, 'authz.yaml')}`, `--token-auth-file=${join(dir, 'cel-tokens.csv')}`] })
    try {
      const kubeconfig = writeKubeconfig(dir, 'kubeconfig-cel', server.port, { token: 'cel-token' })
      const inHooked = await kubectl(kubeconfig, dir, 'get', 'configmaps', '-n', 'hooked')
      assert.equal(inHooked.code, 0, inHooked.stderr)
      const inDefault = await kubectl(kubeconfig, dir, 'get', 'configmaps', '-n', 'default')
      assert.notEqual(inDefault.code, 0)
      assert.equal(inDefault.stderr.trim(), 'Error from server (Forbidden): configmaps is forbidden: User "cel-user" cannot list resource "configmaps" in API group "" in the namespace "default"')
      assert.deepEqual(
        asked.filter((a) => a.user === 'cel-user'),
        [{ user: 'cel-user', namespace: 'hooked' }],
        'the webhook was asked for the hooked namespace only',
      )
    } finally {
      await server.stop()
      hook.close()
    }
    writeFileSync(join(dir, 'authz-bad.yaml'), authz('    - expression: request.user\n'))
    const { code, output } = await startExpectingFailure(['--bind-address=127.0.0.1', '--secure-port=1', `--cert-dir=${join(dir, 'certs')}`, `--data-dir=${join(dir, 'data')}`, `--authorization-config=${join(dir, 'authz-bad.yaml')}`])
    assert.notEqual(code, 0)
    assert.match(output, /invalid authorization config: authorizers\[2\]\.webhook\.matchConditions\[0\]\.expression: Invalid value: "request\.user": must evaluate to bool but got string/)
  })

  it('a bad ABAC policy file stops the start-up with the line named', async () => {
    writeFileSync(join(dir, 'bad.jsonl'), '{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{}}\n{oops\n')
    const { code, output } = await startExpectingFailure(['--bind-address=127.0.0.1', '--secure-port=1', `--cert-dir=${join(dir, 'certs')}`, `--data-dir=${join(dir, 'data')}`, '--authorization-mode=ABAC', `--authorization-policy-file=${join(dir, 'bad.jsonl')}`])
    assert.notEqual(code, 0)
    assert.match(output, new RegExp(`error reading policy file ${join(dir, 'bad.jsonl').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, line 2: \\{oops: `))
    assert.doesNotMatch(output, /\n\s+at /)
  })
})
