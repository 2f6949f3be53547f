/**
 * Classification of requests by the FlowSchemas in the store, as the reference's APF
 * classifier: the schemas sorted by matchingPrecedence (then name), the first whose rules
 * match the request's user and what it asks for wins, and its priority level is the one the
 * request is accounted to. The schemas and levels are read from the store at most once a
 * second, so a FlowSchema a user creates takes effect within that time; with a watch on them
 * open, only after one of them changed.
 */
import type { MaybePromise } from '../http/maybe-promise.js'
import type { RequestContext } from '../http/types.js'

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {})
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])
const strings = (v: unknown): string[] => list(v).map(String)

export interface FlowObject {
  metadata: { name?: string; uid?: string }
  spec?: unknown
}

export interface Classification {
  schema: { name: string; uid: string }
  level: { name: string; uid: string }
}

function subjectMatches(subject: Obj, user: { name: string; groups: readonly string[] }): boolean {
  switch (subject.kind) {
    case 'User': {
      const name = String(obj(subject.user).name ?? '')
      return name === '*' || name === user.name
    }
    case 'Group': {
      const name = String(obj(subject.group).name ?? '')
      return name === '*' || user.groups.includes(name)
    }
    case 'ServiceAccount': {
      const sa = obj(subject.serviceAccount)
      const prefix = `system:serviceaccount:${String(sa.namespace ?? '')}:`
      return user.name.startsWith(prefix) && (sa.name === '*' || user.name === `${prefix}${String(sa.name ?? '')}`)
    }
    default:
      return false
  }
}

const listed = (values: readonly string[], value: string) => values.includes('*') || values.includes(value)

function resourceRuleMatches(rule: Obj, ctx: RequestContext): boolean {
  const info = ctx.info
  const resource = info.subresource ? `${info.resource ?? ''}/${info.subresource}` : (info.resource ?? '')
  if (!listed(strings(rule.verbs), info.verb) || !listed(strings(rule.apiGroups), info.apiGroup ?? '') || !listed(strings(rule.resources), resource)) return false
  if (!info.namespace) return rule.clusterScope === true
  return listed(strings(rule.namespaces), info.namespace)
}

function nonResourceRuleMatches(rule: Obj, ctx: RequestContext): boolean {
  if (!listed(strings(rule.verbs), ctx.info.verb)) return false
  const path = ctx.info.path
  return strings(rule.nonResourceURLs).some((url) => url === '*' || url === path || (url.endsWith('/*') && path.startsWith(url.slice(0, -1))))
}

function schemaMatches(schema: FlowObject, ctx: RequestContext, user: { name: string; groups: readonly string[] }): boolean {
  return list(obj(schema.spec).rules).some((r) => {
    const rule = obj(r)
    if (!list(rule.subjects).some((s) => subjectMatches(obj(s), user))) return false
    return ctx.info.isResourceRequest ? list(rule.resourceRules).some((rr) => resourceRuleMatches(obj(rr), ctx)) : list(rule.nonResourceRules).some((nr) => nonResourceRuleMatches(obj(nr), ctx))
  })
}

/** The schemas in matching order, sorted once per configuration read. */
const sortedSchemas = new WeakMap<readonly FlowObject[], FlowObject[]>()
/**
 * Classifications already made, per configuration read: a request's class depends only on its
 * user and what it asks for, and clients repeat the same requests, so the rules are walked once
 * per distinct request rather than for each one. Bounded: emptied when it grows past the limit.
 */
const classified = new WeakMap<readonly FlowObject[], { levels: readonly FlowObject[]; byKey: Map<string, Classification | undefined> }>()
const CLASSIFIED_LIMIT = 4096

function sorted(schemas: readonly FlowObject[]): FlowObject[] {
  let s = sortedSchemas.get(schemas)
  if (!s) {
    const precedence = (f: FlowObject) => Number(obj(f.spec).matchingPrecedence ?? 1000)
    // Ties by name in byte order, as the reference's Go string comparison: localeCompare orders by
    // the locale's collation (which weighs punctuation differently), and its first use sets up
    // ICU's collator, tens of milliseconds of the first request, the server's first /readyz.
    const byName = (a: FlowObject, b: FlowObject) => {
      const x = String(a.metadata.name)
      const y = String(b.metadata.name)
      return x < y ? -1 : x > y ? 1 : 0
    }
    s = [...schemas].sort((a, b) => precedence(a) - precedence(b) || byName(a, b))
    sortedSchemas.set(schemas, s)
  }
  return s
}

/** Everything classification looks at. */
function classKey(ctx: RequestContext, user: { name: string; groups: readonly string[] }): string {
  const info = ctx.info
  const what = info.isResourceRequest ? `r\u0000${info.apiGroup ?? ''}\u0000${info.resource ?? ''}\u0000${info.subresource ?? ''}\u0000${info.namespace ?? ''}` : `n\u0000${info.path}`
  return `${user.name}\u0000${user.groups.join('\u0001')}\u0000${info.verb}\u0000${what}`
}

