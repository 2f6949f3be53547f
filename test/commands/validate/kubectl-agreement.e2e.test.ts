/**
 * `client validate` says, object by object, what `kubectl apply --dry-run=server` says against
 * a running `client server start` (issue 37's acceptance): the corpus under
 * test/fixtures/validate/ holds valid and invalid built-in objects, a CRD with
 * x-kubernetes-validations rules and its custom resources, a ValidatingAdmissionPolicy with a
 * binding and a parameter, namespaces with Pod Security labels. The expected texts are what
 * kubectl prints (each object file applied alone, as the real server answers it), never
 * written here. The context files (namespaces, CRD, policy) are applied for real first, as
 * `client validate` creates them first.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { podSecurityDefaults } from '../../../src/server/offline/run-validate.js'
import { ApiServer, BIN } from '../../support/api-server.js'
import { requireTool } from '../../support/tools.js'
import { validateJsonSchema } from '../../support/json-schema.js'

const CORPUS = fileURLToPath(new URL('../../fixtures/validate/', import.meta.url))
const CONTEXT = ['context/namespaces.yaml', 'context/widgets-crd.yaml', 'context/replica-limit-policy.yaml']

interface Said {
  exit: number
  error?: string
  warnings: string[]
}

/** What kubectl printed: its `Warning: ` lines and, when it failed, the rest of its standard error. */
function kubectlSaid(kubectl: string, kubeconfig: string, args: string[]): Said {
  const r = spawnSync(kubectl, ['--kubeconfig', kubeconfig, ...args], { cwd: CORPUS, encoding: 'utf8' })
  const lines = r.stderr.split('\n')
  const warnings = lines.filter((l) => l.startsWith('Warning: ')).map((l) => l.slice('Warning: '.length))
  const rest = lines.filter((l) => !l.startsWith('Warning: ')).join('\n').trim()
  return { exit: r.status ?? -1, ...(r.status !== 0 ? { error: rest } : {}), warnings }
}

interface Reported {
  source: string
  document: number
  valid: boolean
  error?: string
  warnings: string[]
}

function clientValidate(args: string[]): { exit: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, 'validate', ...args], { cwd: CORPUS, encoding: 'utf8' })
  return { exit: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }
}

const objectFiles = (dir: string) =>
  readdirSync(join(CORPUS, dir))
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .sort()
    .map((f) => `${dir}/${f}`)

/** Waits until kubectl's `condition` holds, as a deploy script would between its steps. */
function kubectlWait(kubectl: string, kubeconfig: string, args: string[]): void {
  const r = spawnSync(kubectl, ['--kubeconfig', kubeconfig, 'wait', '--timeout=60s', ...args], { encoding: 'utf8' })
  assert.equal(r.status, 0, r.stderr)
}

async function pause(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms))
}

