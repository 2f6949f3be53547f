import assert from 'node:assert/strict'
import { EventRateLimit } from '../../../src/server/admission/eventratelimit/admission.js'
import { LruCache, SingleCache } from '../../../src/server/admission/eventratelimit/cache.js'
import { loadConfiguration, readConfiguration, validateConfiguration } from '../../../src/server/admission/eventratelimit/config.js'
import { TokenBucket } from '../../../src/server/admission/eventratelimit/token-bucket.js'
import type { AdmissionAttributes } from '../../../src/server/admission/attributes.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { attributesFor, refusal } from './table-support.js'

// The reference's eventratelimit/admission_test.go (TestEventRateLimiting): qps 1, a fake
// clock stepped by `delay` seconds before a request.
interface Request {
  kind?: string
  namespace?: string
  username?: string
  event?: Record<string, unknown>
  delay?: number
  blocked?: boolean
  dryRun?: boolean
}

interface Case {
  name: string
  serverBurst?: number
  namespaceBurst?: number
  namespaceCacheSize?: number
  sourceAndObjectBurst?: number
  sourceAndObjectCacheSize?: number
  userBurst?: number
  userCacheSize?: number
  requests: Request[]
}

const ev = (over: Request = {}): Request => ({ kind: 'Event', ...over })
const nonEvent = (): Request => ({ kind: 'NonEvent' })
const ns = (namespace: string, blocked = false): Request => ev({ namespace, blocked })
const component = (c: string, blocked = false): Request => ev({ event: { source: { component: c } }, blocked })
const user = (username: string, blocked = false): Request => ev({ username, blocked })
/** createSourceAndObjectKeyInclusionRequests. */
const inclusion = (make: (label: string) => Record<string, unknown>): Request[] => [ev({ event: make('A') }), ev({ event: make('A'), blocked: true }), ev({ event: make('B') })]

