/**
 * Every kubectl verb that needs only the API, run by the real kubectl 1.35 (the server's minor)
 * and 1.32 (version skew) against the built server on the embedded store: server-side apply
 * with a conflict, diff, explain (OpenAPI v3), events, debug's refusals, every `create`
 * generator, every `get -o` format, label/annotate/set, rollout history and undo on stored
 * revisions, auth whoami and can-i, certificate approve and deny, cordon and drain,
 * api-resources and api-versions, wait --for=jsonpath, kustomize and apply -k.
 *
 * What is asserted is what kubectl prints against kube-apiserver: kubectl's own text, and the
 * reference's answers where the server speaks (the Status messages of validation, mostly).
 * One server per kubectl version: the tests use distinct names and build on nothing but the
 * objects they create themselves.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { X509Certificate } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { KubectlSession, type Run } from '../../support/kubectl-session.js'
import { describeEachKubectl } from '../../support/kubectl-versions.js'
import { requireTool } from '../../support/tools.js'

describeEachKubectl('api: kubectl verbs that need only the API (end to end)', function (client) {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'api-kubectl-verbs-', { waitFor: 'ready', kubectl: client.tool })
  })
  after(async () => {
    await session?.close()
  })

  const kubectl = (...args: string[]): Promise<Run> => session.run(...args)
  const ok = (...args: string[]): Promise<string> => session.ok(...args)
  const file = (name: string, text: string) => session.file(name, text)
  const json = async (...args: string[]) => JSON.parse(await ok(...args, '-o', 'json')) as Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
  const jsonpath = (path: string, ...args: string[]) => ok('get', ...args, '-o', `jsonpath=${path}`)
  /** Runs kubectl expecting it to fail with `code`; returns what it printed. */
  const fails = async (code: number, ...args: string[]): Promise<Run> => {
    const r = await kubectl(...args)
    assert.equal(r.code, code, `kubectl ${args.join(' ')} exited ${r.code}, not ${code}:\n${r.stdout}\n${r.stderr}`)
    return r
  }
  const configMap = (name: string, data: Record<string, string>, extra = '') =>
    file(`${name}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${extra}data:\n${Object.entries(data).map(([k, v]) => `  ${k}: "${v}"\n`).join('')}`)

  it('apply --server-side: a conflict with another manager, then --force-conflicts', async () => {
    assert.equal(await ok('apply', '--server-side', '--field-manager=alice', '-f', configMap('ssa', { a: '1', b: '1' })), 'configmap/ssa serverside-applied\n')
    const conflict = await fails(1, 'apply', '--server-side', '--field-manager=bob', '-f', configMap('ssa', { a: '2' }))
    assert.match(conflict.stderr, /^error: Apply failed with 1 conflict: conflict with "alice": \.data\.a\n/)
    assert.match(conflict.stderr, /Please review the fields above--they currently have other managers/)
    assert.equal(await jsonpath('{.data.a}', 'cm', 'ssa'), '1')
    type Entry = { manager: string; operation: string; fieldsV1: unknown }
    const owners = async () =>
      Object.fromEntries(((await json('get', 'cm', 'ssa', '--show-managed-fields')).metadata.managedFields as Entry[]).map((e) => [`${e.manager}/${e.operation}`, e.fieldsV1]))
    // Forcing moves the conflicting field to bob; alice keeps what nobody took from her
    // (structured-merge-diff, merge/update.go: a conflict set is taken from its manager).
    assert.equal(await ok('apply', '--server-side', '--field-manager=bob', '--force-conflicts', '-f', configMap('ssa', { a: '2' })), 'configmap/ssa serverside-applied\n')
    assert.equal(await jsonpath('{.data.a}', 'cm', 'ssa'), '2')
    assert.deepEqual(await owners(), { 'alice/Apply': { 'f:data': { 'f:b': {} } }, 'bob/Apply': { 'f:data': { 'f:a': {} } } })
    // A manager left with no field is dropped from managedFields (same file: an empty set is deleted).
    assert.equal(await ok('apply', '--server-side', '--field-manager=bob', '--force-conflicts', '-f', configMap('ssa', { a: '2', b: '2' })), 'configmap/ssa serverside-applied\n')
    assert.deepEqual(await owners(), { 'bob/Apply': { 'f:data': { 'f:a': {}, 'f:b': {} } } })
  })

  it('diff: exit 1 with a unified diff while the object differs (or is missing), 0 and nothing once it matches', async () => {
    const missing = await fails(1, 'diff', '-f', configMap('diffed', { a: '1' }))
    assert.match(missing.stdout, /^diff -u -N /m)
    assert.match(missing.stdout, /^\+kind: ConfigMap$/m)
    assert.match(missing.stdout, /^\+  a: "1"$/m)
    assert.equal(missing.stderr, '')
    await ok('apply', '-f', configMap('diffed', { a: '1' }))
    const same = await kubectl('diff', '-f', configMap('diffed', { a: '1' }))
    assert.deepEqual([same.code, same.stdout, same.stderr], [0, '', ''])
    const changed = await fails(1, 'diff', '-f', configMap('diffed', { a: '2' }))
    assert.match(changed.stdout, /^-  a: "1"$/m)
    assert.match(changed.stdout, /^\+  a: "2"$/m)
    // diff asks the server for a dry run: nothing changed.
    assert.equal(await jsonpath('{.data.a}', 'cm', 'diffed'), '1')
    const serverSide = await fails(1, 'diff', '--server-side', '--force-conflicts', '-f', configMap('diffed', { a: '3' }))
    assert.match(serverSide.stdout, /^\+  a: "3"$/m)
  })

  it('explain: a field path from the OpenAPI v3 document, a core kind, a missing field', async () => {
    const replicas = await ok('explain', 'deployment.spec.replicas')
    assert.match(replicas, /^GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1\n\nFIELD: replicas <integer>\n/)
    assert.match(replicas, /DESCRIPTION:\n\s+Number of desired pods\./)
    const data = await ok('explain', 'configmap.data')
    assert.match(data, /^KIND:\s+ConfigMap\nVERSION:\s+v1\n\nFIELD: data <map\[string\]string>\n/)
    const containers = await ok('explain', 'pods.spec.containers.image')
    assert.match(containers, /^KIND:\s+Pod\nVERSION:\s+v1\n\nFIELD: image <string>\n/)
    const pod = await ok('explain', 'pods')
    assert.match(pod, /^FIELDS:\n\s+apiVersion\s+<string>\n/m)
    assert.match(pod, /^\s+spec\s+<PodSpec>\n/m)
    const nope = await fails(1, 'explain', 'deployment.spec.nonexistent')
    assert.match(nope.stderr, /^error: .*field "nonexistent" does not exist\n$/)
  })

  it('events: the table of a namespace, --for an object, --types, and none', async () => {
    await ok('create', 'namespace', 'ev')
    const none = await kubectl('events', '-n', 'ev')
    assert.equal(none.code, 0, none.stderr)
    assert.match(none.stdout + none.stderr, /No events found in ev namespace\.\n/)
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z')
    const event = (name: string, pod: string, type: string, reason: string, message: string) =>
      [
        'apiVersion: v1',
        'kind: Event',
        `metadata: {name: ${name}, namespace: ev}`,
        `involvedObject: {apiVersion: v1, kind: Pod, name: ${pod}, namespace: ev}`,
        `reason: ${reason}`,
        `type: ${type}`,
        `message: ${message}`,
        'source: {component: kubelet, host: node-1}',
        `firstTimestamp: "${now}"`,
        `lastTimestamp: "${now}"`,
        'count: 1',
      ].join('\n')
    await ok('create', '-f', file('events.yaml', [event('a.1', 'a', 'Normal', 'Pulled', 'pulled'), event('b.1', 'b', 'Warning', 'BackOff', 'backing off')].join('\n---\n') + '\n'))
    const all = await ok('events', '-n', 'ev')
    assert.match(all, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n/)
    assert.match(all, /^\S+\s+Normal\s+Pulled\s+Pod\/a\s+pulled$/m)
    assert.match(all, /^\S+\s+Warning\s+BackOff\s+Pod\/b\s+backing off$/m)
    const forA = await ok('events', '-n', 'ev', '--for', 'pod/a')
    assert.match(forA, /Pulled/)
    assert.doesNotMatch(forA, /BackOff/)
    const warnings = await ok('events', '-n', 'ev', '--types=Warning')
    assert.match(warnings, /BackOff/)
    assert.doesNotMatch(warnings, /Pulled/)
    assert.match(await ok('events', '-A'), /^NAMESPACE\s+LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n(?:.*\n)*ev\s+\S+\s+Warning\s+BackOff\s+Pod\/b\s+backing off$/m)
  })

  it('debug: what kubectl prints when no node or ephemeral debug container may run (--allow-privileged=false)', async () => {
    await ok('create', '-f', file('dbg-node.yaml', 'apiVersion: v1\nkind: Node\nmetadata:\n  name: dbg-node\n'))
    await ok('create', '-f', file('dbg.yaml', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: dbg\nspec:\n  containers:\n  - name: app\n    image: nginx\n'))
    // A node debug pod with the sysadmin profile is privileged: the server refuses it.
    const node = await fails(1, 'debug', 'node/dbg-node', '--image=busybox', '--profile=sysadmin')
    const pod = /^Creating debugging pod (node-debugger-dbg-node-[a-z0-9]{5}) with container debugger on node dbg-node\.\n$/.exec(node.stdout)
    assert.ok(pod, node.stdout)
    assert.equal(node.stderr, `The Pod "${pod[1]}" is invalid: spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy\n`)
    // So is a privileged ephemeral container, added through pods/ephemeralcontainers.
    const privileged = await fails(1, 'debug', 'dbg', '--image=busybox', '--profile=sysadmin', '-c', 'dbg-priv')
    assert.equal(privileged.stderr, 'The Pod "dbg" is invalid: spec.ephemeralContainers[0].securityContext.privileged: Forbidden: disallowed by cluster policy\n')
    // An ephemeral container named as a container of the pod, or targeting a missing one.
    const duplicate = await fails(1, 'debug', 'dbg', '--image=busybox', '-c', 'app', '--profile=general')
    assert.equal(duplicate.stderr, 'The Pod "dbg" is invalid: spec.ephemeralContainers[0].name: Duplicate value: "app"\n')
    const target = await fails(1, 'debug', 'dbg', '--image=busybox', '-c', 'dbg-t', '--target=missing', '--profile=general')
    assert.match(target.stdout, /^Targeting container "missing"\. If you don't see processes from this container it may be because the container runtime doesn't support this feature\.\n/)
    assert.equal(target.stderr, 'The Pod "dbg" is invalid: spec.ephemeralContainers[0].targetContainerName: Not found: "missing"\n')
    // A missing node, and a kind debug does not handle.
    const missing = await fails(1, 'debug', 'node/missing', '--image=busybox', '--profile=general')
    assert.equal(missing.stderr, 'Error from server (NotFound): nodes "missing" not found\n')
    await ok('create', 'deployment', 'dbg-deploy', '--image=nginx')
    const kind = await fails(1, 'debug', 'deployment/dbg-deploy', '--image=busybox', '--profile=general')
    assert.equal(kind.stderr, 'error: "apps/v1, Kind=Deployment" not supported by debug\n')
    assert.deepEqual((await json('get', 'pod', 'dbg')).spec.ephemeralContainers, undefined, 'nothing was added')
    // What may run is added: an ephemeral container the general profile makes (the profile is
    // named, since kubectl 1.32 defaults to the legacy one and warns about it).
    assert.equal(await ok('debug', 'dbg', '--image=busybox', '-c', 'dbg-ok', '--profile=general'), '')
    const added = (await json('get', 'pod', 'dbg')).spec.ephemeralContainers
    assert.equal(added.length, 1)
    assert.equal(added[0].name, 'dbg-ok')
    assert.equal(added[0].image, 'busybox')
    assert.equal(added[0].terminationMessagePolicy, 'File')
    const node2 = await ok('debug', 'node/dbg-node', '--image=busybox', '--profile=general')
    const name = /^Creating debugging pod (node-debugger-dbg-node-[a-z0-9]{5}) with container debugger on node dbg-node\.\n$/.exec(node2)?.[1]
    assert.ok(name, node2)
    const debugPod = await json('get', 'pod', name)
    assert.equal(debugPod.spec.nodeName, 'dbg-node')
    assert.equal(debugPod.spec.hostPID, true)
    // kubectl labels its node debugging pod since 1.34 (pkg/cmd/debug/debug.go, generateNodeDebugPod).
    if (client.minor >= 34) assert.equal(debugPod.metadata.labels['app.kubernetes.io/managed-by'], 'kubectl-debug')
    else assert.equal(debugPod.metadata.labels, undefined)
  })

  it('create: every generator', async () => {
    const created = async (expected: string, ...args: string[]) => assert.equal(await ok('create', ...args), `${expected} created\n`)
    await created('namespace/gen', 'namespace', 'gen')
    const n = ['-n', 'gen']
    await created('deployment.apps/web', 'deployment', 'web', '--image=nginx:1.25', '--replicas=2', '--port=80', ...n)
    await created('job.batch/once', 'job', 'once', '--image=busybox', ...n, '--', 'date')
    await created('cronjob.batch/tick', 'cronjob', 'tick', '--image=busybox', '--schedule=*/5 * * * *', ...n)
    await created('job.batch/from-tick', 'job', 'from-tick', '--from=cronjob/tick', ...n)
    await created('configmap/cfg', 'configmap', 'cfg', '--from-literal=a=1', `--from-file=b.txt=${file('b.txt', 'bee')}`, ...n)
    await created('secret/gen', 'secret', 'generic', 'gen', '--from-literal=password=s3cret', ...n)
    const admin = session.server.admin()
    await created('secret/tls', 'secret', 'tls', 'tls', `--cert=${file('tls.crt', admin.cert)}`, `--key=${file('tls.key', admin.key)}`, ...n)
    await created('secret/registry', 'secret', 'docker-registry', 'registry', '--docker-server=registry.example.com', '--docker-username=u', '--docker-password=p', ...n)
    await created('service/cip', 'service', 'clusterip', 'cip', '--tcp=80:8080', ...n)
    await created('service/headless', 'service', 'clusterip', 'headless', '--clusterip=None', ...n)
    await created('service/np', 'service', 'nodeport', 'np', '--tcp=80:8080', ...n)
    await created('service/lb', 'service', 'loadbalancer', 'lb', '--tcp=80:8080', ...n)
    await created('service/ext', 'service', 'externalname', 'ext', '--external-name=example.com', ...n)
    await created('serviceaccount/robot', 'serviceaccount', 'robot', ...n)
    await created('role.rbac.authorization.k8s.io/reader', 'role', 'reader', '--verb=get,list', '--resource=pods,deployments.apps', ...n)
    await created('rolebinding.rbac.authorization.k8s.io/reader', 'rolebinding', 'reader', '--role=reader', '--serviceaccount=gen:robot', '--user=alice', ...n)
    await created('clusterrole.rbac.authorization.k8s.io/gen-nodes', 'clusterrole', 'gen-nodes', '--verb=get', '--resource=nodes', '--non-resource-url=/logs/*')
    await created('clusterrolebinding.rbac.authorization.k8s.io/gen-nodes', 'clusterrolebinding', 'gen-nodes', '--clusterrole=gen-nodes', '--group=ops')
    await created('resourcequota/quota', 'quota', 'quota', '--hard=pods=10,requests.cpu=2', ...n)
    await created('priorityclass.scheduling.k8s.io/gen-high', 'priorityclass', 'gen-high', '--value=1000', '--description=high')
    await created('poddisruptionbudget.policy/web', 'poddisruptionbudget', 'web', '--selector=app=web', '--min-available=1', ...n)
    await created('ingress.networking.k8s.io/web', 'ingress', 'web', '--class=default', '--rule=example.com/app*=cip:80', ...n)

    // What the generators wrote, as the server stored and defaulted it.
    const deploy = await json('get', 'deployment', 'web', ...n)
    assert.equal(deploy.spec.replicas, 2)
    assert.deepEqual(deploy.spec.selector, { matchLabels: { app: 'web' } })
    assert.equal(deploy.spec.template.spec.containers[0].image, 'nginx:1.25')
    assert.equal(deploy.spec.strategy.type, 'RollingUpdate')
    assert.deepEqual((await json('get', 'job', 'once', ...n)).spec.template.spec.containers[0].command, ['date'])
    const fromTick = await json('get', 'job', 'from-tick', ...n)
    assert.equal(fromTick.metadata.annotations['cronjob.kubernetes.io/instantiate'], 'manual')
    assert.equal(fromTick.metadata.ownerReferences[0].kind, 'CronJob')
    assert.equal((await json('get', 'cronjob', 'tick', ...n)).spec.schedule, '*/5 * * * *')
    assert.deepEqual((await json('get', 'cm', 'cfg', ...n)).data, { a: '1', 'b.txt': 'bee' })
    assert.equal((await json('get', 'secret', 'gen', ...n)).data.password, Buffer.from('s3cret').toString('base64'))
    assert.equal((await json('get', 'secret', 'tls', ...n)).type, 'kubernetes.io/tls')
    const registry = await json('get', 'secret', 'registry', ...n)
    assert.equal(registry.type, 'kubernetes.io/dockerconfigjson')
    assert.equal(JSON.parse(Buffer.from(registry.data['.dockerconfigjson'], 'base64').toString()).auths['registry.example.com'].username, 'u')
    assert.match(await jsonpath('{.spec.clusterIP}', 'svc', 'cip', ...n), /^10\.\d+\.\d+\.\d+$/)
    assert.equal(await jsonpath('{.spec.clusterIP}', 'svc', 'headless', ...n), 'None')
    const np = await json('get', 'svc', 'np', ...n)
    assert.equal(np.spec.type, 'NodePort')
    assert.ok(np.spec.ports[0].nodePort >= 30000 && np.spec.ports[0].nodePort <= 32767, `nodePort ${np.spec.ports[0].nodePort}`)
    const lb = await json('get', 'svc', 'lb', ...n)
    assert.equal(lb.spec.type, 'LoadBalancer')
    assert.ok(lb.spec.ports[0].nodePort >= 30000, 'a load balancer gets a node port too')
    assert.deepEqual([await jsonpath('{.spec.type} {.spec.externalName}', 'svc', 'ext', ...n)], ['ExternalName example.com'])
    assert.deepEqual((await json('get', 'role', 'reader', ...n)).rules, [
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list'] },
    ])
    assert.deepEqual((await json('get', 'rolebinding', 'reader', ...n)).subjects, [
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' },
      { kind: 'ServiceAccount', name: 'robot', namespace: 'gen' },
    ])
    assert.deepEqual((await json('get', 'clusterrole', 'gen-nodes')).rules, [
      { apiGroups: [''], resources: ['nodes'], verbs: ['get'] },
      { nonResourceURLs: ['/logs/*'], verbs: ['get'] },
    ])
    assert.deepEqual((await json('get', 'resourcequota', 'quota', ...n)).spec.hard, { pods: '10', 'requests.cpu': '2' })
    assert.equal((await json('get', 'priorityclass', 'gen-high')).value, 1000)
    assert.equal((await json('get', 'pdb', 'web', ...n)).spec.minAvailable, 1)
    assert.deepEqual((await json('get', 'ingress', 'web', ...n)).spec.rules, [
      { host: 'example.com', http: { paths: [{ backend: { service: { name: 'cip', port: { number: 80 } } }, path: '/app', pathType: 'Prefix' }] } },
    ])

    // create token: a TokenRequest for the service account, a signed JWT naming it.
    const token = (await ok('create', 'token', 'robot', ...n, '--duration=10m')).trim()
    const parts = token.split('.')
    assert.equal(parts.length, 3, token)
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString())
    assert.equal(claims.sub, 'system:serviceaccount:gen:robot')
    assert.equal(claims.exp - claims.iat, 600)
    const missing = await fails(1, 'create', 'token', 'nobody', ...n)
    assert.equal(missing.stderr, 'error: failed to create token: serviceaccounts "nobody" not found\n')

    // A generator's dry runs: the client's prints the object, the server's stores nothing.
    assert.equal(await ok('create', 'configmap', 'dry', '--from-literal=a=1', '--dry-run=server', ...n), 'configmap/dry created (server dry run)\n')
    assert.match(await ok('create', 'configmap', 'dry', '--from-literal=a=1', '--dry-run=client', '-o', 'yaml', ...n), /^apiVersion: v1\ndata:\n  a: "1"\nkind: ConfigMap\n/)
    assert.equal((await kubectl('get', 'cm', 'dry', ...n)).code, 1)
    const twice = await fails(1, 'create', 'namespace', 'gen')
    assert.equal(twice.stderr, 'Error from server (AlreadyExists): namespaces "gen" already exists\n')
  })

  it('get -o: json, yaml, name, wide, custom-columns, jsonpath, go-template, jsonpath-as-json', async () => {
    await ok('create', '-f', configMap('fmt', { a: '1', b: '2' }, '  labels: {shape: round}\n'))
    await ok('create', 'deployment', 'fmt', '--image=nginx:1.25')
    const asJson = await ok('get', 'cm', 'fmt', '-o', 'json')
    assert.match(asJson, /^\{\n    "apiVersion": "v1",\n    "data": \{\n        "a": "1",\n        "b": "2"\n    \},\n    "kind": "ConfigMap",\n/)
    assert.equal(JSON.parse(asJson).metadata.labels.shape, 'round')
    assert.match(await ok('get', 'cm', 'fmt', '-o', 'yaml'), /^apiVersion: v1\ndata:\n  a: "1"\n  b: "2"\nkind: ConfigMap\nmetadata:\n  creationTimestamp: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"\n  labels:\n    shape: round\n  name: fmt\n  namespace: default\n  resourceVersion: "\d+"\n  uid: [0-9a-f-]{36}\n$/)
    const list = JSON.parse(await ok('get', 'cm', '-l', 'shape=round', '-o', 'json'))
    assert.equal(list.kind, 'List')
    assert.deepEqual(list.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['fmt'])
    assert.equal(await ok('get', 'cm', '-l', 'shape=round', '-o', 'name'), 'configmap/fmt\n')
    assert.equal(await ok('get', 'deployment', 'fmt', '-o', 'name'), 'deployment.apps/fmt\n')
    assert.match(await ok('get', 'cm', 'fmt', '-o', 'wide'), /^NAME\s+DATA\s+AGE\nfmt\s+2\s+[0-9][0-9ms]*\n$/)
    assert.match(
      await ok('get', 'deployment', 'fmt', '-o', 'wide'),
      /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\nfmt\s+0\/1\s+0\s+0\s+[0-9][0-9ms]*\s+nginx\s+nginx:1\.25\s+app=fmt\n$/,
    )
    assert.match(await ok('get', 'cm', 'fmt', '--show-labels'), /^NAME\s+DATA\s+AGE\s+LABELS\nfmt\s+2\s+\S+\s+shape=round\n$/)
    assert.match(await ok('get', 'cm', 'fmt', '-L', 'shape'), /^NAME\s+DATA\s+AGE\s+SHAPE\nfmt\s+2\s+\S+\s+round\n$/)
    assert.match(await ok('get', 'cm', 'fmt', '-o', 'custom-columns=NAME:.metadata.name,A:.data.a,MISSING:.data.z'), /^NAME\s+A\s+MISSING\nfmt\s+1\s+<none>\n$/)
    const columns = file('columns.txt', 'NAME          SHAPE\nmetadata.name metadata.labels.shape\n')
    assert.match(await ok('get', 'cm', 'fmt', '-o', `custom-columns-file=${columns}`), /^NAME\s+SHAPE\nfmt\s+round\n$/)
    assert.equal(await ok('get', 'cm', 'fmt', '-o', 'jsonpath={.metadata.name}={.data.a}'), 'fmt=1')
    assert.equal(await ok('get', 'cm', '-l', 'shape=round', '-o', 'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}'), 'fmt\n')
    assert.equal(await ok('get', 'cm', 'fmt', '-o', 'go-template={{.metadata.name}}:{{range $k, $v := .data}}{{$k}}{{end}}'), 'fmt:ab')
    assert.equal(await ok('get', 'cm', 'fmt', '-o', `go-template-file=${file('tmpl', '{{.data.b}}')}`), '2')
    assert.deepEqual(JSON.parse(await ok('get', 'cm', 'fmt', '-o', 'jsonpath-as-json={.data}')), [{ a: '1', b: '2' }])
    assert.deepEqual(JSON.parse(await ok('get', 'cm', 'fmt', '-o', 'jsonpath-as-json={.data.a}')), ['1'])
    // A missing key prints nothing unless --allow-missing-template-keys=false.
    assert.equal(await ok('get', 'cm', 'fmt', '-o', 'jsonpath={.data.z}'), '')
    const strict = await fails(1, 'get', 'cm', 'fmt', '-o', 'jsonpath={.data.z}', '--allow-missing-template-keys=false')
    assert.match(strict.stderr, /^error: error executing jsonpath "\{\.data\.z\}": Error executing template: z is not found\./)
  })

  it('label, annotate and set image|env|resources|selector|serviceaccount|subject', async () => {
    await ok('create', '-f', configMap('tagged', { a: '1' }))
    assert.equal(await ok('label', 'cm', 'tagged', 'tier=web'), 'configmap/tagged labeled\n')
    const twice = await fails(1, 'label', 'cm', 'tagged', 'tier=db')
    assert.equal(twice.stderr, "error: 'tier' already has a value (web), and --overwrite is false\n")
    assert.equal(await ok('label', 'cm', 'tagged', 'tier=db', '--overwrite'), 'configmap/tagged labeled\n')
    assert.equal(await ok('label', 'cm', 'tagged', '--list'), 'tier=db\n')
    assert.equal(await ok('label', 'cm', 'tagged', 'tier-'), 'configmap/tagged unlabeled\n')
    assert.equal(await ok('annotate', 'cm', 'tagged', 'note=hello'), 'configmap/tagged annotated\n')
    assert.equal(await ok('annotate', 'cm', 'tagged', 'note=bye', '--overwrite'), 'configmap/tagged annotated\n')
    assert.deepEqual((await json('get', 'cm', 'tagged')).metadata.annotations, { note: 'bye' })
    assert.equal(await ok('annotate', 'cm', 'tagged', 'note-'), 'configmap/tagged annotated\n')
    assert.equal((await json('get', 'cm', 'tagged')).metadata.annotations, undefined)
    assert.equal(await ok('label', 'cm', 'tagged', 'x=1', '--dry-run=server'), 'configmap/tagged labeled (server dry run)\n')
    assert.equal((await json('get', 'cm', 'tagged')).metadata.labels, undefined)

    await ok('create', 'deployment', 'setme', '--image=nginx:1.25')
    await ok('create', 'serviceaccount', 'setme')
    assert.equal(await ok('set', 'image', 'deployment/setme', 'nginx=nginx:1.26'), 'deployment.apps/setme image updated\n')
    assert.equal(await ok('set', 'env', 'deployment/setme', 'MODE=fast', 'LEVEL=3'), 'deployment.apps/setme env updated\n')
    assert.equal(await ok('set', 'resources', 'deployment/setme', '--limits=cpu=200m,memory=64Mi', '--requests=cpu=100m'), 'deployment.apps/setme resource requirements updated\n')
    assert.equal(await ok('set', 'serviceaccount', 'deployment/setme', 'setme'), 'deployment.apps/setme serviceaccount updated\n')
    const deploy = await json('get', 'deployment', 'setme')
    const container = deploy.spec.template.spec.containers[0]
    assert.equal(container.image, 'nginx:1.26')
    assert.deepEqual(container.env, [
      { name: 'MODE', value: 'fast' },
      { name: 'LEVEL', value: '3' },
    ])
    assert.deepEqual(container.resources, { limits: { cpu: '200m', memory: '64Mi' }, requests: { cpu: '100m' } })
    assert.equal(deploy.spec.template.spec.serviceAccountName, 'setme')
    assert.equal(deploy.metadata.generation, 5)
    assert.equal(await ok('set', 'env', 'deployment/setme', '--list'), '# Deployment setme, container nginx\nMODE=fast\nLEVEL=3\n')
    assert.equal(await ok('set', 'env', 'deployment/setme', 'MODE-'), 'deployment.apps/setme env updated\n')
    assert.equal((await json('get', 'deployment', 'setme')).spec.template.spec.containers[0].env.length, 1)

    await ok('create', 'service', 'clusterip', 'setme', '--tcp=80:8080')
    assert.equal(await ok('set', 'selector', 'service', 'setme', 'app=other'), 'service/setme selector updated\n')
    assert.deepEqual((await json('get', 'svc', 'setme')).spec.selector, { app: 'other' })
    await ok('create', 'rolebinding', 'setme', '--clusterrole=view', '--user=alice')
    assert.equal(await ok('set', 'subject', 'rolebinding', 'setme', '--user=bob', '--group=devs', '--serviceaccount=default:setme'), 'rolebinding.rbac.authorization.k8s.io/setme subjects updated\n')
    assert.deepEqual(
      (await json('get', 'rolebinding', 'setme')).subjects.map((s: { kind: string; name: string }) => `${s.kind}:${s.name}`),
      ['User:alice', 'User:bob', 'Group:devs', 'ServiceAccount:setme'],
    )
  })

  it('rollout history and undo on stored revisions; restart, pause and resume', async () => {
    // No deployment controller runs here, so the test writes the ReplicaSets the controller would
    // have made (owned by the Deployment, with its revision annotation and pod-template-hash):
    // history and undo only read them and patch the Deployment.
    await ok('create', 'deployment', 'roll', '--image=nginx:1.25')
    const uid = await jsonpath('{.metadata.uid}', 'deployment', 'roll')
    const replicaSet = (revision: number, image: string, cause?: string) =>
      [
        'apiVersion: apps/v1',
        'kind: ReplicaSet',
        'metadata:',
        `  name: roll-h${revision}`,
        `  labels: {app: roll, pod-template-hash: h${revision}}`,
        `  annotations: {deployment.kubernetes.io/revision: "${revision}"${cause ? `, kubernetes.io/change-cause: "${cause}"` : ''}}`,
        `  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: roll, uid: ${uid}, controller: true, blockOwnerDeletion: true}]`,
        'spec:',
        '  replicas: 0',
        `  selector: {matchLabels: {app: roll, pod-template-hash: h${revision}}}`,
        '  template:',
        `    metadata: {labels: {app: roll, pod-template-hash: h${revision}}}`,
        `    spec: {containers: [{name: nginx, image: "${image}"}]}`,
      ].join('\n')
    await ok('create', '-f', file('rs.yaml', `${replicaSet(1, 'nginx:1.24')}\n---\n${replicaSet(2, 'nginx:1.25', 'set image to 1.25')}\n`))
    await ok('annotate', 'deployment', 'roll', 'deployment.kubernetes.io/revision=2')

    assert.match(await ok('rollout', 'history', 'deployment/roll'), /^deployment\.apps\/roll \nREVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+set image to 1\.25\n\n$/)
    const one = await ok('rollout', 'history', 'deployment/roll', '--revision=1')
    assert.match(one, /^deployment\.apps\/roll with revision #1\nPod Template:\n/)
    assert.match(one, /Image:\s+nginx:1\.24\n/)
    const unknown = await fails(1, 'rollout', 'history', 'deployment/roll', '--revision=9')
    assert.equal(unknown.stderr, 'error: unable to find the specified revision\n')

    // The current template is revision 2's once both are defaulted alike: nothing to do.
    assert.equal(await ok('rollout', 'undo', 'deployment/roll', '--to-revision=2'), 'deployment.apps/roll skipped rollback (current template already matches revision 2)\n')
    assert.equal(await ok('rollout', 'undo', 'deployment/roll', '--to-revision=1', '--dry-run=server'), 'deployment.apps/roll rolled back (server dry run)\n')
    assert.equal(await jsonpath('{.spec.template.spec.containers[0].image}', 'deployment', 'roll'), 'nginx:1.25')
    assert.equal(await ok('rollout', 'undo', 'deployment/roll', '--to-revision=1'), 'deployment.apps/roll rolled back\n')
    const rolled = await json('get', 'deployment', 'roll')
    assert.equal(rolled.spec.template.spec.containers[0].image, 'nginx:1.24')
    assert.deepEqual(rolled.spec.template.metadata.labels, { app: 'roll' }, 'the pod-template-hash label is not copied back')
    const gone = await fails(1, 'rollout', 'undo', 'deployment/roll', '--to-revision=7')
    assert.equal(gone.stderr, 'error: unable to find specified revision 7 in history\n')

    assert.equal(await ok('rollout', 'restart', 'deployment/roll'), 'deployment.apps/roll restarted\n')
    assert.match((await json('get', 'deployment', 'roll')).spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt'], /^\d{4}-\d\d-\d\dT/)
    assert.equal(await ok('rollout', 'pause', 'deployment/roll'), 'deployment.apps/roll paused\n')
    const paused = await fails(1, 'rollout', 'undo', 'deployment/roll')
    assert.equal(paused.stderr, "error: you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again\n")
    assert.equal(await ok('rollout', 'resume', 'deployment/roll'), 'deployment.apps/roll resumed\n')
    assert.equal((await json('get', 'deployment', 'roll')).spec.paused, undefined)
  })

  it('auth whoami and can-i, as the administrator and impersonating a user a Role binds', async () => {
    const review = JSON.parse(await ok('auth', 'whoami', '-o', 'json'))
    assert.equal(review.kind, 'SelfSubjectReview')
    assert.equal(review.apiVersion, 'authentication.k8s.io/v1')
    const user = review.status.userInfo
    assert.ok(user.groups.includes('system:masters') && user.groups.includes('system:authenticated'), JSON.stringify(user))
    // An x509 client's credential is named by its certificate's SHA-256 (apiserver's
    // pkg/authentication/request/x509/x509.go), which kubectl prints as an Extra row.
    const credentialId = `X509SHA256=${new X509Certificate(session.server.admin().cert).fingerprint256.replaceAll(':', '').toLowerCase()}`
    assert.deepEqual(user.extra, { 'authentication.kubernetes.io/credential-id': [credentialId] })
    assert.match(
      await ok('auth', 'whoami'),
      new RegExp(`^ATTRIBUTE\\s+VALUE\\nUsername\\s+${user.username}\\nGroups\\s+\\[${user.groups.join(' ')}\\]\\nExtra: authentication\\.kubernetes\\.io/credential-id\\s+\\[${credentialId}\\]\\n$`),
    )
    assert.match(await ok('auth', 'whoami', '--as=carol', '--as-group=qa'), /^ATTRIBUTE\s+VALUE\nUsername\s+carol\nGroups\s+\[qa system:authenticated\]\n$/)

    assert.equal(await ok('auth', 'can-i', 'create', 'pods'), 'yes\n')
    assert.equal(await ok('auth', 'can-i', '*', '*'), 'yes\n')
    await ok('create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods')
    await ok('create', 'rolebinding', 'carol-reads', '--role=pod-reader', '--user=carol')
    assert.equal(await ok('auth', 'can-i', 'list', 'pods', '--as=carol'), 'yes\n')
    const no = await fails(1, 'auth', 'can-i', 'delete', 'pods', '--as=carol')
    assert.equal(no.stdout, 'no\n')
    const elsewhere = await fails(1, 'auth', 'can-i', 'list', 'pods', '--as=carol', '-n', 'kube-system')
    assert.equal(elsewhere.stdout, 'no\n')
    const quiet = await fails(1, 'auth', 'can-i', 'delete', 'pods', '--as=carol', '--quiet')
    assert.equal(quiet.stdout, '')
    assert.equal(await ok('auth', 'can-i', 'get', '/healthz', '--as=carol'), 'yes\n', 'system:public-info-viewer lets every user read /healthz')
    const list = await ok('auth', 'can-i', '--list', '--as=carol')
    assert.match(list, /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs\n/)
    assert.match(list, /^pods\s+\[\]\s+\[\]\s+\[get list\]$/m)
    assert.match(list, /^selfsubjectreviews\.authentication\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m)
    assert.match(list, /^\s+\[\/healthz\]\s+\[\]\s+\[get\]$/m)
    const typo = await kubectl('auth', 'can-i', 'get', 'nosuchthings')
    // kubectl's message ends in a newline and its warning printer adds one (pkg/cmd/auth/cani.go).
    assert.equal(typo.stderr, "Warning: the server doesn't have a resource type 'nosuchthings'\n\n")
  })

  it('certificate approve and deny', async function () {
    const openssl = requireTool(this, 'openssl')
    const csr = (name: string) => {
      const keyFile = join(session.tmp, `${name}.key`)
      const run = spawnSync(openssl, ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', `/CN=${name}`, '-keyout', keyFile], { encoding: 'utf8' })
      assert.equal(run.status, 0, run.stderr)
      const request = Buffer.from(run.stdout).toString('base64')
      return file(`${name}-csr.yaml`, `apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata:\n  name: ${name}\nspec:\n  request: ${request}\n  signerName: kubernetes.io/kube-apiserver-client\n  usages: [client auth]\n`)
    }
    await ok('create', '-f', csr('csr-alice'))
    await ok('create', '-f', csr('csr-bob'))
    assert.match(await ok('get', 'csr', 'csr-alice'), /^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION\ncsr-alice\s+\S+\s+kubernetes\.io\/kube-apiserver-client\s+\S+\s+<none>\s+Pending\n$/)
    assert.equal(await ok('certificate', 'approve', 'csr-alice'), 'certificatesigningrequest.certificates.k8s.io/csr-alice approved\n')
    assert.equal(await ok('certificate', 'deny', 'csr-bob'), 'certificatesigningrequest.certificates.k8s.io/csr-bob denied\n')
    const approved = (await json('get', 'csr', 'csr-alice')).status.conditions
    assert.deepEqual(
      approved.map((c: { type: string; status: string; reason: string; message: string }) => [c.type, c.status, c.reason, c.message]),
      [['Approved', 'True', 'KubectlApprove', 'This CSR was approved by kubectl certificate approve.']],
    )
    const denied = (await json('get', 'csr', 'csr-bob')).status.conditions
    assert.deepEqual(
      denied.map((c: { type: string; reason: string; message: string }) => [c.type, c.reason, c.message]),
      [['Denied', 'KubectlDeny', 'This CSR was denied by kubectl certificate deny.']],
    )
    // Approving again changes nothing; kubectl refuses to approve a denied request.
    assert.equal(await ok('certificate', 'approve', 'csr-alice'), 'certificatesigningrequest.certificates.k8s.io/csr-alice approved\n')
    const both = await fails(1, 'certificate', 'approve', 'csr-bob', '--force')
    assert.equal(both.stderr, 'error: certificate signing request "csr-bob" is already Denied\n')
    // The approval subresource alone carries the condition: a plain update cannot approve.
    const plain = await json('get', 'csr', 'csr-bob')
    plain.status.conditions = [{ type: 'Approved', status: 'True', reason: 'Sneaky', message: 'x' }]
    await ok('replace', '-f', file('csr-bob-replaced.json', JSON.stringify(plain)))
    assert.deepEqual(
      (await json('get', 'csr', 'csr-bob')).status.conditions.map((c: { type: string }) => c.type),
      ['Denied'],
    )
  })

  it('cordon, uncordon and drain a node with no pods', async () => {
    await ok('create', '-f', file('drain-node.yaml', 'apiVersion: v1\nkind: Node\nmetadata:\n  name: drain-me\n'))
    assert.equal(await ok('cordon', 'drain-me'), 'node/drain-me cordoned\n')
    assert.equal(await jsonpath('{.spec.unschedulable}', 'node', 'drain-me'), 'true')
    assert.match(await ok('get', 'node', 'drain-me'), /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\ndrain-me\s+Unknown,SchedulingDisabled\s+<none>\s+\S+\s+\n$/)
    assert.equal(await ok('cordon', 'drain-me'), 'node/drain-me already cordoned\n')
    assert.equal(await ok('uncordon', 'drain-me'), 'node/drain-me uncordoned\n')
    assert.equal(await jsonpath('{.spec.unschedulable}', 'node', 'drain-me'), '')
    const drain = await kubectl('drain', 'drain-me', '--timeout=20s')
    assert.equal(drain.code, 0, drain.stderr)
    assert.equal(drain.stdout, 'node/drain-me cordoned\nnode/drain-me drained\n')
    assert.equal(await jsonpath('{.spec.unschedulable}', 'node', 'drain-me'), 'true')
    assert.equal(await ok('uncordon', 'drain-me', '--dry-run=server'), 'node/drain-me uncordoned (server dry run)\n')
    assert.equal(await jsonpath('{.spec.unschedulable}', 'node', 'drain-me'), 'true')
    const missing = await fails(1, 'drain', 'no-such-node')
    assert.equal(missing.stderr, 'Error from server (NotFound): nodes "no-such-node" not found\n')
  })

  it('api-resources and api-versions', async () => {
    const apps = await ok('api-resources', '--api-group=apps')
    assert.match(apps, /^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND\n/)
    assert.match(apps, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m)
    assert.match(apps, /^replicasets\s+rs\s+apps\/v1\s+true\s+ReplicaSet$/m)
    assert.doesNotMatch(apps, /ConfigMap/)
    const clusterScoped = (await ok('api-resources', '--namespaced=false', '-o', 'name')).split('\n')
    for (const name of ['namespaces', 'nodes', 'clusterroles.rbac.authorization.k8s.io', 'customresourcedefinitions.apiextensions.k8s.io']) assert.ok(clusterScoped.includes(name), name)
    assert.ok(!clusterScoped.includes('pods'))
    // -o wide adds VERBS and CATEGORIES, each joined with commas (pkg/cmd/apiresources/print_flags.go).
    const wide = await ok('api-resources', '--verbs=list', '--api-group=rbac.authorization.k8s.io', '-o', 'wide')
    assert.match(wide, /^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND\s+VERBS\s+CATEGORIES\n/)
    assert.match(wide, /^roles\s+rbac\.authorization\.k8s\.io\/v1\s+true\s+Role\s+create,delete,deletecollection,get,list,patch,update,watch\s*$/m)
    assert.match(await ok('api-resources', '--api-group=', '-o', 'wide'), /^pods\s+po\s+v1\s+true\s+Pod\s+create,delete,deletecollection,get,list,patch,update,watch\s+all\s*$/m)
    assert.match(await ok('api-resources', '--categories=all', '-o', 'name'), /^pods\n/m)
    const versions = (await ok('api-versions')).trimEnd().split('\n')
    for (const v of ['v1', 'apps/v1', 'batch/v1', 'rbac.authorization.k8s.io/v1', 'apiextensions.k8s.io/v1', 'authentication.k8s.io/v1']) assert.ok(versions.includes(v), v)
    assert.deepEqual(versions, [...versions].sort(), 'api-versions prints them sorted')
  })

  it('wait --for=jsonpath: met at once, met after a change, a timeout, and --for=delete', async () => {
    await ok('create', '-f', configMap('waited', { state: 'starting' }))
    assert.equal(await ok('wait', '--for=jsonpath={.data.state}=starting', 'configmap/waited', '--timeout=10s'), 'configmap/waited condition met\n')
    const waiting = kubectl('wait', '--for=jsonpath={.data.state}=ready', 'configmap/waited', '--timeout=30s')
    await new Promise((r) => setTimeout(r, 1000))
    await ok('patch', 'configmap', 'waited', '--type=merge', '-p', '{"data":{"state":"ready"}}')
    const met = await waiting
    assert.deepEqual([met.code, met.stdout], [0, 'configmap/waited condition met\n'], met.stderr)
    const timeout = await fails(1, 'wait', '--for=jsonpath={.data.state}=done', 'configmap/waited', '--timeout=1s')
    assert.equal(timeout.stderr, 'error: timed out waiting for the condition on configmaps/waited\n')
    await ok('create', 'deployment', 'waited', '--image=nginx', '--replicas=3')
    assert.equal(await ok('wait', '--for=jsonpath={.spec.replicas}=3', 'deployment/waited', '--timeout=10s'), 'deployment.apps/waited condition met\n')
    const deleting = kubectl('wait', '--for=delete', 'configmap/waited', '--timeout=30s')
    await new Promise((r) => setTimeout(r, 1000))
    await ok('delete', 'configmap', 'waited')
    const deleted = await deleting
    assert.deepEqual([deleted.code, deleted.stdout], [0, 'configmap/waited condition met\n'], deleted.stderr)
  })

  it('kustomize and apply -k: a kustomization directory the test writes', async () => {
    const dir = join(session.tmp, 'kz')
    mkdirSync(dir, { recursive: true })
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      ['namespace: kz', 'namePrefix: kz-', 'labels:', '- pairs: {team: blue}', 'resources: [deploy.yaml]', 'configMapGenerator:', '- name: cfg', '  literals: [a=1]', ''].join('\n'),
    )
    await ok('create', 'namespace', 'kz')
    writeFileSync(
      join(dir, 'deploy.yaml'),
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: web\n        image: nginx\n        envFrom: [{configMapRef: {name: cfg}}]\n',
    )
    const built = await ok('kustomize', dir)
    const cfg = /^  name: (kz-cfg-[a-z0-9]{10})$/m.exec(built)?.[1]
    assert.ok(cfg, built)
    assert.match(built, /^kind: ConfigMap\nmetadata:\n  labels:\n    team: blue\n  name: kz-cfg-[a-z0-9]{10}\n  namespace: kz\n/m)
    assert.match(built, /configMapRef:\n {12}name: kz-cfg-/)
    const applied = await ok('apply', '-k', dir)
    assert.equal(applied, `configmap/${cfg} created\ndeployment.apps/kz-web created\n`)
    const deploy = await json('get', 'deployment', 'kz-web', '-n', 'kz')
    assert.equal(deploy.metadata.labels.team, 'blue')
    assert.equal(deploy.spec.template.spec.containers[0].envFrom[0].configMapRef.name, cfg)
    assert.equal(await ok('apply', '-k', dir), `configmap/${cfg} unchanged\ndeployment.apps/kz-web unchanged\n`)
    const same = await kubectl('diff', '-k', dir)
    assert.deepEqual([same.code, same.stdout], [0, ''], same.stderr)
    assert.match(await ok('get', '-k', dir, '-o', 'name'), /^configmap\/kz-cfg-[a-z0-9]{10}\ndeployment\.apps\/kz-web\n$/)
    assert.equal(await ok('apply', '-k', dir, '--server-side'), `configmap/${cfg} serverside-applied\ndeployment.apps/kz-web serverside-applied\n`)
  })
})