describe('client validate agrees with kubectl apply --dry-run=server against client server start', function () {
  this.timeout(240_000)
  let kubectl: string
  let server: ApiServer | undefined

  before(async function () {
    kubectl = requireTool(this, 'kubectl')
    server = await ApiServer.start({ waitFor: 'ready' })
  })

  after(async () => {
    await server?.stop()
  })

  it('gives each object the error and warnings kubectl prints for it, and exits 1', async () => {
    const kubeconfig = server!.adminKubeconfig
    const expected = new Map<string, Said>()
    for (const file of CONTEXT) {
      const said = kubectlSaid(kubectl, kubeconfig, ['apply', '-f', file])
      assert.equal(said.exit, 0, `${file}: ${said.error}`)
      expected.set(file, said)
      if (file.includes('crd')) kubectlWait(kubectl, kubeconfig, ['--for=condition=Established', 'crd/widgets.example.com'])
    }
    // The namespaces' default service accounts (their controller) and the policy (read again
    // within a second) are in place before the objects are sent.
    for (const ns of ['locked', 'watched', 'team-a']) {
      for (let i = 0; i < 100 && spawnSync(kubectl, ['--kubeconfig', kubeconfig, 'get', 'sa', 'default', '-n', ns]).status !== 0; i++) await pause(100)
    }
    await pause(1500)
    const files = objectFiles('objects')
    for (const file of files) expected.set(file, kubectlSaid(kubectl, kubeconfig, ['apply', '--dry-run=server', '-f', file]))

    const run = clientValidate(['-f', 'context', '-f', 'objects', '-o', 'json'])
    const report = JSON.parse(run.stdout) as { valid: boolean; objects: Reported[] }
    const compared: string[] = []
    for (const [file, said] of expected) {
      const ours = report.objects.filter((o) => o.source === file)
      assert.ok(ours.length > 0, `client validate reported nothing for ${file}`)
      if (ours.length === 1) {
        assert.equal(ours[0]!.error, said.error, `${file}: the error`)
        assert.deepEqual(ours[0]!.warnings, said.warnings, `${file}: the warnings`)
      } else {
        // A multi-document file: kubectl applied every object of it without a word.
        assert.equal(said.exit, 0, `${file}: ${said.error}`)
        assert.deepEqual(ours.map((o) => o.error), ours.map(() => undefined), `${file}: the errors`)
        assert.deepEqual(ours.flatMap((o) => o.warnings), said.warnings, `${file}: the warnings`)
      }
      compared.push(file)
    }
    // The corpus exercises what it says it does: errors of several kinds, and a warning.
    const failing = [...expected.values()].filter((s) => s.error !== undefined)
    assert.ok(failing.length >= 10, `only ${failing.length} failing objects`)
    for (const text of ['The Deployment', 'The Widget', "ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-team-a' denied request", 'violates PodSecurity "restricted:latest"', 'strict decoding error', 'no matches for kind']) {
      assert.ok(failing.some((s) => s.error!.includes(text)), `no kubectl error with ${JSON.stringify(text)}`)
    }
    assert.ok([...expected.values()].some((s) => s.warnings.length > 0), 'no object with a warning')
    assert.equal(run.exit, 1, run.stderr)
    assert.equal(report.valid, false)
    assert.equal(compared.length, CONTEXT.length + files.length)
  })

  it('the SARIF output of the corpus is valid SARIF 2.1.0, one error result per failing object', () => {
    const schema = JSON.parse(readFileSync(join(CORPUS, 'sarif-schema-2.1.0.json'), 'utf8')) as Record<string, unknown>
    const json = JSON.parse(clientValidate(['-f', 'context', '-f', 'objects', '-o', 'json']).stdout) as { errors: number }
    const run = clientValidate(['-f', 'context', '-f', 'objects', '-o', 'sarif'])
    assert.equal(run.exit, 1, run.stderr)
    const log = JSON.parse(run.stdout)
    assert.deepEqual(validateJsonSchema(schema, log), [])
    assert.equal(log.runs[0].results.filter((r: { level: string }) => r.level === 'error').length, json.errors)
  })

  it('--warnings-as-errors turns a warning into exit 1; warnings alone exit 0', () => {
    const args = ['-f', 'context/namespaces.yaml', '-f', 'objects/deployment-baseline-warning.yaml']
    const plain = clientValidate(args)
    assert.equal(plain.exit, 0, plain.stdout + plain.stderr)
    assert.match(plain.stdout, /objects\/deployment-baseline-warning\.yaml#1: Warning: would violate PodSecurity/)
    assert.equal(clientValidate([...args, '--warnings-as-errors']).exit, 1)
  })

  it('--pod-security=restricted checks as a server whose PodSecurity default level is restricted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'validate-pss-'))
    const config = join(dir, 'admission.json')
    writeFileSync(config, podSecurityDefaults('restricted'))
    const restricted = await ApiServer.start({ waitFor: 'ready', args: [`--admission-control-config-file=${config}`] })
    try {
      const files = objectFiles('pod-security')
      const expected = new Map(files.map((f) => [f, kubectlSaid(kubectl, restricted.adminKubeconfig, ['apply', '--dry-run=server', '-f', f])]))
      const report = JSON.parse(clientValidate(['-f', 'pod-security', '--pod-security', 'restricted', '-o', 'json']).stdout) as { objects: Reported[] }
      for (const [f, said] of expected) {
        const ours = report.objects.find((o) => o.source === f)!
        assert.equal(ours.error, said.error, `${f}: the error`)
        assert.deepEqual(ours.warnings, said.warnings, `${f}: the warnings`)
      }
      assert.ok([...expected.values()].some((s) => s.error?.includes('violates PodSecurity "restricted:latest"')), 'no restricted violation in the corpus')
      assert.ok([...expected.values()].some((s) => s.error === undefined), 'no compliant object in the corpus')
    } finally {
      await restricted.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