const CASES: Case[] = [
  { name: 'event not blocked when tokens available', serverBurst: 3, requests: [ev()] },
  { name: 'non-event not blocked', serverBurst: 3, requests: [nonEvent()] },
  { name: 'event blocked after tokens exhausted', serverBurst: 3, requests: [ev(), ev(), ev(), ev({ blocked: true })] },
  {
    name: 'event not blocked by dry-run requests',
    serverBurst: 3,
    requests: [ev(), ev(), ev({ dryRun: true }), ev({ dryRun: true }), ev({ dryRun: true }), ev({ dryRun: true }), ev(), ev({ blocked: true }), ev({ dryRun: true })],
  },
  { name: 'non-event not blocked after tokens exhausted', serverBurst: 3, requests: [ev(), ev(), ev(), nonEvent()] },
  { name: 'non-events should not count against limit', serverBurst: 3, requests: [ev(), ev(), nonEvent(), ev()] },
  { name: 'event accepted after token refill', serverBurst: 3, requests: [ev(), ev(), ev(), ev({ blocked: true }), ev({ delay: 1 })] },
  { name: 'event blocked by namespace limits', serverBurst: 100, namespaceBurst: 3, namespaceCacheSize: 10, requests: [ns('A'), ns('A'), ns('A'), ns('A', true)] },
  { name: 'event from other namespace not blocked', serverBurst: 100, namespaceBurst: 3, namespaceCacheSize: 10, requests: [ns('A'), ns('A'), ns('A'), ns('B')] },
  { name: 'events from other namespaces should not count against limit', serverBurst: 100, namespaceBurst: 3, namespaceCacheSize: 10, requests: [ns('A'), ns('A'), ns('B'), ns('A')] },
  {
    name: 'event accepted after namespace token refill',
    serverBurst: 100,
    namespaceBurst: 3,
    namespaceCacheSize: 10,
    requests: [ns('A'), ns('A'), ns('A'), ns('A', true), ev({ namespace: 'A', delay: 1 })],
  },
  { name: 'event from other namespaces should not clear namespace limits', serverBurst: 100, namespaceBurst: 3, namespaceCacheSize: 10, requests: [ns('A'), ns('A'), ns('A'), ns('B'), ns('A', true)] },
  {
    name: 'namespace limits from lru namespace should clear when cache size exceeded',
    serverBurst: 100,
    namespaceBurst: 3,
    namespaceCacheSize: 2,
    // The request for C evicts B from the cache.
    requests: [ns('A'), ns('A'), ns('B'), ns('B'), ns('B'), ns('A'), ns('B', true), ns('A', true), ns('C'), ns('A', true), ns('B')],
  },
  { name: 'event blocked by source+object limits', serverBurst: 100, sourceAndObjectBurst: 3, sourceAndObjectCacheSize: 10, requests: [component('A'), component('A'), component('A'), component('A', true)] },
  { name: 'event from other source+object not blocked', serverBurst: 100, sourceAndObjectBurst: 3, sourceAndObjectCacheSize: 10, requests: [component('A'), component('A'), component('A'), component('B')] },
  { name: 'events from other source+object should not count against limit', serverBurst: 100, sourceAndObjectBurst: 3, sourceAndObjectCacheSize: 10, requests: [component('A'), component('A'), component('B'), component('A')] },
  {
    name: 'event accepted after source+object token refill',
    serverBurst: 100,
    sourceAndObjectBurst: 3,
    sourceAndObjectCacheSize: 10,
    requests: [component('A'), component('A'), component('A'), component('A', true), ev({ event: { source: { component: 'A' } }, delay: 1 })],
  },
  {
    name: 'event from other source+object should not clear source+object limits',
    serverBurst: 100,
    sourceAndObjectBurst: 3,
    sourceAndObjectCacheSize: 10,
    requests: [component('A'), component('A'), component('A'), component('B'), component('A', true)],
  },
  {
    name: 'source+object limits from lru source+object should clear when cache size exceeded',
    serverBurst: 100,
    sourceAndObjectBurst: 3,
    sourceAndObjectCacheSize: 2,
    requests: [component('A'), component('A'), component('B'), component('B'), component('B'), component('A'), component('B', true), component('A', true), component('C'), component('A', true), component('B')],
  },
  { name: 'source host should be included in source+object key', serverBurst: 100, sourceAndObjectBurst: 1, sourceAndObjectCacheSize: 10, requests: inclusion((l) => ({ source: { host: l } })) },
  { name: 'involved object kind should be included in source+object key', serverBurst: 100, sourceAndObjectBurst: 1, sourceAndObjectCacheSize: 10, requests: inclusion((l) => ({ involvedObject: { kind: l } })) },
  { name: 'involved object namespace should be included in source+object key', serverBurst: 100, sourceAndObjectBurst: 1, sourceAndObjectCacheSize: 10, requests: inclusion((l) => ({ involvedObject: { namespace: l } })) },
  { name: 'involved object name should be included in source+object key', serverBurst: 100, sourceAndObjectBurst: 1, sourceAndObjectCacheSize: 10, requests: inclusion((l) => ({ involvedObject: { name: l } })) },
  { name: 'involved object UID should be included in source+object key', serverBurst: 100, sourceAndObjectBurst: 1, sourceAndObjectCacheSize: 10, requests: inclusion((l) => ({ involvedObject: { uid: l } })) },
  { name: 'involved object APIVersion should be included in source+object key', serverBurst: 100, sourceAndObjectBurst: 1, sourceAndObjectCacheSize: 10, requests: inclusion((l) => ({ involvedObject: { apiVersion: l } })) },
  { name: 'event blocked by user limits', userBurst: 3, userCacheSize: 10, requests: [user('A'), user('A'), user('A'), user('A', true)] },
  { name: 'event from other user not blocked', requests: [user('A'), user('A'), user('A'), user('B')] },
  { name: 'events from other user should not count against limit', requests: [user('A'), user('A'), user('B'), user('A')] },
]

function configFor(tc: Case): Record<string, unknown> {
  const limits: Array<Record<string, unknown>> = []
  if (tc.serverBurst) limits.push({ type: 'Server', qps: 1, burst: tc.serverBurst })
  if (tc.namespaceBurst) limits.push({ type: 'Namespace', qps: 1, burst: tc.namespaceBurst, cacheSize: tc.namespaceCacheSize })
  if (tc.userBurst) limits.push({ type: 'User', qps: 1, burst: tc.userBurst, cacheSize: tc.userCacheSize })
  if (tc.sourceAndObjectBurst) limits.push({ type: 'SourceAndObject', qps: 1, burst: tc.sourceAndObjectBurst, cacheSize: tc.sourceAndObjectCacheSize })
  return { apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1', kind: 'Configuration', limits }
}

function attributesForRequest(rq: Request): AdmissionAttributes {
  const object = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'name' }, ...rq.event } as KubeObject
  return {
    ...attributesFor({ kind: rq.kind ?? 'Event', resource: 'resource', namespace: rq.namespace ?? '', name: 'name', object, dryRun: rq.dryRun ?? false }),
    userInfo: { name: rq.username ?? '', groups: [] },
  }
}

