/** Toleration.ToleratesTaint (k8s.io/api/core/v1/toleration.go) and FindMatchingUntoleratedTaint. */
import type { Taint, Toleration } from '../objects.js'

export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false
  if (toleration.key && toleration.key !== taint.key) return false
  switch (toleration.operator ?? 'Equal') {
    case 'Exists':
      return true
    case 'Equal':
    case '':
      return (toleration.value ?? '') === (taint.value ?? '')
    default:
      return false
  }
}

/** The first taint passing `applies` that no toleration tolerates, or undefined. */
export function untoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[], applies: (t: Taint) => boolean): Taint | undefined {
  return taints.find((taint) => applies(taint) && !tolerations.some((t) => toleratesTaint(t, taint)))
}
