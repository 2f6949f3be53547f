/**
 * The audit log end to end with the real kubectl (1.35 and 1.32): a server started with the
 * issue's policy (secrets at Metadata, config maps at RequestResponse, nodes ignored) and
 * `--audit-log-path`. `kubectl create secret`, `kubectl apply` of a config map and
 * `kubectl get -w` produce the events the reference's filter makes, checked field by field on
 * the JSON lines as `jq` would read them: one RequestReceived and one ResponseComplete per
 * request (with ResponseStarted between them for the watch), the user, the source, the
 * object's reference, the status, the bodies per level and the authorization decision.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AuditEvent } from '../../../src/server/audit/event.js'
import { describeEachKubectl } from '../../support/kubectl-versions.js'
import { KubectlSession } from '../../support/kubectl-session.js'
import { until } from '../../support/until.js'
import { makeCa, makeClientCert } from '../authentication/helpers.js'
import { POLICY, readEvents } from './audit-log-files.js'

/** MicroTime as the reference encodes it. */
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/

/** The events of each request, by audit ID, in the order their first event was written. */
function byRequest(events: AuditEvent[]): AuditEvent[][] {
  const requests = new Map<string, AuditEvent[]>()
  for (const event of events) requests.set(event.auditID, [...(requests.get(event.auditID) ?? []), event])
  return [...requests.values()]
}

/** What every event of a request shares, as the reference's LogRequestMetadata fills it. */
function assertRequestMetadata(events: AuditEvent[], verb: string, uri: RegExp, kubectlMinor: number): void {
  const first = events[0]!
  for (const event of events) {
    assert.equal(event.kind, 'Event')
    assert.equal(event.apiVersion, 'audit.k8s.io/v1')
    assert.equal(event.auditID, first.auditID)
    assert.match(event.auditID, /^[0-9a-f-]{36}$/)
    assert.equal(event.verb, verb)
    assert.match(event.requestURI, uri)
    // The x509 authenticator names the certificate it took (the reference's credential ID).
    const credential = event.user.extra?.['authentication.kubernetes.io/credential-id']
    assert.deepEqual(event.user, { username: 'system:admin', groups: ['system:masters', 'system:authenticated'], extra: { 'authentication.kubernetes.io/credential-id': credential } })
    assert.match(credential?.[0] ?? '', /^X509SHA256=[0-9a-f]{64}$/)
    assert.equal(event.impersonatedUser, undefined)
    assert.deepEqual(event.sourceIPs, ['127.0.0.1'])
    assert.match(event.userAgent ?? '', new RegExp(`^kubectl[^/]*/v1\\.${kubectlMinor}\\.`))
    assert.match(event.requestReceivedTimestamp, MICRO_TIME)
    assert.match(event.stageTimestamp, MICRO_TIME)
    assert.equal(event.requestReceivedTimestamp, first.requestReceivedTimestamp)
    assert.ok(event.stageTimestamp >= event.requestReceivedTimestamp)
  }
  // RequestReceived is stamped with the time the request arrived.
  assert.equal(first.stage, 'RequestReceived')
  assert.equal(first.stageTimestamp, first.requestReceivedTimestamp)
  assert.equal(first.responseStatus, undefined)
  assert.equal(first.annotations, undefined)
}

/** The authorization decision the reference's filter annotates (RBAC allows system:masters). */
function assertAllowed(event: AuditEvent): void {
  assert.equal(event.annotations?.['authorization.k8s.io/decision'], 'allow')
  assert.equal(typeof event.annotations?.['authorization.k8s.io/reason'], 'string')
}

