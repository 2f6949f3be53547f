/**
 * metav1.LabelSelector as the workload validations use it (LabelSelectorAsSelector, Matches,
 * Empty), and its json.Marshal form for the bad values of field errors.
 */
import { Rendered, goJSON } from './field/index.js'
import { matchesLabelSelector } from '../../http/selectors.js'
import { arr, obj, str } from './helpers.js'
import { validateLabelSelector } from './meta-v1.js'
import { Path } from './field/index.js'

/** Whether LabelSelectorAsSelector fails (an unknown operator, a bad key or value, In without values...). */
export function selectorParseFails(selector: unknown): boolean {
  if (selector === undefined || selector === null) return false
  return validateLabelSelector(selector, {}, Path.of('x')).length > 0
}

/** Whether the selector has no requirement: Everything (a nil selector is Nothing, which is not empty). */
export function selectorEmpty(selector: unknown): boolean {
  if (selector === undefined || selector === null) return false
  const s = obj(selector)
  return Object.keys(obj(s.matchLabels)).length + arr(s.matchExpressions).length === 0
}

/** labels.Selector.Matches of a parsed LabelSelector (a nil selector matches nothing). */
export function selectorMatches(selector: unknown, labels: unknown): boolean {
  if (selector === undefined || selector === null) return false
  const given = obj(labels)
  const l: Record<string, string> = {}
  for (const k of Object.keys(given)) l[k] = str(given[k])
  return matchesLabelSelector(obj(selector), l)
}

/** json.Marshal of a *metav1.LabelSelector: matchLabels, matchExpressions (omitempty), in declaration order. */
export function labelSelectorJSON(selector: unknown): Rendered {
  if (selector === undefined || selector === null) return new Rendered('null')
  const s = obj(selector)
  const parts: string[] = []
  if (Object.keys(obj(s.matchLabels)).length > 0) parts.push(`"matchLabels":${goJSON(s.matchLabels)}`)
  const exprs = arr(s.matchExpressions).map(obj)
  if (exprs.length > 0) {
    const items = exprs.map((e) => {
      const fields = [`"key":${goJSON(str(e.key))}`, `"operator":${goJSON(str(e.operator))}`]
      if (arr(e.values).length > 0) fields.push(`"values":${goJSON(arr(e.values))}`)
      return `{${fields.join(',')}}`
    })
    parts.push(`"matchExpressions":[${items.join(',')}]`)
  }
  return new Rendered(`{${parts.join(',')}}`)
}
