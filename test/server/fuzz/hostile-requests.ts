/**
 * The malformed requests of the fuzz suite: a seeded generator of the hostile inputs the
 * reference bounds (aliased and deeply nested YAML, deep JSON and patches, bodies over the
 * size limit, JSON patches with too many operations, out-of-range integers and resource
 * versions, dot and percent-encoded path segments, every spelling of query booleans, metadata-
 * only Accept headers, unknown fields whose names are not Latin-1, garbage bodies), each with
 * the status codes the reference answers it with.
 */

/** mulberry32: small, fast and the same on every run for one seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export interface HostileRequest {
  kind: string
  method: string
  path: string
  headers: Record<string, string>
  body?: Buffer
  /** The status codes the reference answers with. */
  expect: readonly number[]
  /** Send over HTTP/2 instead of HTTP/1.1. */
  http2?: boolean
}

export const MIB = 1024 * 1024

interface Gen {
  int(lo: number, hi: number): number
  pick<T>(items: readonly T[]): T
  chance(p: number): boolean
}

function gen(random: () => number): Gen {
  return {
    int: (lo, hi) => lo + Math.floor(random() * (hi - lo + 1)),
    pick: (items) => items[Math.floor(random() * items.length)]!,
    chance: (p) => random() < p,
  }
}

/** The "billion laughs" shape: each anchor a list of `width` aliases of the previous one. */
export function aliasBomb(levels: number, width: number, prefix = ''): string {
  const lines = [`${prefix}a0: &a0 [${Array(width).fill('"lol"').join(',')}]`]
  for (let i = 1; i < levels; i++) lines.push(`${prefix}a${i}: &a${i} [${Array(width).fill(`*a${i - 1}`).join(',')}]`)
  return lines.join('\n')
}

function nested(depth: number, open: string, close: string, inner = '1'): string {
  return open.repeat(depth) + inner + close.repeat(depth)
}

const NS = 'fuzz'
const CM = `/api/v1/namespaces/${NS}/configmaps`
const CR = `/apis/stable.example.com/v1/namespaces/${NS}/crontabs`

export const TARGETS = { namespace: NS, configmaps: CM, crontabs: CR, existingConfigMap: 'target', existingCronTab: 'target' }

const json = { 'Content-Type': 'application/json' }
const yaml = { 'Content-Type': 'application/yaml' }