describeEachKubectl('audit log with the real kubectl', function (kubectl) {
  this.timeout(120_000)
  let dir: string
  let session: KubectlSession
  let logPath: string

  before(async function () {
    dir = mkdtempSync(join(tmpdir(), 'audit-log-e2e-'))
    const ca = await makeCa('node-ca')
    writeFileSync(join(dir, 'client-ca.crt'), ca.certPem)
    writeFileSync(join(dir, 'policy.yaml'), POLICY)
    logPath = join(dir, 'audit', 'audit.log')
    session = await KubectlSession.open(this, 'audit-log-kubectl-', {
      waitFor: 'ready',
      kubectl: kubectl.tool,
      args: [`--audit-policy-file=${join(dir, 'policy.yaml')}`, `--audit-log-path=${logPath}`, `--client-ca-file=${join(dir, 'client-ca.crt')}`],
    })
    // A node's request matches the first rule: level None, no event.
    const node = await makeClientCert(ca, 'system:node:n1', ['system:nodes'])
    await session.server.get('/api/v1/namespaces/default/configmaps', {}, 'GET', undefined, node)
  })

  after(async () => {
    await session?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('kubectl create secret: RequestReceived and ResponseComplete at Metadata, no bodies', async () => {
    const before = readEvents(logPath).length
    await session.ok('create', 'secret', 'generic', 's1', '--from-literal=password=hunter2')
    const events = readEvents(logPath).slice(before)
    const requests = byRequest(events)
    assert.equal(requests.length, 1, `one audited request (secrets), got ${JSON.stringify(events)}`)
    const [received, complete, ...more] = requests[0]!
    assert.deepEqual(more, [])
    assertRequestMetadata([received!, complete!], 'create', /^\/api\/v1\/namespaces\/default\/secrets\?/, kubectl.minor)
    assert.equal(received!.level, 'Metadata')
    assert.deepEqual(received!.objectRef, { resource: 'secrets', namespace: 'default', apiVersion: 'v1' })
    assert.equal(complete!.stage, 'ResponseComplete')
    assert.equal(complete!.level, 'Metadata')
    // The name comes from the request's object (LogRequestObject), as the reference's.
    assert.deepEqual(complete!.objectRef, { resource: 'secrets', namespace: 'default', name: 's1', apiVersion: 'v1' })
    assert.deepEqual(complete!.responseStatus, { metadata: {}, code: 201 })
    assert.equal(complete!.requestObject, undefined, 'Metadata records no request body')
    assert.equal(complete!.responseObject, undefined, 'Metadata records no response body')
    assertAllowed(complete!)
    assert.doesNotMatch(readFileSync(logPath, 'utf8'), /hunter2|aHVudGVyMg/, 'the secret never reaches the log')
  })

  it('kubectl apply of a config map: the lookup (404) and the create at RequestResponse, with both bodies', async () => {
    const before = readEvents(logPath).length
    const file = session.file('cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\ndata:\n  color: blue\n')
    await session.ok('apply', '-f', file)
    const requests = byRequest(readEvents(logPath).slice(before))
    const get = requests.find((r) => r[0]!.verb === 'get')!
    const create = requests.find((r) => r[0]!.verb === 'create')!
    assert.deepEqual(
      requests.map((r) => r[0]!.verb),
      ['get', 'create'],
      'kubectl apply looks the object up, then creates it',
    )

    assertRequestMetadata(get, 'get', /^\/api\/v1\/namespaces\/default\/configmaps\/cm1$/, kubectl.minor)
    assert.deepEqual(get.map((e) => e.stage), ['RequestReceived', 'ResponseComplete'])
    const notFound = get[1]!
    assert.equal(notFound.level, 'RequestResponse')
    assert.deepEqual(notFound.objectRef, { resource: 'configmaps', namespace: 'default', name: 'cm1', apiVersion: 'v1' })
    assert.deepEqual(notFound.responseStatus, {
      metadata: {},
      status: 'Failure',
      message: 'configmaps "cm1" not found',
      reason: 'NotFound',
      details: { name: 'cm1', kind: 'configmaps' },
      code: 404,
    })
    assert.equal((notFound.responseObject as { kind?: string }).kind, 'Status')

    assertRequestMetadata(create, 'create', /^\/api\/v1\/namespaces\/default\/configmaps\?/, kubectl.minor)
    assert.deepEqual(create.map((e) => e.stage), ['RequestReceived', 'ResponseComplete'])
    const created = create[1]!
    assert.deepEqual(created.responseStatus, { metadata: {}, code: 201 })
    const request = created.requestObject as { kind: string; metadata: { name: string; annotations: Record<string, string> }; data: Record<string, string> }
    assert.equal(request.kind, 'ConfigMap')
    assert.deepEqual(request.data, { color: 'blue' })
    assert.match(request.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']!, /"color":"blue"/)
    const response = created.responseObject as { metadata: { uid: string; resourceVersion: string; creationTimestamp: string }; data: Record<string, string> }
    assert.deepEqual(response.data, { color: 'blue' })
    assert.match(response.metadata.uid, /^[0-9a-f-]{36}$/)
    assert.ok(response.metadata.resourceVersion)
    assert.equal(create[0]!.requestObject, undefined, 'RequestReceived comes before the body is read')
    assertAllowed(created)
  })

  it('kubectl apply of a change: the patch is the request object', async () => {
    const before = readEvents(logPath).length
    const file = session.file('cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\ndata:\n  color: green\n')
    await session.ok('apply', '-f', file)
    const requests = byRequest(readEvents(logPath).slice(before))
    const patch = requests.find((r) => r[0]!.verb === 'patch')
    assert.ok(patch, `a patch among ${requests.map((r) => r[0]!.verb).join(',')}`)
    const complete = patch.at(-1)!
    assert.equal(complete.stage, 'ResponseComplete')
    assert.deepEqual(complete.responseStatus, { metadata: {}, code: 200 })
    assert.deepEqual((complete.requestObject as { data?: unknown }).data, { color: 'green' })
    assert.deepEqual((complete.responseObject as { data?: unknown }).data, { color: 'green' })
  })

  it('an apply patch sent as YAML: the request object is the patch converted to JSON', async () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-yaml\ndata:\n  color: blue # a YAML comment\n  size: "3"\n'
    const headers = { 'content-type': 'application/apply-patch+yaml', 'audit-id': 'apply-yaml-1' }
    const reply = await session.server.get('/api/v1/namespaces/default/configmaps/cm-yaml?fieldManager=test', headers, 'PATCH', yaml)
    assert.equal(reply.status, 201, reply.body)
    const complete = readEvents(logPath).find((e) => e.auditID === 'apply-yaml-1' && e.stage === 'ResponseComplete')!
    assert.deepEqual(complete.requestObject, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-yaml' }, data: { color: 'blue', size: '3' } })
  })

  it('kubectl get -w: the watch has ResponseStarted when its headers go, ResponseComplete when it ends', async () => {
    const before = readEvents(logPath).length
    const child = spawn(session.kubectl, [...session.base, 'get', 'configmaps', '-w', '--request-timeout=0'], { env: { ...process.env, HOME: session.tmp } })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    try {
      await until('the watch to start', () => (/cm1/.test(out) && readEvents(logPath).slice(before).some((e) => e.verb === 'watch' && e.stage === 'ResponseStarted') ? true : undefined), 30_000)
    } finally {
      child.kill('SIGTERM')
    }
    await until('the watch to end', () => (readEvents(logPath).slice(before).some((e) => e.verb === 'watch' && e.stage === 'ResponseComplete') ? true : undefined), 30_000)
    const watch = byRequest(readEvents(logPath).slice(before)).find((r) => r[0]!.verb === 'watch')!
    assertRequestMetadata(watch, 'watch', /^\/api\/v1\/namespaces\/default\/configmaps\?.*watch=true/, kubectl.minor)
    assert.deepEqual(watch.map((e) => e.stage), ['RequestReceived', 'ResponseStarted', 'ResponseComplete'])
    assert.deepEqual(watch[1]!.responseStatus, { metadata: {}, code: 200 })
    assert.equal(watch[2]!.responseObject, undefined, 'a watch stream is no response object')
  })

  it('a forbidden request: the decision forbid and the 403 Status', async () => {
    assert.equal((await session.server.get('/api/v1/namespaces/default/configmaps/cm1', { 'audit-id': 'anonymous-1' }, 'GET', undefined, 'anonymous')).status, 403)
    const events = readEvents(logPath).filter((e) => e.auditID === 'anonymous-1')
    assert.deepEqual(events.map((e) => e.stage), ['RequestReceived', 'ResponseComplete'])
    const complete = events[1]!
    assert.deepEqual(complete.user, { username: 'system:anonymous', groups: ['system:unauthenticated'] })
    assert.equal(complete.annotations?.['authorization.k8s.io/decision'], 'forbid')
    assert.deepEqual(complete.responseStatus, {
      metadata: {},
      status: 'Failure',
      message: 'configmaps "cm1" is forbidden: User "system:anonymous" cannot get resource "configmaps" in API group "" in the namespace "default"',
      reason: 'Forbidden',
      details: { name: 'cm1', kind: 'configmaps' },
      code: 403,
    })
  })

  it('a request authentication refuses: one ResponseStarted event with the 401, no user, the methods tried', async () => {
    const headers = { authorization: 'Bearer not-a-token', 'audit-id': 'unauthenticated-1' }
    assert.equal((await session.server.get('/api/v1/namespaces/default/configmaps/cm1', headers, 'GET', undefined, 'anonymous')).status, 401)
    const events = readEvents(logPath).filter((e) => e.auditID === 'unauthenticated-1')
    // The reference's WithFailedAuthenticationAudit: its failed handler's writer makes only the ResponseStarted event.
    assert.deepEqual(events.map((e) => e.stage), ['ResponseStarted'])
    const [event] = events
    assert.equal(event!.level, 'RequestResponse')
    assert.equal(event!.verb, 'get')
    assert.deepEqual(event!.user, {})
    assert.deepEqual(event!.objectRef, { resource: 'configmaps', namespace: 'default', name: 'cm1', apiVersion: 'v1' })
    assert.deepEqual(event!.responseStatus, { metadata: {}, message: 'Authentication failed, attempted: bearer', code: 401 })
    assert.equal(event!.annotations, undefined)
  })

  it("a node's requests are not audited (level None)", () => {
    const events = readEvents(logPath)
    assert.ok(events.length > 0)
    assert.ok(events.every((e) => !e.user.groups?.includes('system:nodes')))
  })

  it('/metrics counts the events, the levels and no error', async () => {
    const metrics = (await session.server.get('/metrics')).body
    const value = (pattern: RegExp) => Number(pattern.exec(metrics)?.[1] ?? NaN)
    assert.ok(value(/^apiserver_audit_event_total (\d+)$/m) >= readEvents(logPath).length)
    assert.ok(value(/^apiserver_audit_level_total\{level="None"\} (\d+)$/m) >= 1)
    assert.ok(value(/^apiserver_audit_level_total\{level="Metadata"\} (\d+)$/m) >= 1)
    assert.ok(value(/^apiserver_audit_level_total\{level="RequestResponse"\} (\d+)$/m) >= 4)
    assert.doesNotMatch(metrics, /^apiserver_audit_error_total\{/m)
    assert.match(metrics, /^apiserver_audit_requests_rejected_total 0$/m)
  })
})
