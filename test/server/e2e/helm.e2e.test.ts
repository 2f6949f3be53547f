/**
 * Helm 4 (test/support/tools.json) against the built server, with kubectl 1.35 beside it for
 * what Helm leaves to kubectl: `helm create` a chart, then install, status, get manifest,
 * upgrade, history, rollback, list and uninstall; a server dry run; `helm template` piped to
 * `kubectl apply --server-side`; a chart with `crds/`, a chart with hooks, a chart whose
 * values.schema.json refuses the values; the release Secrets as Helm stores them; and
 * `helm install --wait` failing with Helm's own readiness message, since no deployment
 * controller runs here.
 *
 * Helm gets its own HOME and XDG directories in the session's temporary directory and the
 * kubeconfig by --kubeconfig; nothing touches the network (no repositories). One server for
 * the file; each test works in its own namespace.
 */
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { KubectlSession, type Run } from '../../support/kubectl-session.js'
import { requireTool } from '../../support/tools.js'

type Obj = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

describe('server: Helm 4 against the built server (end to end)', function () {
  this.timeout(120_000)
  let session: KubectlSession
  let helmBin: string
  let charts: string
  let helmEnv: NodeJS.ProcessEnv
  let kubeconfig: string

  before(async function () {
    helmBin = requireTool(this, 'helm')
    session = await KubectlSession.open(this, 'helm-e2e-', { waitFor: 'ready' })
    // Helm warns about a kubeconfig others may read: keep it private, as a user's would be.
    kubeconfig = join(session.tmp, 'kubeconfig')
    chmodSync(kubeconfig, 0o600)
    const home = join(session.tmp, 'helm-home')
    charts = join(session.tmp, 'charts')
    mkdirSync(charts, { recursive: true })
    helmEnv = {
      ...process.env,
      HOME: home,
      HELM_CACHE_HOME: join(home, 'cache'),
      HELM_CONFIG_HOME: join(home, 'config'),
      HELM_DATA_HOME: join(home, 'data'),
      NO_COLOR: '1',
      KUBECONFIG: '',
    }
    delete helmEnv['HELM_DEBUG']
    delete helmEnv['HELM_NAMESPACE']
    delete helmEnv['HELM_DRIVER']
  })
  after(async () => {
    await session?.close()
  })

  const helm = (...args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(helmBin, [...args, `--kubeconfig=${kubeconfig}`], { cwd: charts, timeout: 90_000, env: helmEnv }, (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
      })
    })
  const helmOk = async (...args: string[]): Promise<string> => {
    const r = await helm(...args)
    assert.equal(r.code, 0, `helm ${args.join(' ')} failed: ${r.stderr}\nserver:\n${session.server.logs.slice(-2000)}`)
    return r.stdout
  }
  const ok = (...args: string[]): Promise<string> => session.ok(...args)
  const json = async (...args: string[]): Promise<Obj> => JSON.parse(await ok(...args, '-o', 'json'))
  const missing = async (...args: string[]) => {
    const r = await session.run('get', ...args)
    assert.equal(r.code, 1, `${args.join(' ')} still exists: ${r.stdout}`)
    assert.match(r.stderr, /^Error from server \(NotFound\): /)
  }
  /** Writes a chart's files (paths relative to the chart) under the charts directory. */
  const chart = (name: string, files: Record<string, string>): string => {
    const dir = join(charts, name)
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true })
      writeFileSync(join(dir, path), text)
    }
    return dir
  }
  const chartYaml = (name: string) => `apiVersion: v2\nname: ${name}\nversion: 0.1.0\nappVersion: "1.0"\n`
  /** The release Secrets of a namespace, oldest first, and each one's release decoded as Helm does. */
  const releaseSecrets = async (namespace: string): Promise<{ secret: Obj; release: Obj }[]> => {
    const list = await json('get', 'secrets', '-n', namespace, '-l', 'owner=helm')
    return list.items
      .map((secret: Obj) => {
        // The Secret's data is base64 (the API's encoding) of base64 (Helm's) of a gzipped JSON release.
        const helmEncoded = Buffer.from(secret.data.release, 'base64').toString()
        const release = JSON.parse(gunzipSync(Buffer.from(helmEncoded, 'base64')).toString())
        return { secret, release }
      })
      .sort((a: { release: Obj }, b: { release: Obj }) => a.release.version - b.release.version)
  }

  let web: string

  it('helm create, then install: the chart is rendered and applied, the release stored', async () => {
    assert.equal(await helmOk('create', 'web'), 'Creating web\n')
    web = join(charts, 'web')
    const out = await helmOk('install', 'web', web, '-n', 'apps', '--create-namespace')
    assert.match(out, /^NAME: web\nLAST DEPLOYED: .+\nNAMESPACE: apps\nSTATUS: deployed\nREVISION: 1\n/)
    assert.match(out, /^NOTES:\n/m)
    const deploy = await json('get', 'deployment', 'web', '-n', 'apps', '--show-managed-fields')
    assert.equal(deploy.spec.replicas, 1)
    assert.equal(deploy.metadata.labels['app.kubernetes.io/managed-by'], 'Helm')
    assert.equal(deploy.metadata.annotations['meta.helm.sh/release-name'], 'web')
    assert.equal(deploy.metadata.annotations['meta.helm.sh/release-namespace'], 'apps')
    // Helm 4 applies server-side, as the field manager `helm`.
    assert.deepEqual(
      deploy.metadata.managedFields.map((e: Obj) => [e.manager, e.operation]),
      [['helm', 'Apply']],
    )
    assert.equal(await ok('get', 'service', 'web', '-n', 'apps', '-o', 'jsonpath={.spec.ports[0].port}'), '80')
    await ok('get', 'serviceaccount', 'web', '-n', 'apps')
    // The chart's test pod is a `helm.sh/hook: test`, not installed.
    await missing('pod', 'web-test-connection', '-n', 'apps')
  })

  it('status, get manifest, get values, list', async () => {
    assert.match(await helmOk('status', 'web', '-n', 'apps'), /^NAME: web\nLAST DEPLOYED: .+\nNAMESPACE: apps\nSTATUS: deployed\nREVISION: 1\n/)
    const manifest = await helmOk('get', 'manifest', 'web', '-n', 'apps')
    assert.match(manifest, /^---\n# Source: web\/templates\/serviceaccount\.yaml\napiVersion: v1\nkind: ServiceAccount\n/)
    assert.match(manifest, /^# Source: web\/templates\/deployment\.yaml\napiVersion: apps\/v1\nkind: Deployment\n/m)
    assert.match(await helmOk('get', 'values', 'web', '-n', 'apps'), /^USER-SUPPLIED VALUES:\n(?:null|\{\})\n$/)
    assert.match(await helmOk('list', '-n', 'apps'), /^NAME\s+NAMESPACE\s+REVISION\s+UPDATED\s+STATUS\s+CHART\s+APP VERSION\s*\nweb\s+apps\s+1\s+.+\s+deployed\s+web-0\.1\.0\s+1\.16\.0\s*\n$/)
    assert.match(await helmOk('list', '-A', '-q'), /^web\n/m)
  })

  it('upgrade, history, rollback: the Deployment follows each revision', async () => {
    const upgraded = await helmOk('upgrade', 'web', web, '-n', 'apps', '--set', 'replicaCount=2')
    assert.match(upgraded, /^Release "web" has been upgraded\. Happy Helming!\nNAME: web\nLAST DEPLOYED: .+\nNAMESPACE: apps\nSTATUS: deployed\nREVISION: 2\n/)
    assert.equal((await json('get', 'deployment', 'web', '-n', 'apps')).spec.replicas, 2)
    assert.match(await helmOk('get', 'values', 'web', '-n', 'apps'), /^USER-SUPPLIED VALUES:\nreplicaCount: 2\n$/)
    assert.equal(await helmOk('rollback', 'web', '1', '-n', 'apps'), 'Rollback was a success! Happy Helming!\n')
    assert.equal((await json('get', 'deployment', 'web', '-n', 'apps')).spec.replicas, 1)
    const history = await helmOk('history', 'web', '-n', 'apps')
    assert.match(
      history,
      /^REVISION\s+UPDATED\s+STATUS\s+CHART\s+APP VERSION\s+DESCRIPTION\s*\n1\s+.+\s+superseded\s+web-0\.1\.0\s+1\.16\.0\s+Install complete\s*\n2\s+.+\s+superseded\s+web-0\.1\.0\s+1\.16\.0\s+Upgrade complete\s*\n3\s+.+\s+deployed\s+web-0\.1\.0\s+1\.16\.0\s+Rollback to 1\s*\n$/,
    )
    const history1 = JSON.parse(await helmOk('history', 'web', '-n', 'apps', '-o', 'json'))
    assert.deepEqual(
      history1.map((h: Obj) => [h.revision, h.status]),
      [
        [1, 'superseded'],
        [2, 'superseded'],
        [3, 'deployed'],
      ],
    )
  })

  it('release Secrets as Helm stores them: sh.helm.release.v1.<name>.v<N>, type helm.sh/release.v1, labels', async () => {
    const secrets = await releaseSecrets('apps')
    assert.deepEqual(
      secrets.map(({ secret }) => [secret.metadata.name, secret.type]),
      [1, 2, 3].map((n) => [`sh.helm.release.v1.web.v${n}`, 'helm.sh/release.v1']),
    )
    for (const [i, { secret, release }] of secrets.entries()) {
      // Helm creates each revision's Secret (labelled createdAt), then updates it with its final
      // status; an update writes the Secret anew with modifiedAt in place of createdAt
      // (pkg/storage/driver/secrets.go, Create and Update), and the server keeps the labels as sent.
      const { modifiedAt, ...labels } = secret.metadata.labels
      assert.deepEqual(labels, { name: 'web', owner: 'helm', status: i < 2 ? 'superseded' : 'deployed', version: String(i + 1) })
      assert.match(modifiedAt, /^\d{10}$/)
      assert.deepEqual(Object.keys(secret.data), ['release'])
      assert.equal(release.name, 'web')
      assert.equal(release.namespace, 'apps')
      assert.equal(release.version, i + 1)
      assert.equal(release.info.status, labels.status)
      assert.equal(release.chart.metadata.name, 'web')
      assert.match(release.manifest, /kind: Deployment/)
    }
    assert.deepEqual(secrets[1]!.release.config, { replicaCount: 2 })
    assert.match(await ok('get', 'secrets', '-n', 'apps', '-l', 'owner=helm,status=deployed', '-o', 'name'), /^secret\/sh\.helm\.release\.v1\.web\.v3\n$/)
  })

  it('uninstall removes what the release made and its history', async () => {
    assert.equal(await helmOk('uninstall', 'web', '-n', 'apps'), 'release "web" uninstalled\n')
    await missing('deployment', 'web', '-n', 'apps')
    await missing('service', 'web', '-n', 'apps')
    await missing('serviceaccount', 'web', '-n', 'apps')
    assert.deepEqual(await releaseSecrets('apps'), [])
    const status = await helm('status', 'web', '-n', 'apps')
    assert.equal(status.code, 1)
    assert.match(status.stderr, /^Error: release: not found\n$/m)
  })

  it('install --dry-run=server renders against the server and stores nothing', async () => {
    const out = await helmOk('install', 'dry', web, '-n', 'apps', '--dry-run=server')
    assert.match(out, /^NAME: dry\nLAST DEPLOYED: .+\nNAMESPACE: apps\nSTATUS: pending-install\nREVISION: 1\n/)
    assert.match(out, /^MANIFEST:\n---\n# Source: web\/templates\/serviceaccount\.yaml\n/m)
    // helm create's `web.fullname` is <release>-<chart> when the release name does not hold the chart's.
    assert.match(out, /^kind: Deployment\nmetadata:\n  name: dry-web\n/m)
    await missing('deployment', 'dry-web', '-n', 'apps')
    assert.deepEqual(await releaseSecrets('apps'), [])
  })

  it('helm template | kubectl apply --server-side -f -', async () => {
    const rendered = await helmOk('template', 'tpl', web, '-n', 'apps', '--skip-tests')
    assert.match(rendered, /^---\n# Source: web\/templates\/serviceaccount\.yaml\n/)
    const applied = await new Promise<Run>((resolve) => {
      const child = spawn(session.kubectl, [...session.base, 'apply', '--server-side', '-n', 'apps', '-f', '-'], { env: { ...process.env, HOME: session.tmp } })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d) => (stdout += d))
      child.stderr.on('data', (d) => (stderr += d))
      child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }))
      child.stdin.end(rendered)
    })
    assert.equal(applied.code, 0, applied.stderr)
    assert.equal(applied.stdout, 'serviceaccount/tpl-web serverside-applied\nservice/tpl-web serverside-applied\ndeployment.apps/tpl-web serverside-applied\n')
    const deploy = await json('get', 'deployment', 'tpl-web', '-n', 'apps', '--show-managed-fields')
    assert.deepEqual(
      deploy.metadata.managedFields.map((e: Obj) => [e.manager, e.operation]),
      [['kubectl', 'Apply']],
    )
    // Not a release: Helm knows nothing of it.
    assert.equal((await helm('status', 'tpl', '-n', 'apps')).code, 1)
  })

  it('a chart with crds/: the CRD goes in first, then the custom resource; uninstall keeps the CRD', async () => {
    const dir = chart('gadgets', {
      'Chart.yaml': chartYaml('gadgets'),
      'crds/widgets.yaml': [
        'apiVersion: apiextensions.k8s.io/v1',
        'kind: CustomResourceDefinition',
        'metadata: {name: widgets.helm.example.com}',
        'spec:',
        '  group: helm.example.com',
        '  scope: Namespaced',
        '  names: {plural: widgets, singular: widget, kind: Widget}',
        '  versions:',
        '  - name: v1',
        '    served: true',
        '    storage: true',
        '    schema:',
        '      openAPIV3Schema:',
        '        type: object',
        '        properties:',
        '          spec:',
        '            type: object',
        '            properties: {size: {type: integer}, color: {type: string}}',
        '',
      ].join('\n'),
      'templates/widget.yaml': 'apiVersion: helm.example.com/v1\nkind: Widget\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  size: {{ .Values.size }}\n  color: blue\n',
      'values.yaml': 'size: 3\n',
    })
    const out = await helmOk('install', 'gadgets', dir, '-n', 'crds', '--create-namespace')
    assert.match(out, /^STATUS: deployed$/m)
    const crd = await json('get', 'crd', 'widgets.helm.example.com')
    assert.ok(crd.status.conditions.some((c: Obj) => c.type === 'Established' && c.status === 'True'))
    const widget = await json('get', 'widgets.helm.example.com', 'gadgets', '-n', 'crds')
    assert.deepEqual(widget.spec, { size: 3, color: 'blue' })
    assert.doesNotMatch(await helmOk('get', 'manifest', 'gadgets', '-n', 'crds'), /CustomResourceDefinition/, 'CRDs are not part of the release')
    assert.equal(await helmOk('uninstall', 'gadgets', '-n', 'crds'), 'release "gadgets" uninstalled\n')
    await missing('widgets.helm.example.com', 'gadgets', '-n', 'crds')
    await ok('get', 'crd', 'widgets.helm.example.com')
  })

  it('a chart with hooks: pre-install and post-install ConfigMaps, hook-delete-policy, a post-delete hook', async () => {
    // ConfigMaps, not Jobs: Helm waits for a Job hook to complete, and no job controller runs here.
    const hook = (name: string, phase: string, extra: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-${name}\n  annotations:\n    helm.sh/hook: ${phase}\n${extra}data:\n  phase: ${phase}\n`
    const dir = chart('hooked', {
      'Chart.yaml': chartYaml('hooked'),
      'templates/pre.yaml': hook('pre', 'pre-install', '    helm.sh/hook-weight: "-5"\n    helm.sh/hook-delete-policy: hook-succeeded\n'),
      'templates/post.yaml': hook('post', 'post-install', '    helm.sh/hook-delete-policy: before-hook-creation\n'),
      'templates/bye.yaml': hook('bye', 'post-delete', ''),
      'templates/main.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-main\ndata:\n  a: "1"\n',
    })
    const out = await helmOk('install', 'hooked', dir, '-n', 'hooks', '--create-namespace')
    assert.match(out, /^STATUS: deployed$/m)
    // hook-succeeded: the pre-install hook ran and was deleted; the post-install one stays.
    await missing('configmap', 'hooked-pre', '-n', 'hooks')
    assert.equal(await ok('get', 'configmap', 'hooked-post', '-n', 'hooks', '-o', 'jsonpath={.data.phase}'), 'post-install')
    await ok('get', 'configmap', 'hooked-main', '-n', 'hooks')
    await missing('configmap', 'hooked-bye', '-n', 'hooks')
    const hooks = await helmOk('get', 'hooks', 'hooked', '-n', 'hooks')
    for (const name of ['pre', 'post', 'bye']) assert.match(hooks, new RegExp(`^# Source: hooked/templates/${name}\\.yaml$`, 'm'))
    const [{ release }] = await releaseSecrets('hooks')
    const ran = Object.fromEntries(release!.hooks.map((h: Obj) => [h.name, h.last_run?.phase ?? '']))
    assert.deepEqual(ran, { 'hooked-pre': 'Succeeded', 'hooked-post': 'Succeeded', 'hooked-bye': '' })
    assert.doesNotMatch(await helmOk('get', 'manifest', 'hooked', '-n', 'hooks'), /hooked-pre|hooked-post/, 'hooks are not in the manifest')

    assert.equal(await helmOk('uninstall', 'hooked', '-n', 'hooks'), 'release "hooked" uninstalled\n')
    await missing('configmap', 'hooked-main', '-n', 'hooks')
    assert.equal(await ok('get', 'configmap', 'hooked-bye', '-n', 'hooks', '-o', 'jsonpath={.data.phase}'), 'post-delete')
    await ok('get', 'configmap', 'hooked-post', '-n', 'hooks')
  })

  it('install --wait fails with Helm\'s readiness message: no controller makes the Deployment ready', async () => {
    const started = Date.now()
    const r = await helm('install', 'slow', web, '-n', 'slow', '--create-namespace', '--wait', '--timeout=5s')
    assert.equal(r.code, 1, r.stdout)
    assert.ok(Date.now() - started >= 5000, 'Helm waited for its timeout')
    assert.match(r.stderr, /^Error: INSTALLATION FAILED: resource Deployment\/slow\/slow-web not ready\. status: InProgress, message: Replicas: 0\/1\ncontext deadline exceeded\n$/m)
    assert.match(await helmOk('status', 'slow', '-n', 'slow'), /^STATUS: failed$/m)
    const [{ secret, release }] = await releaseSecrets('slow')
    assert.equal(secret!.metadata.labels.status, 'failed')
    assert.match(release!.info.description, /^Release "slow" failed: resource Deployment\/slow\/slow-web not ready\. status: InProgress, message: Replicas: 0\/1/)
    // The objects were created; only readiness never came.
    await ok('get', 'deployment', 'slow-web', '-n', 'slow')
    assert.equal(await helmOk('uninstall', 'slow', '-n', 'slow'), 'release "slow" uninstalled\n')
  })

  it('a values.schema.json error is refused before anything is installed; valid values install', async () => {
    const dir = chart('strict', {
      'Chart.yaml': chartYaml('strict'),
      'values.yaml': 'replicaCount: 1\n',
      'values.schema.json': JSON.stringify({ type: 'object', required: ['replicaCount'], properties: { replicaCount: { type: 'integer', minimum: 1 } } }, null, 2),
      'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  replicas: "{{ .Values.replicaCount }}"\n',
    })
    await ok('create', 'namespace', 'strict')
    const low = await helm('install', 'strict', dir, '-n', 'strict', '--set', 'replicaCount=0')
    assert.equal(low.code, 1)
    assert.equal(low.stderr, "Error: INSTALLATION FAILED: values don't meet the specifications of the schema(s) in the following chart(s):\nstrict:\n- at '/replicaCount': minimum: got 0, want 1\n\n")
    const text = await helm('install', 'strict', dir, '-n', 'strict', '--set-string', 'replicaCount=two')
    assert.equal(text.code, 1)
    assert.match(text.stderr, /^strict:\n- at '\/replicaCount': got string, want integer$/m)
    await missing('configmap', 'strict', '-n', 'strict')
    assert.deepEqual(await releaseSecrets('strict'), [])
    assert.equal(await helmOk('list', '-n', 'strict', '--deployed', '--failed', '--pending', '-q'), '')
    assert.match(await helmOk('install', 'strict', dir, '-n', 'strict', '--set', 'replicaCount=3'), /^STATUS: deployed$/m)
    assert.equal(await ok('get', 'configmap', 'strict', '-n', 'strict', '-o', 'jsonpath={.data.replicas}'), '3')
  })
})
