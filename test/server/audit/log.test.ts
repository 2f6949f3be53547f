/**
 * The log backend, after the reference's plugin/pkg/audit/log/backend_test.go: the legacy
 * line of each of its events matches its expression; a JSON line decodes back to the event;
 * a line that cannot be written is reported and refused.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import type { AuditEvent } from '../../../src/server/audit/event.js'
import { LOG_PLUGIN, LogBackend, type LineWriter } from '../../../src/server/audit/log.js'

function buffer(): LineWriter & { text: string } {
  const out = { text: '', write: (line: string) => void (out.text += line), close: async () => {} }
  return out
}

const noErrors = () => assert.fail('no plugin error expected')

const events = (): { event: Partial<AuditEvent>; expected: string }[] => [
  {
    event: { auditID: randomUUID() },
    expected: String.raw`[\d\:\-\.\+TZ]+ AUDIT: id="[\w-]+" stage="" ip="<unknown>" method="" user="<none>" groups="<none>" as="<self>" asgroups="<lookup>" user-agent="" namespace="<none>" uri="" response="<deferred>"`,
  },
  {
    event: {
      responseStatus: { metadata: {}, code: 200 },
      requestURI: '/apis/rbac.authorization.k8s.io/v1/roles',
      sourceIPs: ['127.0.0.1'],
      requestReceivedTimestamp: '2025-01-02T03:04:05.678901Z',
      auditID: randomUUID(),
      stage: 'RequestReceived',
      verb: 'get',
      user: { username: 'admin', groups: ['system:masters', 'system:authenticated'] },
      userAgent: 'kube-admin',
      objectRef: { namespace: 'default' },
    },
    expected: String.raw`[\d\:\-\.\+TZ]+ AUDIT: id="[\w-]+" stage="RequestReceived" ip="127.0.0.1" method="get" user="admin" groups="\\"system:masters\\",\\"system:authenticated\\"" as="<self>" asgroups="<lookup>" user-agent="kube-admin" namespace="default" uri="/apis/rbac.authorization.k8s.io/v1/roles" response="200"`,
  },
  {
    event: { auditID: randomUUID(), level: 'Metadata', objectRef: { resource: 'foo', apiVersion: 'v1', subresource: 'bar' } },
    expected: String.raw`[\d\:\-\.\+TZ]+ AUDIT: id="[\w-]+" stage="" ip="<unknown>" method="" user="<none>" groups="<none>" as="<self>" asgroups="<lookup>" user-agent="" namespace="<none>" uri="" response="<deferred>"`,
  },
]

describe('audit log backend (backend_test.go)', () => {
  it('TestLogEventsLegacy: one line per event, matching the reference', () => {
    for (const { event, expected } of events()) {
      const out = buffer()
      new LogBackend(out, 'legacy', noErrors).processEvents(event as AuditEvent)
      assert.match(out.text, new RegExp(expected))
      assert.ok(out.text.endsWith('\n') && out.text.split('\n').length === 2)
    }
  })

  it('legacy: the time is RFC 3339 with the fraction as Go prints it, impersonation as as/asgroups', () => {
    const out = buffer()
    const event = { ...events()[1]!.event, impersonatedUser: { username: 'bob', groups: ['devs'] } } as AuditEvent
    new LogBackend(out, 'legacy', noErrors).processEvents(event)
    assert.match(out.text, /^2025-01-02T03:04:05\.678901Z AUDIT: /)
    assert.match(out.text, / as="bob" asgroups="\\"devs\\"" /)
  })

  it('TestLogEventsJson: each line decodes back to its event', () => {
    for (const { event } of events()) {
      const out = buffer()
      new LogBackend(out, 'json', noErrors).processEvents(event as AuditEvent)
      assert.deepEqual(JSON.parse(out.text), event)
      assert.equal(out.text.split('\n').length, 2)
    }
  })

  it('json: the fields in the order of the reference’s Event type', () => {
    const out = buffer()
    const event = { stageTimestamp: 't', responseStatus: { metadata: {}, code: 200 }, auditID: 'a', kind: 'Event', annotations: { k: 'v' }, user: {} } as unknown as AuditEvent
    new LogBackend(out, 'json', noErrors).processEvents(event)
    assert.deepEqual(Object.keys(JSON.parse(out.text)), ['kind', 'auditID', 'user', 'responseStatus', 'stageTimestamp', 'annotations'])
  })

  it('a line that cannot be written is reported for the log plugin and refused', () => {
    const failing: LineWriter = {
      write: () => {
        throw new Error('no space left on device')
      },
      close: async () => {},
    }
    const reported: string[] = []
    const backend = new LogBackend(failing, 'json', (plugin, error, impacted) => reported.push(`${plugin}: ${error} (${impacted.length})`))
    assert.equal(backend.processEvents({ auditID: 'a' } as AuditEvent, { auditID: 'b' } as AuditEvent), false)
    assert.deepEqual(reported, [`${LOG_PLUGIN}: no space left on device (1)`, `${LOG_PLUGIN}: no space left on device (1)`])
  })
})
