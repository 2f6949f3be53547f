/**
 * Label maps as the reference's `k8s.io/apimachinery/pkg/labels` set helpers treat them:
 * ConvertSelectorToLabelsMap (`a=b, c = d`, keys and values validated as labels), Conflicts,
 * Merge and AreLabelsInWhiteList.
 */
import { invalid } from '../api/validation/field/errors.js'
import { isQualifiedName, isValidLabelValue } from '../api/validation/strings.js'

export type LabelsMap = Record<string, string>

/** Parses `k=v, k2 = v2`; throws the reference's error for anything else. */
export function convertSelectorToLabelsMap(selector: string): LabelsMap {
  const map: LabelsMap = {}
  if (selector === '') return map
  for (const label of selector.split(',')) {
    const parts = label.split('=')
    if (parts.length !== 2) throw new Error(`invalid selector: [${parts.join(' ')}]`)
    const key = parts[0]!.trim()
    const keyErrors = isQualifiedName(key)
    // The reference validates without a field path: its nil path prints as <nil>.
    if (keyErrors.length > 0) throw new Error(invalid('<nil>', key, keyErrors.join('; ')).toString())
    const value = parts[1]!.trim()
    const valueErrors = isValidLabelValue(value)
    if (valueErrors.length > 0) throw new Error(invalid(`[${key}]`, value, valueErrors.join('; ')).toString())
    map[key] = value
  }
  return map
}

/** Whether a key is in both with different values. */
export function conflicts(a: LabelsMap, b: LabelsMap): boolean {
  return Object.keys(b).some((key) => key in a && a[key] !== b[key])
}

/** The union, the second winning. */
export function merge(a: LabelsMap, b: LabelsMap): LabelsMap {
  return { ...a, ...b }
}

/** Every label is in the (non-empty) allow list with the same value. */
export function areLabelsInWhiteList(labels: LabelsMap, whitelist: LabelsMap): boolean {
  if (Object.keys(whitelist).length === 0) return true
  return Object.entries(labels).every(([key, value]) => key in whitelist && whitelist[key] === value)
}
