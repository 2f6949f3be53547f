import assert from 'node:assert/strict'
import { flowControlConfiguration } from '../../../src/server/api/bootstrap/flowcontrol.js'
import { type FlowObject, classify, flowConfigurationCache } from '../../../src/server/flowcontrol/flow-schemas.js'
import { resolveRequestInfo } from '../../../src/server/http/request-info.js'
import type { RequestContext } from '../../../src/server/http/types.js'

/** The bootstrap configuration, each object with a uid naming it. */
function configuration(): { schemas: FlowObject[]; levels: FlowObject[] } {
  const objects = flowControlConfiguration().map((b) => b.object as unknown as FlowObject & { kind: string })
  for (const o of objects) o.metadata.uid = `${o.kind}/${o.metadata.name!}`
  return { schemas: objects.filter((o) => o.kind === 'FlowSchema'), levels: objects.filter((o) => o.kind === 'PriorityLevelConfiguration') }
}

function ctx(method: string, path: string, user: { name: string; groups: string[] }): RequestContext {
  const url = new URL(path, 'https://x')
  return { receivedAt: 0, auditId: 'a', url, info: resolveRequestInfo(method, url), user }
}

const schemaOf = (c: { schemas: FlowObject[]; levels: FlowObject[] }, method: string, path: string, user: { name: string; groups: string[] }) => {
  const found = classify(c.schemas, c.levels, ctx(method, path, user))
  return found && `${found.schema.name}->${found.level.name}`
}

describe('server: APF classification by the FlowSchemas', () => {
  const anonymous = { name: 'system:anonymous', groups: ['system:unauthenticated'] }
  const alice = { name: 'alice', groups: ['system:authenticated'] }

  it('the bootstrap configuration: the reference mandatory and suggested objects, every schema naming an existing level', () => {
    const c = configuration()
    assert.deepEqual(c.levels.map((l) => l.metadata.name).sort(), ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low'])
    assert.equal(c.schemas.length, 13)
    for (const s of c.schemas) assert.ok(c.levels.some((l) => l.metadata.name === (s.spec as { priorityLevelConfiguration: { name: string } }).priorityLevelConfiguration.name), s.metadata.name)
  })

  it('first match by precedence: masters exempt, probes exempt, nodes, service accounts, everyone else global-default', () => {
    const c = configuration()
    assert.equal(schemaOf(c, 'GET', '/api/v1/pods', { name: 'root', groups: ['system:masters', 'system:authenticated'] }), 'exempt->exempt')
    assert.equal(schemaOf(c, 'GET', '/readyz', anonymous), 'probes->exempt')
    assert.equal(schemaOf(c, 'POST', '/readyz', anonymous), 'global-default->global-default')
    assert.equal(schemaOf(c, 'GET', '/api/v1/namespaces/default/pods', alice), 'global-default->global-default')
    assert.equal(schemaOf(c, 'PUT', '/api/v1/nodes/n1/status', { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] }), 'system-node-high->node-high')
    assert.equal(schemaOf(c, 'GET', '/api/v1/namespaces/default/pods', { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] }), 'system-nodes->system')
    assert.equal(schemaOf(c, 'GET', '/api/v1/pods', { name: 'system:serviceaccount:kube-system:foo', groups: ['system:serviceaccounts', 'system:authenticated'] }), 'kube-system-service-accounts->workload-high')
    assert.equal(schemaOf(c, 'GET', '/api/v1/pods', { name: 'system:serviceaccount:apps:ci', groups: ['system:serviceaccounts', 'system:authenticated'] }), 'service-accounts->workload-low')
    assert.equal(
      schemaOf(c, 'PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler', { name: 'system:kube-scheduler', groups: ['system:authenticated'] }),
      'system-leader-election->leader-election',
    )
  })

  it('a user schema with a lower precedence wins; one naming a missing level is skipped', () => {
    const c = configuration()
    const mine = (name: string, level: string): FlowObject => ({
      metadata: { name, uid: name },
      spec: { priorityLevelConfiguration: { name: level }, matchingPrecedence: 500, rules: [{ subjects: [{ kind: 'User', user: { name: 'alice' } }], resourceRules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'], namespaces: ['*'] }] }] },
    })
    const withMine = { schemas: [...c.schemas, mine('alice-pods', 'workload-low')], levels: c.levels }
    assert.equal(schemaOf(withMine, 'GET', '/api/v1/namespaces/default/pods', alice), 'alice-pods->workload-low')
    assert.equal(schemaOf(withMine, 'GET', '/api/v1/namespaces/default/pods/p1', alice), 'global-default->global-default')
    const dangling = { schemas: [...c.schemas, mine('alice-dangling', 'nowhere')], levels: c.levels }
    assert.equal(schemaOf(dangling, 'GET', '/api/v1/namespaces/default/pods', alice), 'global-default->global-default')
  })

  it('the configuration is re-read at most once per interval', async () => {
    let reads = 0
    let t = 0
    const cache = flowConfigurationCache(async () => {
      reads++
      return { schemas: [], levels: [] }
    }, 1000, () => t)
    await cache()
    await cache()
    assert.equal(reads, 1)
    t = 1500
    await cache()
    assert.equal(reads, 2)
  })
  it('with a watch on the configuration it is re-read only after a change, an invalidation or while polled', async () => {
    let reads = 0
    let t = 0
    let changed: () => void = () => undefined
    let ended: () => void = () => undefined
    let opens = 0
    let polling = false
    const cache = flowConfigurationCache(
      async () => {
        reads++
        return { schemas: [], levels: [] }
      },
      1000,
      () => t,
      {
        changes: async (onChange, onEnd) => {
          opens++
          changed = onChange
          ended = onEnd
        },
        poll: () => polling,
      },
    )
    const tick = async (ms: number) => {
      t += ms
      await cache()
      await new Promise((r) => setImmediate(r))
    }
    await tick(0)
    assert.equal(reads, 1)
    // Established after the first read began: one more read covers what happened before it.
    await tick(1000)
    assert.equal(reads, 2)
    await tick(1000)
    await tick(1000)
    assert.equal(reads, 2, 'no change, no read')
    changed()
    await tick(10)
    assert.equal(reads, 3, 'a change: read again')
    changed()
    await tick(10)
    assert.equal(reads, 3, 'at most once per interval')
    await tick(1000)
    assert.equal(reads, 4)
    await tick(1000)
    assert.equal(reads, 4)
    cache.invalidate()
    await tick(1000)
    assert.equal(reads, 5)
    polling = true
    await tick(1000)
    await tick(1000)
    assert.equal(reads, 7, 'polled every interval')
    polling = false
    await tick(1000)
    assert.equal(reads, 7)
    // The watch ends: polled again, and a new watch opened.
    assert.equal(opens, 1)
    ended()
    await tick(1000)
    assert.equal(reads, 8)
    assert.equal(opens, 2)
    await tick(1000)
    await tick(1000)
    assert.equal(reads, 9, 'the read after the new watch was established, then none')
  })

  it('without a watch (it cannot be opened) the configuration is read every interval', async () => {
    let reads = 0
    let t = 0
    let opens = 0
    const cache = flowConfigurationCache(
      async () => {
        reads++
        return { schemas: [], levels: [] }
      },
      1000,
      () => t,
      {
        changes: async () => {
          opens++
          throw new Error('the store is not open yet')
        },
      },
    )
    for (let i = 0; i < 4; i++) {
      await cache()
      await new Promise((r) => setImmediate(r))
      t += 1000
    }
    assert.equal(reads, 4)
    assert.equal(opens, 4)
  })
})