describe('admission: EventRateLimit', () => {
  for (const tc of CASES) {
    it(tc.name, async () => {
      let now = 1_700_000_000_000
      // The reference's last two cases configure no limit (its test skips the validation, which
      // refuses that); here they run under a User limit of burst 3, which they must pass too.
      const plugin = new EventRateLimit(tc.serverBurst || tc.namespaceBurst || tc.userBurst || tc.sourceAndObjectBurst ? configFor(tc) : configFor({ ...tc, userBurst: 3, userCacheSize: 10 }), () => now)
      for (const [i, rq] of tc.requests.entries()) {
        now += (rq.delay ?? 0) * 1000
        const got = await refusal(plugin.validate(attributesForRequest(rq)))
        assert.equal(got !== undefined, rq.blocked === true, `request ${i} should have been ${rq.blocked ? 'blocked' : 'admitted'}: ${got?.message}`)
        if (got) assert.equal(got.code, 429)
      }
    })
  }

  it("refuses with the reference's 429 Status, each refusing limit named", async () => {
    const plugin = new EventRateLimit(
      { apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1', kind: 'Configuration', limits: [{ type: 'Server', qps: 1, burst: 1 }, { type: 'Namespace', qps: 1, burst: 1 }] },
      () => 0,
    )
    assert.equal(await refusal(plugin.validate(attributesForRequest(ev({ namespace: 'ns1' })))), undefined)
    assert.deepEqual(await refusal(plugin.validate(attributesForRequest(ev({ namespace: 'ns2' })))), {
      code: 429,
      reason: 'TooManyRequests',
      message: 'Too many requests: limit reached on type Server for key ',
    })
    const both = await refusal(plugin.validate(attributesForRequest(ev({ namespace: 'ns1' }))))
    assert.equal(both?.message, 'Too many requests: [limit reached on type Server for key , limit reached on type Namespace for key ns1]')
  })

  it('counts updates, and events.k8s.io events not at all', async () => {
    const plugin = new EventRateLimit({ apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1', kind: 'Configuration', limits: [{ type: 'Server', qps: 1, burst: 1 }] }, () => 0)
    assert.equal(plugin.handles('UPDATE'), true)
    assert.equal(plugin.handles('DELETE'), false)
    const other = { ...attributesForRequest(ev()), kind: { group: 'events.k8s.io', version: 'v1', kind: 'Event' } }
    assert.equal(await refusal(plugin.validate(other)), undefined)
    assert.equal(await refusal(plugin.validate(other)), undefined)
    assert.equal(await refusal(plugin.validate({ ...attributesForRequest(ev()), operation: 'UPDATE' })), undefined)
    assert.equal((await refusal(plugin.validate(attributesForRequest(ev()))))?.code, 429)
  })
})

// The reference's cache_test.go.
describe('admission: EventRateLimit caches', () => {
  it('a single cache holds one bucket for every key (TestSingleCache)', () => {
    const bucket = new TokenBucket(1, 1, () => 0)
    const cache = new SingleCache(bucket)
    for (const key of ['', 'key1', 'key2']) assert.equal(cache.get(key), bucket)
  })

  it('an LRU cache evicts the least recently used (TestLRUCache)', () => {
    const buckets = [1, 2, 3, 4].map((n) => new TokenBucket(n, n, () => 0))
    let next = 0
    const cache = new LruCache(2, () => buckets[next++]!)
    const steps: Array<[string, number, number]> = [
      ['first added', 0, 0],
      ['first obtained', 0, 0],
      ['second added', 1, 1],
      ['second obtained', 1, 1],
      ['first obtained second time', 0, 0],
      ['third added', 2, 2],
      ['third obtained', 2, 2],
      ['first obtained third time', 0, 0],
      ['second re-added after eviction', 1, 3],
    ]
    for (const [name, key, expected] of steps) assert.equal(cache.get(String(key)), buckets[expected], name)
  })
})

// The reference's config_test.go (TestLoadConfiguration) and validation_test.go
// (TestValidateConfiguration), with the texts of its field errors and decoder.
describe('admission: EventRateLimit configuration', () => {
  const head = { apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1', kind: 'Configuration' }

  it('loads a valid configuration', () => {
    const config = loadConfiguration({ ...head, limits: [{ type: 'Namespace', qps: 50, burst: 100, cacheSize: 2000 }, { type: 'User', qps: 10, burst: 50 }] })
    assert.deepEqual(config.limits, [
      { type: 'Namespace', qps: 50, burst: 100, cacheSize: 2000 },
      { type: 'User', qps: 10, burst: 50, cacheSize: 0 },
    ])
  })

  it('refuses an unregistered apiVersion', () => {
    assert.throws(
      () => loadConfiguration({ ...head, apiVersion: 'eventratelimit.admission.k8s.io/v1alpha2', limits: [] }),
      { message: 'no kind "Configuration" is registered for version "eventratelimit.admission.k8s.io/v1alpha2" in scheme "k8s.io/kubernetes/plugin/pkg/admission/eventratelimit/config.go:31"' },
    )
  })

  it('ignores unknown fields (invalid configuration Limit), leaving no limits', () => {
    assert.deepEqual(loadConfiguration({ ...head, 'invalid-limits': [{ type: 'Namespace', qps: 50 }] }), { limits: undefined })
  })

  it('needs kind and apiVersion', () => {
    assert.throws(() => loadConfiguration({ limits: [] }), { message: `Object 'Kind' is missing in '{"limits":[]}'` })
    assert.throws(() => loadConfiguration({ kind: 'Configuration' }), { message: `Object 'apiVersion' is missing in '{"kind":"Configuration"}'` })
  })

  it('refuses a number that is no int32', () => {
    assert.throws(() => loadConfiguration({ ...head, limits: [{ type: 'Server', qps: 0.5, burst: 1 }] }), {
      message: 'json: cannot unmarshal number 0.5 into Go struct field Limit.limits.qps of type int32',
    })
  })

  const valid: Array<[string, Array<Record<string, unknown>>]> = [
    ['valid server', [{ type: 'Server', burst: 5, qps: 1 }]],
    ['valid namespace', [{ type: 'Namespace', burst: 10, qps: 2, cacheSize: 100 }]],
    ['valid user', [{ type: 'User', burst: 10, qps: 2, cacheSize: 100 }]],
    ['valid source+object', [{ type: 'SourceAndObject', burst: 5, qps: 1, cacheSize: 1000 }]],
    [
      'valid multiple',
      [
        { type: 'Server', burst: 5, qps: 1 },
        { type: 'Namespace', burst: 10, qps: 2, cacheSize: 100 },
        { type: 'SourceAndObject', burst: 25, qps: 10, cacheSize: 1000 },
      ],
    ],
  ]
  for (const [name, limits] of valid) {
    it(name, () => assert.deepEqual(validateConfiguration(loadConfiguration({ ...head, limits })), []))
  }

  const invalid: Array<[string, unknown, string]> = [
    ['missing limits', undefined, 'limits: Invalid value: []eventratelimit.Limit(nil): must not be empty'],
    ['empty limits', [], 'limits: Invalid value: []eventratelimit.Limit{}: must not be empty'],
    ['missing type', [{ burst: 25, qps: 10, cacheSize: 1000 }], 'limits[0].type: Unsupported value: "": supported values: "Server", "Namespace", "User", "SourceAndObject"'],
    ['invalid type', [{ type: 'unknown-type', burst: 25, qps: 10, cacheSize: 1000 }], 'limits[0].type: Unsupported value: "unknown-type": supported values: "Server", "Namespace", "User", "SourceAndObject"'],
    ['missing burst', [{ type: 'Server', qps: 1 }], 'limits[0].burst: Invalid value: 0: must be positive'],
    ['missing qps', [{ type: 'Server', burst: 5 }], 'limits[0].qps: Invalid value: 0: must be positive'],
    ['negative cache size', [{ type: 'Namespace', burst: 10, qps: 2, cacheSize: -1 }], 'limits[0].cacheSize: Invalid value: -1: must not be negative'],
    ['several errors', [{ type: 'Server', qps: -1 }], '[limits[0].burst: Invalid value: 0: must be positive, limits[0].qps: Invalid value: -1: must be positive]'],
  ]
  for (const [name, limits, message] of invalid) {
    it(name, () => assert.throws(() => readConfiguration({ ...head, ...(limits === undefined ? {} : { limits }) }), { message }))
  }

  it('refuses to start without a configuration (no limits)', () => {
    assert.throws(() => new EventRateLimit(undefined), { message: 'limits: Invalid value: []eventratelimit.Limit(nil): must not be empty' })
  })
})

describe('admission: EventRateLimit token bucket', () => {
  it('starts full, refills at qps up to burst', () => {
    let now = 0
    const bucket = new TokenBucket(2, 3, () => now)
    assert.deepEqual([1, 2, 3, 4].map(() => bucket.tryAccept()), [true, true, true, false])
    now += 499
    assert.equal(bucket.tryAccept(), false)
    now += 1
    assert.equal(bucket.tryAccept(), true)
    now += 60_000
    assert.deepEqual([1, 2, 3, 4].map(() => bucket.tryAccept()), [true, true, true, false])
  })
})
