/**
 * EventRateLimit end to end with the real kubectl: enabled with a Server limit of burst 2
 * from the admission configuration file, the third Event created is refused with the
 * reference's 429 (`Too many requests: limit reached on type Server for key `, apimachinery's
 * NewTooManyRequestsError over eventratelimit's limitenforcer text), and a configuration the
 * reference's validation refuses stops the start-up with its field error.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startExpectingFailure } from '../../support/api-server.js'
import { KubectlSession } from '../../support/kubectl-session.js'
import { MAIN_KUBECTL } from '../../support/kubectl-versions.js'

const admissionConfig = (limit: string) =>
  [
    'apiVersion: apiserver.config.k8s.io/v1',
    'kind: AdmissionConfiguration',
    'plugins:',
    '- name: EventRateLimit',
    '  configuration:',
    '    apiVersion: eventratelimit.admission.k8s.io/v1alpha1',
    '    kind: Configuration',
    '    limits:',
    `    - ${limit}`,
    '',
  ].join('\n')

const event = (name: string) =>
  ['apiVersion: v1', 'kind: Event', `metadata: {name: ${name}, namespace: default}`, 'involvedObject: {kind: Pod, name: web, namespace: default}', 'reason: Tested', 'message: hello', 'type: Normal', ''].join('\n')

describe(`admission: EventRateLimit end to end [kubectl ${MAIN_KUBECTL.version}]`, function () {
  this.timeout(120_000)
  let session: KubectlSession
  let dir: string

  before(async function () {
    dir = mkdtempSync(join(tmpdir(), 'adm-erl-e2e-'))
    const config = join(dir, 'admission.yaml')
    // qps is at least 1: the three events go in one kubectl run, well within a second.
    writeFileSync(config, admissionConfig('{type: Server, qps: 1, burst: 2}'))
    session = await KubectlSession.open(this, 'adm-erl-', {
      waitFor: 'ready',
      kubectl: MAIN_KUBECTL.tool,
      args: ['--enable-admission-plugins=EventRateLimit', `--admission-control-config-file=${config}`],
    })
  })
  after(async () => {
    await session?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })


  it('a Server limit of burst 2 refuses the third event with 429', async () => {
    const file = session.file('events.yaml', [event('one'), event('two'), event('three')].join('---\n'))
    const r = await session.run('create', '-f', file)
    assert.equal(r.code, 1)
    assert.equal(r.stdout, 'event/one created\nevent/two created\n')
    assert.equal(r.stderr, `Error from server (TooManyRequests): error when creating "${file}": Too many requests: limit reached on type Server for key \n`)
    assert.match(await session.ok('get', 'events', '-n', 'default', '-o', 'name'), /^event\/one\nevent\/two\n$/)
  })

  it('a configuration its validation refuses stops the start-up with the field error', async () => {
    const bad = join(dir, 'bad.yaml')
    writeFileSync(bad, admissionConfig('{type: Server, qps: 1}'))
    const { code, output } = await startExpectingFailure([
      '--bind-address=127.0.0.1',
      '--secure-port=1',
      `--cert-dir=${join(dir, 'certs')}`,
      `--data-dir=${join(dir, 'data')}`,
      '--enable-admission-plugins=EventRateLimit',
      `--admission-control-config-file=${bad}`,
    ])
    assert.equal(code, 1, output)
    assert.ok(output.includes('couldn\'t init admission plugin "EventRateLimit": limits[0].burst: Invalid value: 0: must be positive'), output)
  })
})
