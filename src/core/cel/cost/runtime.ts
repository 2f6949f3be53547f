/**
 * The runtime cost of one compiled expression, remembered by the sizes of the values it reads:
 * the walk depends on nothing else, and the same shapes of data come back (the scalars of an
 * object are always of size 1), so most evaluations cost a look-up of those sizes.
 */
import type { Range } from './estimate.js'
import { type CostSizes, activationSizes, valuesSize } from './sizes.js'
import { type AstNode, CostWalk } from './walk.js'

const REMEMBERED = 256

export function runtimeCoster(ast: AstNode): (activation: Record<string, unknown>) => bigint {
  /** Every path a walk asked the size of, by its key. */
  const paths = new Map<string, readonly string[]>()
  const costs = new Map<string, bigint>()
  const keyOf = (activation: Record<string, unknown>): string => {
    let key = ''
    for (const path of paths.values()) {
      const r: Range | undefined = valuesSize(activation, path)
      key += r ? `${r.min}:${r.max},` : '-,'
    }
    return key
  }
  return (activation) => {
    const key = keyOf(activation)
    const known = costs.get(key)
    if (known !== undefined) return known
    const sizes = activationSizes(activation)
    let grew = false
    const recording: CostSizes = {
      actual: true,
      size(path) {
        const k = path.join('\u0000')
        if (!paths.has(k)) {
          paths.set(k, [...path])
          grew = true
        }
        return sizes.size(path)
      },
      kind: () => undefined,
    }
    const cost = new CostWalk(recording).cost(ast).max
    if (grew) costs.clear()
    if (costs.size >= REMEMBERED) costs.clear()
    costs.set(grew ? keyOf(activation) : key, cost)
    return cost
  }
}
