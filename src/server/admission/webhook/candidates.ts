/**
 * The hooks (webhooks, policies) whose rules may match a request, found once per list of hooks
 * and per request shape (operation, resource, subresource, scope) instead of per request: the
 * lists are kept for a quarter of a second (configurations.ts, policy/sources.ts), and a
 * request to a resource no hook names then meets none. The answer is a superset, in the hooks'
 * order: each candidate is still matched in full (selectors, resourceNames, excluded rules,
 * match conditions); what is left out could not have matched, its rules naming neither the
 * request's resource nor, for a hook with matchPolicy Equivalent, any resource equivalent to it.
 */
import type { AdmissionAttributes } from '../attributes.js'

export interface CandidateTests<H> {
  /** Whether the hook's rules match the request as it is, or cannot be read (it must be matched in full). */
  exact(hook: H): boolean
  /** Whether the hook also matches equivalent resources (matchPolicy Equivalent). */
  equivalent(hook: H): boolean
  /** Whether the request's resource has any equivalent one (asked at most once per shape and list). */
  hasEquivalents(): Promise<boolean>
}

const indexes = new WeakMap<readonly unknown[], Map<string, readonly unknown[] | Promise<readonly unknown[]>>>()

/** What the rules of a hook see of a request (webhook/rules.ts ruleMatches). */
function shapeOf(a: AdmissionAttributes): string {
  const isNamespace = a.resource.group === '' && a.resource.resource === 'namespaces'
  const scope = isNamespace ? 'namespace' : a.namespace === '' ? 'cluster' : 'namespaced'
  return `${a.operation} ${a.resource.group}/${a.resource.version}/${a.resource.resource}/${a.subresource} ${scope}`
}

export function candidateHooks<H>(hooks: readonly H[], attributes: AdmissionAttributes, tests: CandidateTests<H>): readonly H[] | Promise<readonly H[]> {
  if (hooks.length === 0) return hooks
  let index = indexes.get(hooks)
  if (!index) indexes.set(hooks, (index = new Map()))
  const shape = shapeOf(attributes)
  const found = index.get(shape) as readonly H[] | Promise<readonly H[]> | undefined
  if (found) return found
  const exact = hooks.map((hook) => tests.exact(hook))
  const maybe = hooks.map((hook, i) => !exact[i] && tests.equivalent(hook))
  if (!maybe.includes(true)) {
    const candidates = hooks.filter((_, i) => exact[i])
    index.set(shape, candidates)
    return candidates
  }
  const pending = tests.hasEquivalents().then(
    (has) => {
      const candidates = hooks.filter((_, i) => exact[i] || (has && maybe[i]))
      index.set(shape, candidates)
      return candidates
    },
    (err: unknown) => {
      index.delete(shape)
      throw err
    },
  )
  index.set(shape, pending)
  return pending
}
