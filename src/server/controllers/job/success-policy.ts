/**
 * An Indexed Job's successPolicy, as the reference's matchSuccessPolicy
 * (pkg/controller/job/success_policy.go): the first rule met (all of its succeededIndexes
 * succeeded, or at least succeededCount of them, or of all indexes when it names none) makes
 * the Job's success criteria met, with the reference's message.
 */
import { type Interval, parseIndexes, toSet } from './indexes.js'

interface Rule {
  succeededIndexes?: string
  succeededCount?: number
}

export function matchSuccessPolicy(policy: { rules?: Rule[] } | undefined, completions: number, succeeded: ReadonlySet<number>): string | undefined {
  if (!policy || succeeded.size === 0) return undefined
  for (const [index, rule] of (policy.rules ?? []).entries()) {
    if (rule.succeededIndexes !== undefined) {
      const required: Interval[] = parseIndexes(rule.succeededIndexes, completions)
      if (required.length === 0) continue
      const requiredSet = toSet(required)
      const matched = [...requiredSet].filter((i) => succeeded.has(i)).length
      if (rule.succeededCount === undefined ? matched === requiredSet.size : matched >= rule.succeededCount) return `Matched rules at index ${index}`
    } else if (rule.succeededCount !== undefined && succeeded.size >= rule.succeededCount) {
      return `Matched rules at index ${index}`
    }
  }
  return undefined
}
