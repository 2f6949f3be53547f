/**
 * The general client options through the BUILT binary (`npm run build` first): `--version`,
 * `--profile`, `--clientrc` with `--local`; `--warnings-as-errors` and `--cache-dir` against a
 * local plain-HTTP test server that counts requests; `--match-server-version` against the
 * built `client server start`.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ApiServer } from '../../support/api-server.js'

const BIN = fileURLToPath(new URL('../../../bin/run.js', import.meta.url))

interface Outcome {
  exitCode: number
  stdout: string
  stderr: string
}

function run(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'patch', ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: options.cwd ?? os.tmpdir(), KUBECONFIG: '/nonexistent/kubeconfig', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ exitCode: code ?? -1, stdout, stderr }))
  })
}

const CM = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: "1"\n'

describe('patch: general client options (end to end, built binary)', function () {
  this.timeout(60_000)
  let dir: string
  let file: string
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-patch-general-'))
    file = path.join(dir, 'cm.yaml')
    fs.writeFileSync(file, CM)
  })

  it('--version prints the client version and exits 0; --version=raw prints version.Info', async () => {
    assert.deepEqual(await run(['--version'], { cwd: dir }), { exitCode: 0, stdout: 'Client Version: v1.35.0\n', stderr: '' })
    const raw = await run(['--version=raw'], { cwd: dir })
    assert.equal(raw.exitCode, 0)
    assert.match(raw.stdout, /^version\.Info\{Major:"1", Minor:"35", GitVersion:"v1\.35\.0"/)
    const set = await run(['--version=v1.34.1', '--version'], { cwd: dir })
    assert.equal(set.stdout, 'Client Version: v1.34.1\n')
  })

  it('--profile=cpu writes a V8 CPU profile; heap a snapshot; goroutine is refused', async () => {
    const cpu = await run(['--local', '-f', file, '-p', '{"data":{"b":"2"}}', '--profile=cpu', '--profile-output=out.cpuprofile'], { cwd: dir })
    assert.equal(cpu.exitCode, 0, cpu.stderr)
    assert.equal(cpu.stdout, 'configmap/x patched\n')
    const profile = JSON.parse(fs.readFileSync(path.join(dir, 'out.cpuprofile'), 'utf8')) as { nodes: unknown[] }
    assert.ok(profile.nodes.length > 0)
    const heap = await run(['--local', '-f', file, '-p', '{}', '--profile', 'heap'], { cwd: dir })
    assert.equal(heap.exitCode, 0, heap.stderr)
    assert.match(fs.readFileSync(path.join(dir, 'profile.pprof'), 'utf8').slice(0, 50), /^\{"snapshot":/)
    const go = await run(['--local', '-f', file, '-p', '{}', '--profile=goroutine'], { cwd: dir })
    assert.equal(go.exitCode, 1)
    assert.match(go.stderr, /^error: profile "goroutine" is not available in this client/)
  })

  it('--clientrc applies defaults for patch (explicit flags win); CLIENTRC=off; bad files are named', async () => {
    const rc = path.join(dir, 'rc.yaml')
    fs.writeFileSync(rc, 'apiVersion: kubectl.config.k8s.io/v1beta1\nkind: Preference\ndefaults:\n- command: patch\n  options:\n  - name: output\n    default: name\n')
    const base = ['--local', '-f', file, '-p', '{"data":{"b":"2"}}', `--clientrc=${rc}`]
    assert.equal((await run(base, { cwd: dir })).stdout, 'configmap/x\n')
    assert.match((await run([...base, '-o', 'yaml'], { cwd: dir })).stdout, /^apiVersion: v1\n/)
    assert.equal((await run(base, { cwd: dir, env: { CLIENTRC: 'off' } })).stdout, 'configmap/x patched\n')
    // The default file, $HOME/.client/clientrc.
    fs.mkdirSync(path.join(dir, '.client'))
    fs.copyFileSync(rc, path.join(dir, '.client', 'clientrc'))
    assert.equal((await run(base.slice(0, -1), { cwd: dir })).stdout, 'configmap/x\n')
    fs.writeFileSync(rc, 'apiVersion: v1\nkind: Config\n')
    const bad = await run(base, { cwd: dir })
    assert.equal(bad.exitCode, 1)
    assert.equal(bad.stderr, `error: clientrc file ${JSON.stringify(rc)}: unsupported apiVersion "v1" and kind "Config": want apiVersion kubectl.config.k8s.io/v1beta1 or kubectl.config.k8s.io/v1alpha1 and kind Preference\n`)
  })

  describe('against a local test server', () => {
    let server: http.Server
    let requests: string[]
    let url: string
    before(async () => {
      requests = []
      server = http.createServer((req, res) => {
        requests.push(`${req.method} ${req.url}`)
        const json = (status: number, body: unknown, headers: Record<string, string | string[]> = {}) => {
          res.writeHead(status, { 'content-type': 'application/json', ...headers })
          res.end(JSON.stringify(body))
        }
        const u = (req.url ?? '').split('?')[0]
        if (u === '/version') return json(200, { major: '1', minor: '35', gitVersion: 'v1.35.0' })
        if (u === '/api') return json(200, { kind: 'APIVersions', versions: ['v1'] })
        if (u === '/apis') return json(200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [] })
        if (u === '/api/v1') {
          return json(200, { kind: 'APIResourceList', groupVersion: 'v1', resources: [{ name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap', shortNames: ['cm'], verbs: ['get', 'patch'] }] })
        }
        if (u === '/api/v1/namespaces/default/configmaps/x') {
          const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' }, data: { a: '1' } }
          if (req.method === 'GET') return json(200, cm)
          return json(200, { ...cm, data: { a: '1', b: '2' } }, { warning: ['299 - "deprecated thing"', '299 - "deprecated thing"', '299 - "other"'] })
        }
        json(404, { kind: 'Status', status: 'Failure', reason: 'NotFound', message: 'not found', code: 404 })
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    })
    after(() => new Promise<void>((resolve) => server.close(() => resolve())))

    const args = () => ['cm', 'x', '-p', '{"data":{"b":"2"}}', `--server=${url}`, `--cache-dir=${path.join(dir, 'cache')}`]

    it('prints server warnings once each; --warnings-as-errors exits 1 after them', async () => {
      const plain = await run(args(), { cwd: dir })
      assert.deepEqual(plain, { exitCode: 0, stdout: 'configmap/x patched\n', stderr: 'Warning: deprecated thing\nWarning: other\n' })
      const strict = await run([...args(), '--warnings-as-errors'], { cwd: dir })
      assert.deepEqual(strict, { exitCode: 1, stdout: 'configmap/x patched\n', stderr: 'Warning: deprecated thing\nWarning: other\nerror: 2 warnings received\n' })
    })

    it('--cache-dir: discovery is cached in kubectl\'s layout and not asked again on the next run', async () => {
      requests.length = 0
      assert.equal((await run(args(), { cwd: dir })).exitCode, 0)
      const first = requests.filter((r) => /^GET \/apis?(\/v1)?(\?|$)/.test(r))
      assert.deepEqual(first, ['GET /api', 'GET /apis', 'GET /api/v1'])
      const host = `127.0.0.1_${new URL(url).port}`
      assert.ok(fs.existsSync(path.join(dir, 'cache', 'discovery', host, 'servergroups.json')))
      assert.ok(fs.existsSync(path.join(dir, 'cache', 'discovery', host, 'v1', 'serverresources.json')))
      requests.length = 0
      assert.equal((await run(args(), { cwd: dir })).exitCode, 0)
      assert.deepEqual(requests, ['GET /api/v1/namespaces/default/configmaps/x', 'PATCH /api/v1/namespaces/default/configmaps/x?fieldManager=client-patch'])
    })

    it('--cache-dir: a type missing from the cache refreshes discovery once', async () => {
      await run(args(), { cwd: dir })
      requests.length = 0
      const got = await run(['widgets', 'x', '-p', '{}', `--server=${url}`, `--cache-dir=${path.join(dir, 'cache')}`], { cwd: dir })
      assert.equal(got.stderr, 'error: the server doesn\'t have a resource type "widgets"\n')
      assert.deepEqual(requests, ['GET /api', 'GET /apis', 'GET /api/v1'])
    })
  })

  describe('--match-server-version against the built server', () => {
    let api: ApiServer
    let connection: string[]
    before(async function () {
      this.timeout(120_000)
      api = await ApiServer.start({ waitFor: 'ready' })
      // The administrator the server wrote: anonymous users cannot read discovery under Node,RBAC.
      connection = [`--kubeconfig=${api.adminKubeconfig}`]
      const reply = await api.get('/api/v1/namespaces/default/configmaps', { 'content-type': 'application/json' }, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'mv' }, data: { a: '1' } }))
      assert.equal(reply.status, 201, reply.body)
    })
    after(async () => {
      await api?.stop()
    })

    it('passes when major.minor match', async () => {
      const got = await run(['cm', 'mv', '-p', '{"data":{"b":"2"}}', '--match-server-version', `--cache-dir=${path.join(dir, 'c')}`, ...connection], { cwd: dir })
      assert.deepEqual(got, { exitCode: 0, stdout: 'configmap/mv patched\n', stderr: '' })
    })

    it('fails with kubectl\'s message when they differ (--version=v1.34.0 sets the client version)', async () => {
      const got = await run(['cm', 'mv', '-p', '{"data":{"c":"3"}}', '--match-server-version', '--version=v1.34.0', `--cache-dir=${path.join(dir, 'c')}`, ...connection], { cwd: dir })
      assert.deepEqual(got, { exitCode: 1, stdout: '', stderr: 'error: server version (v1.35.0) differs from client version (v1.34.0)\n' })
      const cm = JSON.parse((await api.get('/api/v1/namespaces/default/configmaps/mv')).body) as { data: Record<string, string> }
      assert.equal(cm.data.c, undefined)
    })
  })
})
