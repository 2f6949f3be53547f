import assert from 'node:assert/strict'
import { DenyServiceExternalIPs } from '../../../src/server/admission/deny-service-external-ips.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { attributesFor, refusal } from './table-support.js'

// The reference's network/denyserviceexternalips/admission_test.go.
const makeSvc = (...externalIPs: string[]): KubeObject => ({ kind: 'Service', metadata: { namespace: 'test-ns', name: 'test-svc' }, spec: externalIPs.length ? { externalIPs } : {} })

const CASES: Array<{ name: string; newSvc: KubeObject; oldSvc?: KubeObject; fail?: boolean }> = [
  { name: 'create: without externalIPs', newSvc: makeSvc() },
  { name: 'create: with externalIPs', newSvc: makeSvc('1.1.1.1'), fail: true },
  { name: 'update: same externalIPs', newSvc: makeSvc('1.1.1.1', '2.2.2.2'), oldSvc: makeSvc('1.1.1.1', '2.2.2.2') },
  { name: 'update: reorder externalIPs', newSvc: makeSvc('1.1.1.1', '2.2.2.2'), oldSvc: makeSvc('2.2.2.2', '1.1.1.1') },
  { name: 'update: change externalIPs', newSvc: makeSvc('1.1.1.1', '2.2.2.2'), oldSvc: makeSvc('1.1.1.1', '3.3.3.3'), fail: true },
  { name: 'update: add externalIPs', newSvc: makeSvc('1.1.1.1', '2.2.2.2'), oldSvc: makeSvc('1.1.1.1'), fail: true },
  { name: 'update: erase externalIPs', newSvc: makeSvc(), oldSvc: makeSvc('1.1.1.1', '2.2.2.2') },
  { name: 'update: reduce externalIPs from back', newSvc: makeSvc('1.1.1.1'), oldSvc: makeSvc('1.1.1.1', '2.2.2.2') },
  { name: 'update: reduce externalIPs from front', newSvc: makeSvc('2.2.2.2'), oldSvc: makeSvc('1.1.1.1', '2.2.2.2') },
]

describe('admission: DenyServiceExternalIPs', () => {
  for (const tc of CASES) {
    it(tc.name, async () => {
      const attributes = attributesFor({
        operation: tc.oldSvc ? 'UPDATE' : 'CREATE',
        kind: 'Service',
        resource: 'services',
        namespace: 'test-ns',
        name: 'test-svc',
        object: tc.newSvc,
        ...(tc.oldSvc ? { oldObject: tc.oldSvc } : {}),
      })
      const got = await refusal(new DenyServiceExternalIPs().validate(attributes))
      assert.deepEqual(got, tc.fail ? { code: 403, reason: 'Forbidden', message: 'services "test-svc" is forbidden: Use of external IPs is denied by admission control' } : undefined)
    })
  }

  it('handles creates and updates of services proper', async () => {
    const plugin = new DenyServiceExternalIPs()
    assert.deepEqual((['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const).map((op) => plugin.handles(op)), [true, true, false, false])
    assert.equal(await refusal(plugin.validate(attributesFor({ kind: 'Service', resource: 'services', subresource: 'status', object: makeSvc('1.1.1.1') }))), undefined)
  })
})
