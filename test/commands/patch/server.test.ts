/**
 * `client patch` against a server, end to end: the BUILT binary (`npm run build` first)
 * patches objects on the built `client server start`, and the same commands are run with
 * the real kubectl (v1.32) on the same server, in a twin namespace, for the same stdout and
 * exit code. Outputs are compared after normalising what differs per object: the namespace
 * name, resourceVersion, uid and creationTimestamp.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ApiServer } from '../../support/api-server.js'
import { requireTool } from '../../support/tools.js'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
const BIN = path.join(ROOT, 'bin/run.js')

interface Outcome {
  exitCode: number
  stdout: string
  stderr: string
}

function exec(command: string, args: string[]): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), KUBECONFIG: '/nonexistent/kubeconfig' },
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

/** One step: the arguments after `patch`, with NS standing for the namespace. */
const STEPS: { name: string; args: string[]; exitCode: number; stdout: RegExp | string }[] = [
  { name: 'strategic merge (default type)', args: ['cm', 'x', '-p', '{"data":{"b":"2"}}'], exitCode: 0, stdout: 'configmap/x patched\n' },
  { name: 'the same patch again: no change', args: ['cm', 'x', '-p', '{"data":{"b":"2"}}'], exitCode: 0, stdout: 'configmap/x patched (no change)\n' },
  { name: 'TYPE/NAME form, --type merge', args: ['configmaps/x', '--type', 'merge', '-p', '{"data":{"c":"3"}}'], exitCode: 0, stdout: 'configmap/x patched\n' },
  { name: '--type json', args: ['cm', 'x', '--type', 'json', '-p', '[{"op":"remove","path":"/data/c"}]'], exitCode: 0, stdout: 'configmap/x patched\n' },
  {
    name: 'a failing JSON patch operation',
    args: ['cm', 'x', '--type', 'json', '-p', '[{"op":"remove","path":"/data/nope"}]'],
    exitCode: 1,
    stdout: '',
  },
  { name: '-o yaml', args: ['cm', 'x', '-p', '{"data":{"e":"5"}}', '-o', 'yaml'], exitCode: 0, stdout: /^apiVersion: v1\ndata:\n  a: "1"\n  b: "2"\n  e: "5"\nkind: ConfigMap\n/ },
  { name: '-o name', args: ['configmap', 'x', '-p', '{"data":{"f":"6"}}', '-o', 'name'], exitCode: 0, stdout: 'configmap/x\n' },
  { name: '--dry-run=server', args: ['cm', 'x', '-p', '{"data":{"d":"4"}}', '--dry-run=server'], exitCode: 0, stdout: 'configmap/x patched\n' },
  { name: '--dry-run=client', args: ['cm', 'x', '-p', '{"data":{"d":"4"}}', '--dry-run=client', '-o', 'jsonpath={.data.d}'], exitCode: 0, stdout: '4' },
  { name: '-f FILE (object from the file, patched on the server)', args: ['-f', 'FILE', '-p', '{"data":{"g":"7"}}'], exitCode: 0, stdout: 'configmap/x patched\n' },
  { name: 'a missing object', args: ['cm', 'missing', '-p', '{}'], exitCode: 1, stdout: '' },
  { name: 'an unknown resource type', args: ['foos', 'x', '-p', '{}'], exitCode: 1, stdout: '' },
  {
    name: '--subresource=scale',
    args: ['deploy', 'web', '--subresource=scale', '--type', 'merge', '-p', '{"spec":{"replicas":2}}'],
    exitCode: 0,
    stdout: /^(deployment\.apps|scale\.autoscaling)\/web patched\n$/,
  },
  { name: 'a stale resourceVersion in the patch: Conflict', args: ['cm', 'x', '--type', 'merge', '-p', '{"metadata":{"resourceVersion":"1"},"data":{"h":"8"}}'], exitCode: 1, stdout: '' },
  { name: 'a patch the typed object cannot take: 422 Invalid', args: ['deploy', 'web', '-p', '{"spec":{"replicas":"three"}}'], exitCode: 1, stdout: '' },
  { name: 'a patch the validation refuses: 422 Invalid', args: ['deploy', 'web', '-p', '{"spec":{"replicas":-1}}'], exitCode: 1, stdout: '' },
  { name: 'a cluster-scoped object (namespace)', args: ['ns', 'NS', '-p', '{"metadata":{"labels":{"team":"a"}}}'], exitCode: 0, stdout: /^namespace\/\S+ patched\n$/ },
]

/** What differs between two twin objects: the namespace name, resourceVersion, uid, timestamps. */
function normalise(text: string, ns: string): string {
  return text
    .replaceAll(ns, 'NS')
    .replace(/resourceVersion: "\d+"/g, 'resourceVersion: "RV"')
    .replace(/"resourceVersion": ?"\d+"/g, '"resourceVersion":"RV"')
    .replace(/uid: [0-9a-f-]+/g, 'uid: UID')
    .replace(/creationTimestamp: "[^"]*"/g, 'creationTimestamp: "TS"')
}

