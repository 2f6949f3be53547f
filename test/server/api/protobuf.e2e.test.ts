/**
 * Protobuf end to end with the real kubectl 1.35, on the embedded store and on a real etcd (and
 * with kubectl 1.32 on the embedded store):
 * kubectl's generator commands (create namespace/configmap/secret/deployment/service, run,
 * expose) send protobuf bodies and accept protobuf answers; `get` prints Tables and watches;
 * raw requests check protobuf objects, lists, watches and Status errors, the 406/415 answers
 * and custom resources (JSON only); a restart under another `--storage-media-type` reads
 * what was written before.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { request as httpsRequest } from 'node:https'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ProtobufCodec, isProtobufEnvelope, loadProtobufCodec } from '../../../src/core/protobuf/index.js'
import { until } from '../../support/until.js'
import { jsYaml } from '../../../src/core/util/yaml.js'
import { openStore } from '../../../src/server/store/index.js'
import type { ApiServer } from '../../support/api-server.js'
import { rawHttps } from '../../support/raw-https.js'
import { EtcdServer, requireEtcd } from '../../support/etcd.js'
import { KubectlSession } from '../../support/kubectl-session.js'
import { type KubectlChoice, MAIN_KUBECTL, SKEW_KUBECTL } from '../../support/kubectl-versions.js'

const PB = 'application/vnd.kubernetes.protobuf'
const NOT_ACCEPTABLE = 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf'
const UNSUPPORTED = 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf'

type Obj = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any


const raw = rawHttps

/** A streaming request whose received bytes accumulate until `close()`. */
function stream(server: ApiServer, path: string, headers: Record<string, string>) {
  const chunks: Buffer[] = []
  let contentType = ''
  const req = httpsRequest({ host: '127.0.0.1', port: server.port, path, headers, rejectUnauthorized: false, agent: false, ...server.tlsClient() })
  const status = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      contentType = String(res.headers['content-type'] ?? '')
      res.on('data', (d: Buffer) => chunks.push(d))
      resolve(res.statusCode!)
    })
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)))
  })
  req.end()
  return { status, bytes: () => Buffer.concat(chunks), contentType: () => contentType, close: () => req.destroy() }
}

function yamlOf(text: string): Obj {
  return jsYaml().load(text) as Obj
}

/** The stored bytes of keys, read straight from the store the server uses (etcd, or the embedded store once stopped). */
async function storedValues(where: { servers?: string[]; dataDir?: string }, keys: string[]): Promise<Buffer[]> {
  const store = await openStore({
    ...where,
    prefix: '/registry',
    compactionIntervalMs: 0,
    healthcheckTimeoutMs: 2000,
    readycheckTimeoutMs: 2000,
    initializationTimeoutMs: 10_000,
  })
  try {
    const out: Buffer[] = []
    for (const key of keys) {
      const kv = await store.get(key)
      assert.ok(kv, `${key} is not stored`)
      out.push(kv.value)
    }
    return out
  } finally {
    await store.close()
  }
}

