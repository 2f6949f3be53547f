/**
 * ImageLocality (pkg/scheduler/framework/plugins/imagelocality): nodes that already hold the
 * pod's images (status.images) score higher, each image's size scaled by the share of nodes
 * holding it (so an image everywhere does not pull pods together), the sum clamped between
 * 23 MiB and 1000 MiB per container and mapped onto 0-100.
 */
import { MAX_NODE_SCORE, type ScorePlugin } from '../framework.js'
import { nodeStatus, podSpec } from '../objects.js'

const MB = 1024 * 1024
const MIN_THRESHOLD = 23 * MB
const MAX_CONTAINER_THRESHOLD = 1000 * MB

/** normalizedImageName: an image without a tag or digest is `:latest`. */
export function normalizedImageName(name: string): string {
  return name.lastIndexOf(':') <= name.lastIndexOf('/') ? `${name}:latest` : name
}

export const imageLocalityScore: ScorePlugin = {
  name: 'ImageLocality',
  weight: 1,
  score(state, node) {
    const spec = podSpec(state.pod)
    const containers = [...(spec.initContainers ?? []), ...(spec.containers ?? [])]
    const sizes = new Map<string, number>()
    for (const image of nodeStatus(node.node!).images ?? []) for (const name of image.names ?? []) sizes.set(name, image.sizeBytes ?? 0)
    if (sizes.size === 0) return 0
    const total = state.nodes.length
    let sum = 0
    for (const c of containers) {
      const name = normalizedImageName(c.image ?? '')
      const size = sizes.get(name)
      if (size !== undefined) sum += Math.trunc(size * (state.cache.nodesWithImage(name) / total))
    }
    const max = MAX_CONTAINER_THRESHOLD * containers.length
    const clamped = Math.min(max, Math.max(MIN_THRESHOLD, sum))
    return Math.trunc((MAX_NODE_SCORE * (clamped - MIN_THRESHOLD)) / (max - MIN_THRESHOLD))
  },
}
