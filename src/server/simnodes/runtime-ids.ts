/**
 * The image and container IDs a kubelet's container runtime (containerd) reports in a pod's
 * container statuses, which kwok's stages leave out: `imageID` is required by clients that
 * validate the status (the official Python client refuses a V1ContainerStatus without it).
 * No image is pulled here, so the digest is the SHA-256 of the image reference: stable for an
 * image, different between images, in the runtime's format
 * (`docker.io/library/nginx@sha256:<64 hex>`, `containerd://<64 hex>`).
 */
import { createHash } from 'node:crypto'

type Obj = Record<string, unknown>

const STATUS_LISTS = ['initContainerStatuses', 'containerStatuses', 'ephemeralContainerStatuses'] as const

/** The pod status with `imageID` (and `containerID` for started containers) where missing. */
export function withRuntimeIds(status: Obj, podUid: string): Obj {
  let changed = false
  const out: Obj = { ...status }
  for (const list of STATUS_LISTS) {
    const statuses = status[list]
    if (!Array.isArray(statuses)) continue
    out[list] = statuses.map((s: Obj) => {
      const filled = fillContainerStatus(s, podUid)
      if (filled !== s) changed = true
      return filled
    })
  }
  return changed ? out : status
}

function fillContainerStatus(s: Obj, podUid: string): Obj {
  const state = (s.state ?? {}) as Obj
  const started = state.running !== undefined || state.terminated !== undefined
  const image = typeof s.image === 'string' ? s.image : ''
  const add: Obj = {}
  // The kubelet reports an empty imageID for a container still waiting for its image.
  if (s.imageID === undefined) add.imageID = started && image ? imageId(image) : ''
  if (s.containerID === undefined && started) add.containerID = `containerd://${sha256(`${podUid}/${String(s.name)}/${String(s.restartCount ?? 0)}`)}`
  return Object.keys(add).length ? { ...s, ...add } : s
}

/** containerd's image ID: the repository, fully qualified as Docker names it, at a digest. */
export function imageId(image: string): string {
  const repository = fullyQualified(stripTagAndDigest(image))
  return `${repository}@sha256:${sha256(image)}`
}

function stripTagAndDigest(image: string): string {
  const at = image.indexOf('@')
  const named = at >= 0 ? image.slice(0, at) : image
  const slash = named.lastIndexOf('/')
  const colon = named.lastIndexOf(':')
  return colon > slash ? named.slice(0, colon) : named
}

/** Docker's normalisation: `nginx` → `docker.io/library/nginx`, `me/app` → `docker.io/me/app`. */
function fullyQualified(repository: string): string {
  const first = repository.split('/')[0] ?? ''
  const hasRegistry = repository.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost')
  if (hasRegistry) return repository
  return repository.includes('/') ? `docker.io/${repository}` : `docker.io/library/${repository}`
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}
