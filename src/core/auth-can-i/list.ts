/**
 * `auth can-i --list`: the rules of a SelfSubjectRulesReview printed as kubectl prints them
 * (printStatus in kubectl's cani.go with rbacutil's BreakdownRule, CompactRules and
 * SortableRuleSlice): every rule broken down to one group, resource, verb and name; the simple
 * ones merged per group, resource and name (their new verbs appended in turn); sorted by the Go
 * string of the rule (`&PolicyRule{Verbs:[...],APIGroups:[...],...}`), a stable sort; one row
 * each, in columns.
 */
import type { RbacRules } from '../rbac/authorizer.js'
import { KUBECTL_TABWRITER, tabwrite } from '../printers/tabwriter.js'

interface Rule {
  verbs: string[]
  apiGroups: string[]
  resources: string[]
  resourceNames: string[]
  nonResourceURLs: string[]
}

/** Go's %v of a []string. */
const goList = (values: readonly string[]) => `[${values.join(' ')}]`

/** The protobuf-generated String() of rbacv1.PolicyRule, the sort key. */
const goString = (r: Rule) =>
  `&PolicyRule{Verbs:${goList(r.verbs)},APIGroups:${goList(r.apiGroups)},Resources:${goList(r.resources)},ResourceNames:${goList(r.resourceNames)},NonResourceURLs:${goList(r.nonResourceURLs)},}`

function breakdown(rules: RbacRules): Rule[] {
  const out: Rule[] = []
  for (const r of rules.resourceRules) {
    for (const group of r.apiGroups) {
      for (const resource of r.resources) {
        for (const verb of r.verbs) {
          const names = r.resourceNames.length > 0 ? r.resourceNames.map((n) => [n]) : [[]]
          for (const resourceNames of names) out.push({ verbs: [verb], apiGroups: [group], resources: [resource], resourceNames, nonResourceURLs: [] })
        }
      }
    }
  }
  for (const r of rules.nonResourceRules) {
    for (const url of r.nonResourceURLs) for (const verb of r.verbs) out.push({ verbs: [verb], apiGroups: [], resources: [], resourceNames: [], nonResourceURLs: [url] })
  }
  return out
}

function compact(rules: readonly Rule[]): Rule[] {
  const compacted: Rule[] = []
  const simple = new Map<string, Rule>()
  for (const rule of rules) {
    const isSimple = rule.resourceNames.length <= 1 && rule.nonResourceURLs.length === 0 && rule.apiGroups.length === 1 && rule.resources.length === 1
    if (!isSimple) {
      compacted.push(rule)
      continue
    }
    const key = JSON.stringify([rule.apiGroups[0], rule.resources[0], rule.resourceNames.length > 0, rule.resourceNames[0] ?? ''])
    const existing = simple.get(key)
    // kubectl 1.35 appends only the verbs the merged rule does not have yet.
    if (existing) existing.verbs.push(...rule.verbs.filter((v) => !existing.verbs.includes(v)))
    else simple.set(key, { ...rule, verbs: [...rule.verbs] })
  }
  return [...compacted, ...simple.values()]
}

/** describe.CombineResourceGroup: `resource.group/subresource`. */
function combineResourceGroup(resources: readonly string[], groups: readonly string[]): string {
  if (resources.length === 0) return ''
  const slash = resources[0]!.indexOf('/')
  const [resource, sub] = slash === -1 ? [resources[0]!, undefined] : [resources[0]!.slice(0, slash), resources[0]!.slice(slash + 1)]
  let combined = resource
  if (groups.length > 0 && groups[0] !== '') combined += `.${groups[0]}`
  if (sub !== undefined) combined += `/${sub}`
  return combined
}

/** The table kubectl prints for these rules. */
export function printRules(rules: RbacRules, noHeaders: boolean): string {
  const keyed = compact(breakdown(rules)).map((rule) => ({ rule, key: goString(rule) }))
  // Array.prototype.sort is stable, as sort.Stable.
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  let text = noHeaders ? '' : 'Resources\tNon-Resource URLs\tResource Names\tVerbs\n'
  for (const { rule: r } of keyed) {
    text += `${combineResourceGroup(r.resources, r.apiGroups)}\t${goList(r.nonResourceURLs)}\t${goList(r.resourceNames)}\t${goList(r.verbs)}\n`
  }
  return tabwrite(text, KUBECTL_TABWRITER)
}