/** The suite for one backend and one kubectl; `backend()` gives the server arguments naming the store. */
function protobufSuite(title: string, client: KubectlChoice, backend: (ctx: Mocha.Context) => Promise<string[]>, cleanup: () => Promise<void>, etcdUrl?: () => string) {
  describe(`${title} [kubectl ${client.version}]`, function () {
    this.timeout(120_000)
    let session: KubectlSession
    let codec: ProtobufCodec
    const ok = (...args: string[]) => session.ok(...args)

    before(async function () {
      const args = await backend(this)
      session = await KubectlSession.open(this, 'api-protobuf-', { waitFor: 'ready', args, kubectl: client.tool })
      codec = await loadProtobufCodec()
    })
    after(async () => {
      await session?.close()
      await cleanup()
    })

    it('issue #8 acceptance: create namespace, create deployment (protobuf), get -o yaml', async () => {
      assert.equal(await ok('create', 'namespace', 'demo'), 'namespace/demo created\n')
      assert.equal(await ok('create', 'deployment', 'web', '--image=nginx', '-n', 'demo'), 'deployment.apps/web created\n')
      const deploy = yamlOf(await ok('get', 'deploy', '-n', 'demo', 'web', '-o', 'yaml'))
      assert.equal(deploy.apiVersion, 'apps/v1')
      assert.equal(deploy.kind, 'Deployment')
      assert.equal(deploy.metadata.name, 'web')
      assert.equal(deploy.metadata.namespace, 'demo')
      assert.deepEqual(deploy.metadata.labels, { app: 'web' })
      assert.equal(deploy.spec.replicas, 1)
      // kubectl sends `strategy: {}`; the reference's defaults fill it in.
      assert.deepEqual(deploy.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } })
      assert.deepEqual(deploy.spec.selector, { matchLabels: { app: 'web' } })
      assert.deepEqual(deploy.spec.template.metadata.labels, { app: 'web' })
      assert.equal(deploy.spec.template.spec.containers[0].name, 'nginx')
      assert.equal(deploy.spec.template.spec.containers[0].image, 'nginx')
      assert.match(deploy.metadata.uid, /^[0-9a-f-]{36}$/)
      assert.match(deploy.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
      assert.equal(deploy.metadata.generation, 1)
    })

    it('kubectl generators: configmap, secret, service, run, expose; get -o yaml of each', async () => {
      assert.equal(await ok('create', 'configmap', 'c', '--from-literal=a=b'), 'configmap/c created\n')
      assert.equal(await ok('create', 'secret', 'generic', 's', '--from-literal=k=v'), 'secret/s created\n')
      assert.equal(await ok('create', 'service', 'clusterip', 'svc', '--tcp=80:8080'), 'service/svc created\n')
      assert.equal(await ok('run', 'pod1', '--image=nginx'), 'pod/pod1 created\n')
      assert.equal(await ok('expose', 'deployment', 'web', '--port=80', '-n', 'demo'), 'service/web exposed\n')

      const ns = yamlOf(await ok('get', 'namespace', 'demo', '-o', 'yaml'))
      assert.equal(ns.kind, 'Namespace')
      assert.equal(ns.metadata.name, 'demo')
      assert.equal(ns.status.phase, 'Active')

      const cm = yamlOf(await ok('get', 'configmap', 'c', '-o', 'yaml'))
      assert.equal(cm.kind, 'ConfigMap')
      assert.equal(cm.metadata.namespace, 'default')
      assert.deepEqual(cm.data, { a: 'b' })

      const secret = yamlOf(await ok('get', 'secret', 's', '-o', 'yaml'))
      assert.equal(secret.kind, 'Secret')
      assert.equal(secret.type, 'Opaque')
      assert.deepEqual(secret.data, { k: Buffer.from('v').toString('base64') })

      const svc = yamlOf(await ok('get', 'service', 'svc', '-o', 'yaml'))
      assert.equal(svc.spec.type, 'ClusterIP')
      assert.deepEqual(svc.spec.selector, { app: 'svc' })
      assert.deepEqual(svc.spec.ports, [{ name: '80-8080', port: 80, protocol: 'TCP', targetPort: 8080 }])
      assert.match(svc.spec.clusterIP, /^10\.0\.0\.\d+$/)

      const pod = yamlOf(await ok('get', 'pod', 'pod1', '-o', 'yaml'))
      assert.equal(pod.kind, 'Pod')
      assert.deepEqual(pod.metadata.labels, { run: 'pod1' })
      assert.equal(pod.spec.containers[0].name, 'pod1')
      assert.equal(pod.spec.containers[0].image, 'nginx')

      const exposed = yamlOf(await ok('get', 'service', 'web', '-n', 'demo', '-o', 'yaml'))
      assert.deepEqual(exposed.spec.selector, { app: 'web' })
      assert.equal(exposed.spec.ports[0].port, 80)
      assert.equal(exposed.spec.ports[0].targetPort, 80)
      assert.match(exposed.spec.clusterIP, /^10\.0\.0\.\d+$/)
      assert.notEqual(exposed.spec.clusterIP, svc.spec.clusterIP, 'two services got the same cluster IP')
    })

    it('more generators (protobuf bodies): serviceaccount, role, rolebinding, clusterrole, job, cronjob, pdb, priorityclass, ingress', async () => {
      assert.equal(await ok('create', 'serviceaccount', 'robot', '-n', 'demo'), 'serviceaccount/robot created\n')
      assert.equal(await ok('create', 'role', 'reader', '--verb=get,list', '--resource=pods', '-n', 'demo'), 'role.rbac.authorization.k8s.io/reader created\n')
      assert.equal(await ok('create', 'rolebinding', 'rb', '--role=reader', '--serviceaccount=demo:robot', '-n', 'demo'), 'rolebinding.rbac.authorization.k8s.io/rb created\n')
      assert.equal(await ok('create', 'clusterrole', 'cr', '--verb=get', '--resource=nodes'), 'clusterrole.rbac.authorization.k8s.io/cr created\n')
      assert.equal(await ok('create', 'job', 'once', '--image=busybox', '-n', 'demo', '--', 'true'), 'job.batch/once created\n')
      assert.equal(await ok('create', 'cronjob', 'tick', '--image=busybox', '--schedule=*/5 * * * *', '-n', 'demo'), 'cronjob.batch/tick created\n')
      assert.equal(await ok('create', 'pdb', 'budget', '--selector=app=web', '--min-available=1', '-n', 'demo'), 'poddisruptionbudget.policy/budget created\n')
      assert.equal(await ok('create', 'priorityclass', 'high', '--value=1000', '--description=important'), 'priorityclass.scheduling.k8s.io/high created\n')
      assert.equal(await ok('create', 'ingress', 'front', '--rule=example.com/=web:80', '-n', 'demo'), 'ingress.networking.k8s.io/front created\n')

      const role = yamlOf(await ok('get', 'role', 'reader', '-n', 'demo', '-o', 'yaml'))
      assert.deepEqual(role.rules, [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }])
      const binding = yamlOf(await ok('get', 'rolebinding', 'rb', '-n', 'demo', '-o', 'yaml'))
      assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' })
      assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'robot', namespace: 'demo' }])
      const job = yamlOf(await ok('get', 'job', 'once', '-n', 'demo', '-o', 'yaml'))
      assert.deepEqual(job.spec.template.spec.containers[0].command, ['true'])
      assert.equal(job.spec.template.spec.restartPolicy, 'Never')
      const cron = yamlOf(await ok('get', 'cronjob', 'tick', '-n', 'demo', '-o', 'yaml'))
      assert.equal(cron.spec.schedule, '*/5 * * * *')
      const pdb = yamlOf(await ok('get', 'pdb', 'budget', '-n', 'demo', '-o', 'yaml'))
      assert.equal(pdb.spec.minAvailable, 1)
      assert.deepEqual(pdb.spec.selector, { matchLabels: { app: 'web' } })
      const pc = yamlOf(await ok('get', 'priorityclass', 'high', '-o', 'yaml'))
      assert.equal(pc.value, 1000)
      assert.equal(pc.description, 'important')
      const ingress = yamlOf(await ok('get', 'ingress', 'front', '-n', 'demo', '-o', 'yaml'))
      assert.equal(ingress.spec.rules[0].host, 'example.com')
      assert.deepEqual(ingress.spec.rules[0].http.paths[0].backend, { service: { name: 'web', port: { number: 80 } } })
    })

    it('get prints tables of objects stored as protobuf', async () => {
      const deployments = await ok('get', 'deploy', '-n', 'demo')
      assert.match(deployments, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\n/)
      assert.match(deployments, /^web\s+/m)
      const cms = await ok('get', 'configmaps')
      assert.match(cms, /^NAME\s+DATA\s+AGE\n/)
      assert.match(cms, /^c\s+1\s+\d+s$/m)
      const services = await ok('get', 'svc', '-A')
      assert.match(services, /^default\s+svc\s+ClusterIP\s+10\.0\.0\.\d+\s+<none>\s+80\/TCP\s+/m)
      assert.match(services, /^demo\s+web\s+ClusterIP\s+/m)
    })

    it('get -w prints the pod another kubectl creates with run (protobuf)', async () => {
      const watcher = spawn(session.kubectl, [...session.base, 'get', 'pods', '-w'], { env: { ...process.env, HOME: session.tmp } })
      let out = ''
      watcher.stdout.on('data', (d) => (out += d))
      watcher.stderr.on('data', (d) => (out += d))
      try {
        await until('the initial list', () => (/^pod1\s+/m.test(out) ? true : undefined))
        assert.equal(await ok('run', 'pod2', '--image=nginx'), 'pod/pod2 created\n')
        await until(`pod2 in the watch output: ${out}`, () => (/^pod2\s+/m.test(out) ? true : undefined))
      } finally {
        watcher.kill('SIGTERM')
      }
    })

    it('raw: protobuf objects, lists and Status errors when asked; JSON Tables for a protobuf Table clause', async () => {
      const got = await raw(session.server, '/api/v1/namespaces/default/configmaps/c', { Accept: `${PB}, */*` })
      assert.equal(got.status, 200)
      assert.equal(got.contentType, PB)
      const cm = codec.decode(got.body)
      assert.equal(cm.kind, 'ConfigMap')
      assert.deepEqual(cm.data, { a: 'b' })

      const list = await raw(session.server, '/apis/apps/v1/namespaces/demo/deployments', { Accept: `${PB},application/json` })
      assert.equal(list.contentType, PB)
      const deployments = codec.decode(list.body)
      assert.equal(deployments.kind, 'DeploymentList')
      assert.deepEqual((deployments.items as Obj[]).map((d) => d.metadata.name), ['web'])
      assert.ok((deployments.metadata as Obj).resourceVersion)

      const missing = await raw(session.server, '/api/v1/namespaces/default/configmaps/nope', { Accept: PB })
      assert.equal(missing.status, 404)
      assert.equal(missing.contentType, PB)
      const status = codec.decode(missing.body)
      assert.equal(status.kind, 'Status')
      assert.equal(status.reason, 'NotFound')
      assert.equal(status.message, 'configmaps "nope" not found')

      const table = await raw(session.server, '/api/v1/namespaces/default/configmaps', {
        Accept: `${PB};as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io,application/json`,
      })
      assert.equal(table.status, 200)
      const t = JSON.parse(table.body.toString('utf8')) as Obj
      assert.equal(t.kind, 'Table')
      assert.equal(t.apiVersion, 'meta.k8s.io/v1')
    })

    it('raw: a protobuf GET (the stored bytes with the resourceVersion spliced in) is the JSON GET, also after updates', async () => {
      await ok('create', 'configmap', 'spliced', '--from-literal=k=v')
      await ok('label', 'configmap', 'spliced', 'step=two')
      for (const path of ['/api/v1/namespaces/default/configmaps/spliced', '/apis/apps/v1/namespaces/demo/deployments/web', '/apis/apps/v1/namespaces/demo/deployments/web/status', '/api/v1/namespaces/demo']) {
        const asJson = JSON.parse((await raw(session.server, path, { Accept: 'application/json' })).body.toString('utf8')) as Obj
        const got = await raw(session.server, path, { Accept: PB })
        assert.equal(got.status, 200, path)
        assert.equal(got.contentType, PB, path)
        assert.deepEqual(codec.decode(got.body), asJson, path)
        assert.ok(asJson.metadata.resourceVersion, path)
      }
    })

    it('raw: legacy discovery documents in protobuf when asked first, JSON for kubectl\'s discovery Accept', async () => {
      const versions = await raw(session.server, '/api', { Accept: `${PB}, */*` })
      assert.equal(versions.status, 200)
      assert.equal(versions.contentType, PB)
      const decoded = codec.decode(versions.body)
      assert.equal(decoded.kind, 'APIVersions')
      assert.deepEqual(decoded.versions, ['v1'])
      const resources = await raw(session.server, '/apis/apps/v1', { Accept: `${PB}, */*` })
      assert.equal(resources.contentType, PB)
      assert.ok((codec.decode(resources.body).resources as Obj[]).some((r) => r.name === 'deployments'))
      const json = await raw(session.server, '/api/v1', { Accept: 'application/json, */*' })
      assert.equal(json.contentType, 'application/json')
      assert.equal((JSON.parse(json.body.toString('utf8')) as Obj).kind, 'APIResourceList')
    })

    it('raw: 406 and 415 with the reference messages', async () => {
      const html = await raw(session.server, '/api/v1/namespaces/default/configmaps', { Accept: 'text/html' })
      assert.equal(html.status, 406)
      assert.equal(html.contentType, 'application/json')
      const notAcceptable = JSON.parse(html.body.toString('utf8')) as Obj
      assert.equal(notAcceptable.reason, 'NotAcceptable')
      assert.equal(notAcceptable.message, NOT_ACCEPTABLE)

      const text = await raw(session.server, '/api/v1/namespaces/default/configmaps', { 'Content-Type': 'text/plain' }, 'POST', 'x')
      assert.equal(text.status, 415)
      const unsupported = JSON.parse(text.body.toString('utf8')) as Obj
      assert.equal(unsupported.reason, 'UnsupportedMediaType')
      assert.equal(unsupported.message, UNSUPPORTED)
    })

    it('raw: a protobuf create, then a protobuf watch with length-prefixed frames', async () => {
      const list = await raw(session.server, '/api/v1/namespaces/default/configmaps', { Accept: 'application/json' })
      const rv = (JSON.parse(list.body.toString('utf8')) as Obj).metadata.resourceVersion as string
      const watch = stream(session.server, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`, { Accept: PB })
      try {
        assert.equal(await watch.status, 200)
        assert.equal(watch.contentType(), `${PB};stream=watch`)
        const body = codec.encode({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'framed' }, data: { n: '1' } })
        const created = await raw(session.server, '/api/v1/namespaces/default/configmaps', { 'Content-Type': PB, Accept: PB }, 'POST', body)
        assert.equal(created.status, 201)
        assert.equal(created.contentType, PB)
        assert.deepEqual(codec.decode(created.body).data, { n: '1' })
        const event = await until('the ADDED frame', () => {
          try {
            return codec.decodeWatchFrames(watch.bytes()).find((e) => e.type === 'ADDED' && (e.object.metadata as Obj).name === 'framed')
          } catch {
            return undefined
          }
        })
        assert.equal(event.object.kind, 'ConfigMap')
        assert.deepEqual(event.object.data, { n: '1' })
      } finally {
        watch.close()
      }
    })

    it('raw: DELETE with protobuf DeleteOptions: a failed precondition is a protobuf Status, then the Success Status', async () => {
      const created = await raw(session.server, '/api/v1/namespaces/default/configmaps', { 'Content-Type': PB, Accept: PB }, 'POST', codec.encode({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'doomed' } }))
      assert.equal(created.status, 201)
      const uid = (codec.decode(created.body).metadata as Obj).uid as string
      const options = (pre: string) => codec.encode({ apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: pre } })
      const stale = await raw(session.server, '/api/v1/namespaces/default/configmaps/doomed', { 'Content-Type': PB, Accept: PB }, 'DELETE', options('wrong'))
      assert.equal(stale.status, 409)
      const conflict = codec.decode(stale.body)
      assert.equal(conflict.reason, 'Conflict')
      assert.equal(conflict.message, `Operation cannot be fulfilled on configmaps "doomed": Precondition failed: UID in precondition: wrong, UID in object meta: ${uid}`)
      const deleted = await raw(session.server, '/api/v1/namespaces/default/configmaps/doomed', { 'Content-Type': PB, Accept: PB }, 'DELETE', options(uid))
      assert.equal(deleted.status, 200)
      const status = codec.decode(deleted.body)
      assert.equal(status.kind, 'Status')
      assert.equal(status.status, 'Success')
      assert.deepEqual(status.details, { name: 'doomed', kind: 'configmaps', uid })
    })

    it('raw: custom resources are JSON only (protobuf Accept falls back to */*; protobuf alone is 406; protobuf bodies 400)', async () => {
      const crd = [
        'apiVersion: apiextensions.k8s.io/v1',
        'kind: CustomResourceDefinition',
        'metadata: {name: widgets.example.com}',
        'spec:',
        '  group: example.com',
        '  scope: Namespaced',
        '  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}',
        '  versions:',
        '  - name: v1',
        '    served: true',
        '    storage: true',
        '    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}',
        '',
      ].join('\n')
      await ok('apply', '-f', session.file('crd.yaml', crd))
      await ok('apply', '-f', session.file('w.yaml', 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 3}\n'))
      const path = '/apis/example.com/v1/namespaces/default/widgets'
      const fallback = await raw(session.server, path, { Accept: `${PB}, */*` })
      assert.equal(fallback.status, 200)
      assert.equal(fallback.contentType, 'application/json')
      assert.equal((JSON.parse(fallback.body.toString('utf8')) as Obj).kind, 'WidgetList')

      const only = await raw(session.server, `${path}/w1`, { Accept: PB })
      assert.equal(only.status, 406)
      // The reference writes the error in the negotiated type, without the custom resource's restriction.
      assert.equal(only.contentType, PB)
      const status = codec.decode(only.body)
      assert.equal(status.reason, 'NotAcceptable')
      assert.equal(status.message, NOT_ACCEPTABLE)

      const body = codec.encode({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } })
      const posted = await raw(session.server, path, { 'Content-Type': PB, Accept: 'application/json' }, 'POST', body)
      assert.equal(posted.status, 400)
      assert.equal(
        (JSON.parse(posted.body.toString('utf8')) as Obj).message,
        'ConfigMap in version "v1" cannot be handled as a Widget: object *unstructured.Unstructured does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message',
      )
    })

    if (etcdUrl) {
      it('stores built-in kinds as protobuf (the default) and custom resources as JSON', async () => {
        const [cm, deploy, widget] = await storedValues({ servers: [etcdUrl()] }, ['/configmaps/default/c', '/deployments/demo/web', '/example.com/widgets/default/w1'])
        assert.ok(isProtobufEnvelope(cm!), cm!.toString('latin1'))
        assert.deepEqual(codec.decode(cm!).data, { a: 'b' })
        assert.ok(isProtobufEnvelope(deploy!))
        assert.equal(codec.decode(deploy!).kind, 'Deployment')
        assert.equal(widget![0], '{'.charCodeAt(0), widget!.toString('latin1'))
        assert.equal((JSON.parse(widget!.toString('utf8')) as Obj).spec.size, 3)
        // What the server writes itself (bootstrap namespaces, the kubernetes service) too.
        const [ns, svc] = await storedValues({ servers: [etcdUrl()] }, ['/namespaces/kube-system', '/services/default/kubernetes'])
        assert.ok(isProtobufEnvelope(ns!), ns!.toString('latin1'))
        assert.equal(codec.decode(svc!).kind, 'Service')
      })
    }
  })
}

let etcd: EtcdServer | undefined
protobufSuite(
  'api: protobuf with kubectl on the embedded store (end to end)',
  MAIN_KUBECTL,
  async () => [],
  async () => {},
)
protobufSuite(
  'api: protobuf with kubectl on etcd (end to end)',
  MAIN_KUBECTL,
  async (ctx) => {
    requireEtcd(ctx)
    etcd = await EtcdServer.start()
    return [`--store-servers=${etcd.clientUrl}`]
  },
  async () => {
    await etcd?.destroy()
  },
  () => etcd!.clientUrl,
)
// The older kubectl asks for protobuf too (typed clients, generators): on the embedded store only.
protobufSuite(
  'api: protobuf with kubectl on the embedded store (end to end)',
  SKEW_KUBECTL,
  async () => [],
  async () => {},
)

describe('api: --storage-media-type across a restart (end to end)', function () {
  this.timeout(120_000)
  let dir: string

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'api-storage-restart-'))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  async function withServer(ctx: Mocha.Context, args: string[], fn: (s: KubectlSession) => Promise<void>): Promise<void> {
    const s = await KubectlSession.open(ctx, 'api-storage-restart-', { waitFor: 'ready', dataDir: join(dir, 'data'), certDir: join(dir, 'certs'), args })
    try {
      await fn(s)
    } finally {
      await s.close()
    }
  }

  it('objects written as JSON read back after a restart with the protobuf default, and the other way round', async function () {
    await withServer(this, ['--storage-media-type=application/json'], async (s) => {
      await s.ok('create', 'namespace', 'keep')
      await s.ok('create', 'configmap', 'written-as-json', '-n', 'keep', '--from-literal=a=1')
      await s.ok('create', 'deployment', 'web', '--image=nginx', '-n', 'keep')
    })
    const dataDir = join(dir, 'data')
    const [asJson] = await storedValues({ dataDir }, ['/configmaps/keep/written-as-json'])
    assert.deepEqual((JSON.parse(asJson!.toString('utf8')) as Obj).data, { a: '1' })
    await withServer(this, [], async (s) => {
      assert.deepEqual(yamlOf(await s.ok('get', 'configmap', 'written-as-json', '-n', 'keep', '-o', 'yaml')).data, { a: '1' })
      assert.equal(yamlOf(await s.ok('get', 'deploy', 'web', '-n', 'keep', '-o', 'yaml')).spec.template.spec.containers[0].image, 'nginx')
      await s.ok('create', 'configmap', 'written-as-protobuf', '-n', 'keep', '--from-literal=b=2')
      await s.ok('scale', 'deployment', 'web', '-n', 'keep', '--replicas=3')
    })
    const [asProtobuf, scaled] = await storedValues({ dataDir }, ['/configmaps/keep/written-as-protobuf', '/deployments/keep/web'])
    assert.ok(isProtobufEnvelope(asProtobuf!))
    assert.ok(isProtobufEnvelope(scaled!), 'an object updated under the protobuf setting is rewritten as protobuf')
    await withServer(this, ['--storage-media-type=application/yaml'], async (s) => {
      await s.ok('create', 'configmap', 'written-as-yaml', '-n', 'keep', '--from-literal=c=3')
      assert.deepEqual(yamlOf(await s.ok('get', 'configmap', 'written-as-protobuf', '-n', 'keep', '-o', 'yaml')).data, { b: '2' })
      assert.equal(yamlOf(await s.ok('get', 'deploy', 'web', '-n', 'keep', '-o', 'yaml')).spec.replicas, 3)
      const names = await s.ok('get', 'configmaps', '-n', 'keep', '-o', 'name')
      assert.match(names, /configmap\/written-as-json/)
      assert.match(names, /configmap\/written-as-protobuf/)
    })
    const [asYaml] = await storedValues({ dataDir }, ['/configmaps/keep/written-as-yaml'])
    assert.deepEqual(yamlOf(asYaml!.toString('utf8')).data, { c: '3' })
  })
})
