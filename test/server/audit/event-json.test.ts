/**
 * The event's JSON line is what JSON.stringify writes for the event's fields in the order of
 * the reference's v1 Event struct (staging/src/k8s.io/apiserver/pkg/apis/audit/v1/types.go),
 * empty ones left out; the field-by-field writer must not differ in any byte, escapes included.
 */
import assert from 'node:assert/strict'
import type { AuditEvent } from '../../../src/server/audit/event.js'
import { eventJson } from '../../../src/server/audit/event-json.js'

/** The v1 Event struct's field order. */
const STRUCT_ORDER = ['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user', 'impersonatedUser', 'sourceIPs', 'userAgent', 'objectRef', 'responseStatus', 'requestObject', 'responseObject', 'requestReceivedTimestamp', 'stageTimestamp', 'annotations'] as const

function reference(event: AuditEvent): string {
  const ordered: Record<string, unknown> = {}
  for (const name of STRUCT_ORDER) if (event[name] !== undefined) ordered[name] = event[name]
  return JSON.stringify(ordered)
}

const base: AuditEvent = {
  kind: 'Event',
  apiVersion: 'audit.k8s.io/v1',
  level: 'Metadata',
  auditID: '0b5c9f1e-2f4c-4c1d-9a55-3c1e1f2a9b7d',
  stage: 'RequestReceived',
  requestURI: '/api/v1/namespaces/default/configmaps/bench',
  verb: 'get',
  user: { username: 'bench', uid: 'bench-uid', groups: ['system:authenticated'] },
  sourceIPs: ['127.0.0.1'],
  objectRef: { resource: 'configmaps', namespace: 'default', name: 'bench', apiVersion: 'v1' },
  requestReceivedTimestamp: '2026-12-07T16:06:38.123456Z',
  stageTimestamp: '2026-12-07T16:06:38.123456Z',
}

describe('audit event JSON', () => {
  it('writes a Metadata event as JSON.stringify of its fields in struct order', () => {
    assert.equal(eventJson(base), reference(base))
  })

  it('puts fields added later (responseStatus, annotations, impersonatedUser) in struct order', () => {
    const event: AuditEvent = { ...base, stage: 'ResponseComplete' }
    event.annotations = { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': 'RBAC: allowed by "x"' }
    event.responseStatus = { metadata: {}, status: 'Failure', message: 'no\n"quotes"', reason: 'NotFound', details: { name: 'x', kind: 'configmaps' }, code: 404 }
    event.impersonatedUser = { username: 'alice', groups: ['a', 'b'], extra: { scopes: ['s1', 's2'], 'x/y': [] } }
    assert.equal(eventJson(event), reference(event))
  })

  it('escapes strings as JSON.stringify does: quotes, backslashes, control characters, lone surrogates, not U+2028 or pairs', () => {
    const odd = 'a"b\\c\n\t\u0001\u007f\u2028 😀 \ud800 é'
    const event: AuditEvent = { ...base, requestURI: `/api?x=${odd}`, userAgent: odd, user: { username: odd, groups: [odd, ''] }, objectRef: { name: odd }, annotations: { [odd]: odd } }
    assert.equal(eventJson(event), reference(event))
  })

  it('writes bodies, empty objects and lists, and leaves undefined fields out', () => {
    const event = { ...base, level: 'RequestResponse', user: {}, sourceIPs: [], objectRef: { resource: 'configmaps', name: undefined }, requestObject: { kind: 'ConfigMap', data: { k: 'v' }, n: [1, null] }, responseObject: 'text', annotations: {} } as AuditEvent
    assert.equal(eventJson(event), reference(event))
  })

  it('writes each event of a request as its own when they share the user and the request fields (stage by stage, objectRef and impersonatedUser replaced)', () => {
    const received: AuditEvent = { ...base }
    const completed: AuditEvent = { ...received, stage: 'ResponseComplete', responseStatus: { metadata: {}, code: 200 } }
    const named: AuditEvent = { ...completed, objectRef: { ...base.objectRef, uid: 'u-1', resourceVersion: '7' } }
    const impersonating: AuditEvent = { ...named, impersonatedUser: { username: 'alice' } }
    const otherRequest: AuditEvent = { ...base, auditID: 'another', requestURI: '/api/v1/namespaces/default/configmaps/other', verb: 'delete', sourceIPs: ['10.0.0.1'], userAgent: 'kubectl' }
    const sameFieldsOtherID: AuditEvent = { ...received, auditID: 'another' }
    for (const event of [received, completed, named, impersonating, otherRequest, received, sameFieldsOtherID, impersonating]) assert.equal(eventJson(event), reference(event))
  })

  it('writes every responseStatus as JSON.stringify does: the plain `{metadata: {}, code}` of each code, and any other shape', () => {
    const statuses = [
      { metadata: {}, code: 200 },
      { metadata: {}, code: 201 },
      { metadata: {}, code: 200 },
      { code: 200, metadata: {} },
      { metadata: { x: 1 }, code: 200 },
      { metadata: {}, code: 2.5 },
      { metadata: {}, status: 'Success', code: 200 },
      { metadata: {}, code: 200, details: undefined },
    ]
    for (const responseStatus of statuses) {
      const event = { ...base, stage: 'ResponseComplete', responseStatus } as AuditEvent
      assert.equal(eventJson(event), reference(event))
    }
  })

  it('writes the values it keeps (names, groups, annotations) right past any number of different ones', () => {
    for (let i = 0; i < 700; i++) {
      const event: AuditEvent = { ...base, user: { username: `user-${i % 300}`, groups: [`group-${i}`, 'system:authenticated'] }, objectRef: { resource: 'configmaps', namespace: `ns-${i}`, name: `n"${i}` }, annotations: { [`k-${i}`]: `v-${i % 3}` } }
      assert.equal(eventJson(event), reference(event))
    }
  })
})