describe('patch against a server (end to end, built binary)', function () {
  this.timeout(120_000)
  let server: ApiServer
  let connection: string[]
  const ours: Outcome[] = []

  async function createNamespaceWithConfigMap(ns: string): Promise<void> {
    const json = { 'content-type': 'application/json' }
    const created = await server.get('/api/v1/namespaces', json, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }))
    assert.equal(created.status, 201, created.body)
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: '1' } }
    const reply = await server.get(`/api/v1/namespaces/${ns}/configmaps`, json, 'POST', JSON.stringify(cm))
    assert.equal(reply.status, 201, reply.body)
    const labels = { app: 'web' }
    const deploy = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
    }
    const d = await server.get(`/apis/apps/v1/namespaces/${ns}/deployments`, json, 'POST', JSON.stringify(deploy))
    assert.equal(d.status, 201, d.body)
  }

  let file: string
  let adminCredentials: string[] = []
  const withNs = (args: string[], ns: string) => [...args.map((a) => (a === 'NS' ? ns : a === 'FILE' ? file : a)), '-n', ns]

  before(async () => {
    server = await ApiServer.start({ waitFor: 'ready', admin: true })
    file = path.join(server.certDir, '..', 'cm.yaml')
    const admin = server.admin()
    adminCredentials = [`--client-certificate=${path.join(server.certDir, '..', 'admin.crt')}`, `--client-key=${path.join(server.certDir, '..', 'admin.key')}`]
    fs.writeFileSync(path.join(server.certDir, '..', 'admin.crt'), admin.cert)
    fs.writeFileSync(path.join(server.certDir, '..', 'admin.key'), admin.key)
    fs.writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: "1"\n')
    connection = [`--server=https://127.0.0.1:${server.port}`, `--certificate-authority=${path.join(server.certDir, 'ca.crt')}`]
    await createNamespaceWithConfigMap('ours')
    await createNamespaceWithConfigMap('kube')
  })

  after(async () => {
    await server?.stop()
  })

  for (const [i, step] of STEPS.entries()) {
    it(step.name, async () => {
      const got = await exec(process.execPath, [BIN, 'patch', ...withNs(step.args, 'ours'), ...connection, ...adminCredentials])
      ours[i] = got
      assert.equal(got.exitCode, step.exitCode, got.stderr)
      if (typeof step.stdout === 'string') assert.equal(got.stdout, step.stdout)
      else assert.match(got.stdout, step.stdout)
    })
  }

  it('prints kubectl\'s NotFound text for a missing object', () => {
    const missing = STEPS.findIndex((s) => s.name === 'a missing object')
    assert.equal(ours[missing]?.stderr, 'Error from server (NotFound): configmaps "missing" not found\n')
  })

  it("prints kubectl's Invalid text once, without the Status message, for a typed patch decoding failure", () => {
    const step = STEPS.findIndex((s) => s.name === 'a patch the typed object cannot take: 422 Invalid')
    // kubectl 1.32's text (cmdutil.checkErr: no kind or name in the details, one cause).
    assert.equal(ours[step]?.stderr, 'The request is invalid: patch: Invalid value: "map[spec:map[replicas:three]]": cannot convert string to int32\n')
  })

  it("prints kubectl's Invalid text for a field the validation refuses", () => {
    const step = STEPS.findIndex((s) => s.name === 'a patch the validation refuses: 422 Invalid')
    assert.equal(ours[step]?.stderr, 'The Deployment "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0\n')
  })

  it('--dry-run=server leaves the object unchanged on the server', async () => {
    const reply = await server.get('/api/v1/namespaces/ours/configmaps/x')
    const cm = JSON.parse(reply.body) as { data: Record<string, string> }
    assert.deepEqual(cm.data, { a: '1', b: '2', e: '5', f: '6', g: '7' })
  })

  it('matches kubectl 1.32 on the same server (stdout and exit code)', async function () {
    const kubectl = requireTool(this, 'kubectl-1.32')
    // kubectl asks for a user name on a terminal-less HTTPS connection without credentials:
    // it is the administrator of the server's written kubeconfig.
    for (const [i, step] of STEPS.entries()) {
      const theirs = await exec(kubectl, ['patch', ...withNs(step.args, 'kube'), ...connection, ...adminCredentials])
      const mine = ours[i]
      assert.ok(mine, `step ${step.name} did not run`)
      assert.equal(mine.exitCode, theirs.exitCode, `${step.name}: exit code (kubectl stderr: ${theirs.stderr})`)
      assert.equal(normalise(mine.stdout, 'ours'), normalise(theirs.stdout, 'kube'), `${step.name}: stdout`)
      assert.equal(normalise(mine.stderr, 'ours'), normalise(theirs.stderr, 'kube'), `${step.name}: stderr`)
    }
  })

  it('fails like kubectl when the server is not there', async () => {
    const got = await exec(process.execPath, [BIN, 'patch', 'cm', 'x', '-p', '{}', '--server=https://127.0.0.1:1', '--insecure-skip-tls-verify'])
    assert.equal(got.exitCode, 1)
    assert.equal(got.stdout, '')
    assert.equal(got.stderr, 'The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?\n')
  })
})