/** The first matching schema of `schemas` (sorted here) and its level, if both exist. */
export function classify(schemas: readonly FlowObject[], levels: readonly FlowObject[], ctx: RequestContext): Classification | undefined {
  const user = ctx.user ?? { name: 'system:anonymous', groups: ['system:unauthenticated'] }
  let memo = classified.get(schemas)
  if (!memo || memo.levels !== levels) classified.set(schemas, (memo = { levels, byKey: new Map() }))
  const cache = memo.byKey
  const key = classKey(ctx, user)
  if (cache.has(key)) return cache.get(key)
  const found = classifyNow(sorted(schemas), levels, ctx, user)
  if (cache.size >= CLASSIFIED_LIMIT) cache.clear()
  cache.set(key, found)
  return found
}

function classifyNow(sorted: readonly FlowObject[], levels: readonly FlowObject[], ctx: RequestContext, user: { name: string; groups: readonly string[] }): Classification | undefined {
  for (const schema of sorted) {
    if (!schemaMatches(schema, ctx, user)) continue
    const levelName = String(obj(obj(schema.spec).priorityLevelConfiguration).name ?? '')
    const level = levels.find((l) => l.metadata.name === levelName)
    // A schema naming a missing level is skipped, as the reference treats it (Dangling).
    if (!level) continue
    return { schema: { name: schema.metadata.name ?? '', uid: schema.metadata.uid ?? '' }, level: { name: levelName, uid: level.metadata.uid ?? '' } }
  }
  return undefined
}

/**
 * Notifications of changes to the stored configuration (a store watch on the FlowSchemas and
 * priority levels): resolves once established, calling `changed` for every change after that
 * and `ended` once when it stops (then it is opened again).
 */
export type ConfigurationChanges = (changed: () => void, ended: () => void) => Promise<void>

export interface FlowConfigurationCacheOptions {
  /** With them, the configuration is re-read only after a change instead of every `ttlMs`. */
  changes?: ConfigurationChanges
  /** True while the configuration must be re-read every `ttlMs` even without a change. */
  poll?: () => boolean
}

export interface FlowConfigurationCache {
  (): MaybePromise<{ schemas: FlowObject[]; levels: FlowObject[] } | undefined>
  /** Makes the next call (after `ttlMs`) read the configuration again. */
  invalidate(): void
}

/**
 * The store's FlowSchemas and priority levels, re-read at most every `ttlMs`. With `changes`
 * established, only after one of them changed (or `invalidate`, or while `poll` says so): as
 * the reference's configuration controller, which is driven by its informers, rather than
 * listing and decoding every object once a second under any load. Without a watch (not yet
 * open, or ended) it reads every `ttlMs` as before.
 */
export function flowConfigurationCache(
  read: () => Promise<{ schemas: FlowObject[]; levels: FlowObject[] }>,
  ttlMs = 1000,
  now: () => number = Date.now,
  { changes, poll }: FlowConfigurationCacheOptions = {},
): FlowConfigurationCache {
  let cached: { schemas: FlowObject[]; levels: FlowObject[] } | undefined
  let readAt = -Infinity
  let reading: Promise<void> | undefined
  // Whether a change may have been missed since the last read began: a read begun after the
  // watch was established and before any change since is current.
  let changed = true
  let watching = false
  let opening = false
  let openedAt = -Infinity
  const open = (changes: ConfigurationChanges) => {
    opening = true
    openedAt = now()
    let ended = false
    changes(
      () => {
        changed = true
      },
      () => {
        ended = true
        watching = false
        changed = true
      },
    )
      .then(() => {
        // Changes before the watch began are not in it: the next read is what covers them.
        watching = !ended
        changed = true
      })
      .catch(() => {
        // The store is not there yet (or failing): polling until a later attempt.
      })
      .finally(() => {
        opening = false
      })
  }
  const cache = (): MaybePromise<{ schemas: FlowObject[]; levels: FlowObject[] } | undefined> => {
    if (changes && !watching && !opening && now() - openedAt >= ttlMs) open(changes)
    if (now() - readAt >= ttlMs && !reading && (changed || !watching || poll?.() === true)) {
      changed = false
      reading = read()
        .then((c) => {
          cached = c
          readAt = now()
        })
        .catch(() => {
          // The store is not there yet (or failing): keep the last configuration.
          readAt = now()
          changed = true
        })
        .finally(() => {
          reading = undefined
        })
    }
    if (!cached && reading) return reading.then(() => cached)
    return cached
  }
  // Not async: once read, the configuration is there at once for every request.
  return Object.assign(cache, {
    invalidate: () => {
      changed = true
    },
  })
}
