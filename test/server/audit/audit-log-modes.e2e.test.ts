/**
 * The audit log's options end to end on the built server: rotation with the reference's
 * backup names, the legacy line format, batch mode delivering everything by shutdown,
 * truncation, a bad policy file stopping start-up, and blocking-strict surviving `kill -9`
 * with an event for every acknowledged write.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AuditEvent } from '../../../src/server/audit/event.js'
import { ApiServer, startExpectingFailure } from '../../support/api-server.js'
import { POLICY, readEvents } from './audit-log-files.js'

const configMap = (name: string, data = 'blue') => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { color: data } })
const JSON_HEADERS = { 'content-type': 'application/json' }

describe('audit log options end to end', function () {
  this.timeout(120_000)
  let dir: string
  let policy: string
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'audit-log-modes-'))
    policy = join(dir, 'policy.yaml')
    writeFileSync(policy, POLICY)
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('--audit-log-maxsize rotates to <name>-<UTC time>.<ext> backups, --audit-log-maxbackup keeps the newest', async () => {
    const logDir = join(dir, 'rotation')
    const started = Date.now()
    const server = await ApiServer.start({
      waitFor: 'ready',
      args: [`--audit-policy-file=${policy}`, `--audit-log-path=${join(logDir, 'audit.log')}`, '--audit-log-maxsize=1', '--audit-log-maxbackup=2'],
    })
    try {
      // Each create's ResponseComplete records its 300 KB config map twice (request and response).
      for (let i = 0; i < 4; i++) assert.equal((await server.get('/api/v1/namespaces/default/configmaps', JSON_HEADERS, 'POST', configMap(`big-${i}`, 'x'.repeat(300 * 1024)))).status, 201)
    } finally {
      await server.stop()
    }
    const ended = Date.now()
    const files = readdirSync(logDir).sort()
    const backups = files.filter((f) => f !== 'audit.log')
    assert.ok(files.includes('audit.log'))
    assert.equal(backups.length, 2, `two backups kept: ${files.join(', ')}`)
    for (const backup of backups) {
      const match = /^audit-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})\.log$/.exec(backup)
      assert.ok(match, `lumberjack's backup name: ${backup}`)
      const time = Date.parse(`${match[1]}T${match[2]}:${match[3]}:${match[4]}.${match[5]}Z`)
      assert.ok(time >= started - 1000 && time <= ended + 1000, `the backup's time is the rotation's, in UTC: ${backup}`)
    }
    const events = files.flatMap((f) => readEvents(join(logDir, f)))
    assert.ok(events.every((e) => e.kind === 'Event'), 'every line of every file is a whole event')
  })

  it('--audit-log-format=legacy writes the reference’s one-line text', async () => {
    const log = join(dir, 'legacy.log')
    const server = await ApiServer.start({ waitFor: 'ready', args: [`--audit-policy-file=${policy}`, `--audit-log-path=${log}`, '--audit-log-format=legacy'] })
    try {
      await server.get('/api/v1/namespaces/default/configmaps/missing', { 'user-agent': 'audit-test/1', 'audit-id': 'legacy-1' })
    } finally {
      await server.stop()
    }
    const lines = readFileSync(log, 'utf8').split('\n').filter((l) => l.includes('legacy-1'))
    const prefix = String.raw`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z AUDIT: id="legacy-1" `
    const rest = String.raw` ip="127\.0\.0\.1" method="get" user="system:admin" groups="\\"system:masters\\",\\"system:authenticated\\"" as="<self>" asgroups="<lookup>" user-agent="audit-test/1" namespace="default" uri="/api/v1/namespaces/default/configmaps/missing" response=`
    assert.equal(lines.length, 2, lines.join('\n'))
    assert.match(lines[0]!, new RegExp(`${prefix}stage="RequestReceived"${rest}"<deferred>"$`))
    assert.match(lines[1]!, new RegExp(`${prefix}stage="ResponseComplete"${rest}"404"$`))
  })

  it('batch mode: requests never wait, and shutdown delivers every buffered event; truncation drops bodies first, then events', async () => {
    const log = join(dir, 'batch.log')
    const server = await ApiServer.start({
      waitFor: 'ready',
      args: [
        `--audit-policy-file=${policy}`,
        `--audit-log-path=${log}`,
        '--audit-log-mode=batch',
        '--audit-log-batch-max-size=50',
        '--audit-log-batch-max-wait=60s',
        '--audit-log-truncate-enabled',
        '--audit-log-truncate-max-event-size=4000',
      ],
    })
    try {
      for (let i = 0; i < 5; i++) assert.equal((await server.get('/api/v1/namespaces/default/configmaps', { ...JSON_HEADERS, 'audit-id': `batch-${i}` }, 'POST', configMap(`b-${i}`))).status, 201)
      // Over 4000 bytes with its bodies, under without them.
      await server.get('/api/v1/namespaces/default/configmaps', { ...JSON_HEADERS, 'audit-id': 'huge' }, 'POST', configMap('big', 'x'.repeat(5000)))
      // Over 4000 bytes even without bodies (its URI): dropped, and counted.
      await server.get(`/api/v1/namespaces/default/configmaps?labelSelector=${'a'.repeat(4000)}`, { 'audit-id': 'too-big' })
      assert.equal(readFileSync(log, 'utf8'), '', 'a partial batch waits (max wait 60 s)')
      const metrics = (await server.get('/metrics')).body
      assert.match(metrics, /^apiserver_audit_error_total\{plugin="truncate"\} 2$/m, 'both events of the request too big are counted')
    } finally {
      await server.stop()
    }
    const events = readEvents(log)
    for (let i = 0; i < 5; i++) {
      const mine = events.filter((e) => e.auditID === `batch-${i}`)
      assert.deepEqual(mine.map((e) => e.stage), ['RequestReceived', 'ResponseComplete'], `batch-${i}`)
      assert.deepEqual((mine[1]!.requestObject as { data: unknown }).data, { color: 'blue' }, 'small enough: kept whole')
    }
    const big = events.filter((e) => e.auditID === 'huge')
    assert.equal(big.length, 2, 'the big events lost their bodies instead of being dropped')
    assert.deepEqual(events.filter((e) => e.auditID === 'too-big'), [], 'too big even without bodies: dropped')
    const complete = big.find((e) => e.stage === 'ResponseComplete')!
    assert.equal(complete.annotations?.['audit.k8s.io/truncated'], 'true')
    assert.equal(complete.requestObject, undefined)
    assert.equal(complete.responseObject, undefined)
  })

  it('a policy file the reference refuses stops start-up, naming the file', async () => {
    const bad = join(dir, 'bad-policy.yaml')
    writeFileSync(bad, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  nonResourceURLs: ["logs"]\n')
    const { code, output } = await startExpectingFailure([
      '--bind-address=127.0.0.1',
      '--secure-port=1',
      `--cert-dir=${join(dir, 'certs')}`,
      `--data-dir=${join(dir, 'data')}`,
      `--audit-policy-file=${bad}`,
      `--audit-log-path=${join(dir, 'never.log')}`,
    ])
    assert.notEqual(code, 0)
    assert.match(output, new RegExp(`loading audit policy file: rules\\[0\\]\\.nonResourceURLs\\[0\\]: Invalid value: "logs": non-resource URL rules must begin with a '/' character: from file ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`))
  })

  it('blocking-strict and kill -9 during a write load: every acknowledged write has its events in the log', async () => {
    const log = join(dir, 'strict.log')
    const server = await ApiServer.start({ waitFor: 'ready', args: [`--audit-policy-file=${policy}`, `--audit-log-path=${log}`, '--audit-log-mode=blocking-strict'] })
    const acknowledged: string[] = []
    let sent = 0
    let stop = false
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const id = `w${w}-${i}`
        sent++
        try {
          const reply = await server.get('/api/v1/namespaces/default/configmaps', { ...JSON_HEADERS, 'audit-id': id }, 'POST', configMap(id))
          if (reply.status === 201) acknowledged.push(id)
        } catch {
          return // the server is gone
        }
      }
    }
    const writers = [0, 1, 2, 3].map(writer)
    while (acknowledged.length < 40) await new Promise((r) => setTimeout(r, 20))
    server.signal('SIGKILL')
    await server.waitForExit()
    stop = true
    await Promise.all(writers)
    await server.stop()
    const events: AuditEvent[] = readEvents(log)
    const received = new Set(events.filter((e) => e.stage === 'RequestReceived').map((e) => e.auditID))
    const completed = new Set(events.filter((e) => e.stage === 'ResponseComplete').map((e) => e.auditID))
    const missing = acknowledged.filter((id) => !received.has(id))
    assert.deepEqual(missing, [], `${acknowledged.length} acknowledged of ${sent} sent; ${received.size} RequestReceived, ${completed.size} ResponseComplete`)
    // A write's ResponseComplete is written when its response is over, so nearly all acknowledged ones have it too.
    assert.ok(acknowledged.filter((id) => completed.has(id)).length >= acknowledged.length - 4)
  })
})
