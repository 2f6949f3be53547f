/**
 * The containers of a pod spec with their field paths, in the reference's
 * VisitContainersWithPath order: init containers, containers, then ephemeral containers.
 */
import { isPlainObject } from '../api/registry/object.js'

export interface ContainerAt {
  /** The container, changed in place by mutating plugins. */
  readonly container: Record<string, unknown>
  /** `spec.containers[0]`. */
  readonly path: string
}

const KINDS = ['initContainers', 'containers', 'ephemeralContainers'] as const

export function podContainers(spec: unknown): ContainerAt[] {
  if (!isPlainObject(spec)) return []
  const found: ContainerAt[] = []
  for (const kind of KINDS) {
    const list = spec[kind]
    if (!Array.isArray(list)) continue
    list.forEach((container, i) => {
      if (isPlainObject(container)) found.push({ container, path: `spec.${kind}[${i}]` })
    })
  }
  return found
}