/** One generator per kind of hostile input; each returns a request and its expected codes. */
const KINDS: Record<string, (g: Gen, n: number) => HostileRequest> = {
  yamlAliasBomb(g) {
    const levels = g.int(6, 10)
    const width = g.int(6, 10)
    const body = `apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  generateName: bomb-\nspec:\n${aliasBomb(levels, width, '  ')}\n`
    return { kind: 'yamlAliasBomb', method: 'POST', path: g.chance(0.5) ? CR : CM, headers: yaml, body: Buffer.from(body), expect: [400] }
  },
  applyAliasBomb(g) {
    const body = `apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: applied\nspec:\n${aliasBomb(g.int(7, 9), g.int(7, 9), '  ')}\n`
    return { kind: 'applyAliasBomb', method: 'PATCH', path: `${CR}/applied?fieldManager=fuzz`, headers: { 'Content-Type': 'application/apply-patch+yaml' }, body: Buffer.from(body), expect: [400] }
  },
  deepJson(g) {
    const depth = g.int(1001, 60_000)
    const body = `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"generateName":"deep-"},"spec":${nested(depth, '{"a":', '}')}}`
    return { kind: 'deepJson', method: 'POST', path: CR, headers: json, body: Buffer.from(body), expect: [400] }
  },
  deepYaml(g) {
    const depth = g.int(1001, 20_000)
    const body = `apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  generateName: deep-\nspec:\n  a: ${nested(depth, '[', ']')}\n`
    return { kind: 'deepYaml', method: 'POST', path: CR, headers: yaml, body: Buffer.from(body), expect: [400] }
  },
  deepMergePatch(g) {
    const depth = g.int(1001, 30_000)
    const type = g.pick(['application/merge-patch+json', 'application/strategic-merge-patch+json'])
    const path = type.startsWith('application/strategic') ? `${CM}/target` : g.pick([`${CM}/target`, `${CR}/target`])
    return { kind: 'deepMergePatch', method: 'PATCH', path, headers: { 'Content-Type': type }, body: Buffer.from(`{"metadata":{"labels":{}},"x":${nested(depth, '{"a":', '}')}}`), expect: [400] }
  },
  deepJsonPatch(g) {
    const depth = g.int(1001, 30_000)
    return { kind: 'deepJsonPatch', method: 'PATCH', path: `${CM}/target`, headers: { 'Content-Type': 'application/json-patch+json' }, body: Buffer.from(`[{"op":"add","path":"/data/x","value":${nested(depth, '[', ']')}}]`), expect: [400] }
  },
  oversizedBody(g) {
    const size = 3 * MIB + g.int(1, MIB)
    const body = Buffer.alloc(size, 0x61)
    Buffer.from('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"big-"},"data":{"a":"').copy(body)
    const put = g.chance(0.5)
    return { kind: 'oversizedBody', method: put ? 'PUT' : 'POST', path: put ? `${CM}/target` : CM, headers: json, body, expect: [413], http2: g.chance(0.5) }
  },
  jsonPatchTooManyOps(g) {
    const n = g.int(10_001, 12_000)
    const ops = Array.from({ length: n }, () => '{"op":"test","path":"/kind","value":"ConfigMap"}').join(',')
    return { kind: 'jsonPatchTooManyOps', method: 'PATCH', path: `${CM}/target`, headers: { 'Content-Type': 'application/json-patch+json' }, body: Buffer.from(`[${ops}]`), expect: [413] }
  },
  hugeInteger(g) {
    const value = g.pick(['99999999999999999999', '9223372036854775808', '-9223372036854775809', '1e3', '0x10', ' 5', '1_000', '', '-1', '9223372036854775807'])
    const param = g.pick(['limit', 'timeoutSeconds', 'gracePeriodSeconds'])
    const valid = /^-?\d+$/.test(value) && BigInt(value) <= 2n ** 63n - 1n && BigInt(value) >= -(2n ** 63n)
    if (param === 'gracePeriodSeconds') {
      return { kind: 'hugeInteger', method: 'DELETE', path: `${CM}/absent-${g.int(0, 1e6)}?gracePeriodSeconds=${encodeURIComponent(value)}`, headers: {}, expect: valid || value === '' ? [404, 422] : [400] }
    }
    // A list parses timeoutSeconds as a watch does; the list itself answers at once.
    return { kind: 'hugeInteger', method: 'GET', path: `${CM}?${param}=${encodeURIComponent(value)}`, headers: {}, expect: valid || value === '' ? [200] : [400] }
  },
  hugeResourceVersion(g) {
    const rv = g.pick(['99999999999999999999', '18446744073709551616', 'abc', '-5', '1.5', '00', '9'.repeat(g.int(21, 200))])
    const match = g.pick(['', '&resourceVersionMatch=NotOlderThan', '&resourceVersionMatch=Exact'])
    // Past uint64 a resource version is invalid (400); within it but not reached yet it is the
    // reference's 504 Timeout "Too large resource version" (the one 5xx a client's input gets).
    const inRange = /^\d+$/.test(rv) && BigInt(rv) < 2n ** 64n
    const expect = rv === '00' ? [200, 422] : inRange ? [504] : [400]
    return { kind: 'hugeResourceVersion', method: 'GET', path: `${CM}?resourceVersion=${encodeURIComponent(rv)}${match}`, headers: {}, expect }
  },
  dotSegments(g) {
    const seg = g.pick(['..', '.', '%2e%2e', '%2E%2E', '%2e', '.%2e', '%2e.', '..%2f..', '%2f'])
    const path = g.pick([
      `/api/v1/namespaces/${seg}/secrets`,
      `/api/v1/namespaces/${seg}/configmaps`,
      `/api/v1/namespaces/${NS}/configmaps/${seg}`,
      `/api/v1/namespaces/${NS}/${seg}/configmaps`,
      `/apis/apps/v1/namespaces/${seg}/deployments`,
      `/api/v1/namespaces/${NS}/configmaps/${seg}/status`,
      `/healthz/${seg}/api/v1/secrets`,
      `/api/${seg}/v1/namespaces`,
    ])
    // No DELETE: a %2f that empties the name makes it a deletecollection, in the reference too.
    return { kind: 'dotSegments', method: g.pick(['GET', 'GET', 'PUT']), path, headers: json, body: Buffer.from('{}'), expect: [200, 400, 404, 405, 409, 415, 422] }
  },
  trailingSlash(g) {
    const path = g.pick(['/version/', '/api/v1/', '/apis/apps/v1/', '/apis/', '/api/', '/apis/stable.example.com/v1/'])
    return { kind: 'trailingSlash', method: 'GET', path, headers: {}, expect: [200] }
  },
  queryBoolean(g) {
    const value = g.pick(['True', 'TRUE', 't', 'T', '1', 'true', 'yes', '', 'False', 'FALSE', 'f', '0', 'false', 'nope'])
    const param = g.pick(['watch', 'allowWatchBookmarks', 'sendInitialEvents'])
    const watch = param === 'watch' ? '' : '&watch=1'
    return { kind: 'queryBoolean', method: 'GET', path: `${CM}?${param}=${encodeURIComponent(value)}${watch}&timeoutSeconds=1&resourceVersion=0`, headers: {}, expect: [200, 422] }
  },
  badDuration(g) {
    const value = g.pick(['1x', '-', '99999999999999h', '1.5.5s', 'ten', '5'])
    return { kind: 'badDuration', method: 'GET', path: `${CM}?timeout=${encodeURIComponent(value)}`, headers: {}, expect: [400] }
  },
  partialMetadata(g) {
    const kind = g.pick(['PartialObjectMetadataList', 'PartialObjectMetadata'])
    const version = g.pick(['v1', 'v1beta1'])
    const media = g.pick(['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'])
    const list = g.chance(0.6)
    const accept = `${media};as=${kind};g=meta.k8s.io;v=${version}`
    const path = list ? g.pick([CM, CR, '/api/v1/namespaces']) : g.pick([`${CM}/target`, `${CR}/target`, `/api/v1/namespaces/${NS}`])
    const matches = list === (kind === 'PartialObjectMetadataList')
    return { kind: 'partialMetadata', method: 'GET', path, headers: { Accept: accept }, expect: matches ? [200] : [406] }
  },
  nonLatin1Field(g) {
    const name = g.pick(['ключ', '名前', 'emoji😀', 'ĀŁ', 'a\u0000b', 'tab\tname', 'quote"back\\slash', '\u2028line'])
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'warn-' }, data: { a: 'b' }, [name]: 1 })
    return { kind: 'nonLatin1Field', method: 'POST', path: CM, headers: json, body: Buffer.from(body), expect: [201], http2: g.chance(0.5) }
  },
  garbageBody(g) {
    const size = g.int(0, 4096)
    const body = Buffer.alloc(size)
    for (let i = 0; i < size; i++) body[i] = g.int(0, 255)
    const type = g.pick(['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'text/plain', 'application/merge-patch+json', 'application/json-patch+json', 'application/apply-patch+yaml'])
    const patch = type.includes('patch')
    const path = patch ? `${g.pick([CM, CR])}/target?fieldManager=fuzz` : g.pick([CM, CR])
    return { kind: 'garbageBody', method: patch ? 'PATCH' : 'POST', path, headers: { 'Content-Type': type }, body, expect: [400, 415, 422] }
  },
}

export const KIND_NAMES = Object.keys(KINDS)

/** `count` hostile requests from `seed`, the large kinds (3 MiB bodies) drawn less often. */
export function hostileRequests(seed: number, count: number): HostileRequest[] {
  const g = gen(prng(seed))
  const out: HostileRequest[] = []
  const rare = new Set(['oversizedBody', 'jsonPatchTooManyOps', 'deepJson', 'applyAliasBomb'])
  while (out.length < count) {
    const name = g.pick(KIND_NAMES)
    if (rare.has(name) && !g.chance(0.35)) continue
    out.push(KINDS[name]!(g, out.length))
  }
  return out
}
