/**
 * The reference's `application/vnd.kubernetes.protobuf` encoding. Nothing heavy loads with this
 * module: the descriptor (generated/k8s-descriptor.json) and protobufjs load on the first
 * loadProtobufCodec() call, so commands that never speak protobuf do not pay for them.
 */
import { ProtobufError } from './errors.js'
import { K8sProtobufCodec, isProtobufEnvelope } from './codec.js'
import type { K8sDescriptor } from './descriptor.js'
import { LazyRoot } from './lazy-root.js'

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf'
export const PROTOBUF_WATCH_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf;stream=watch'
export { ProtobufError, isProtobufEnvelope }

export interface ProtobufCodec {
  /** Whether a message exists for this apiVersion/kind (e.g. 'v1','Pod'; 'apps/v1','Deployment'; 'meta.k8s.io/v1','PartialObjectMetadataList'). */
  hasType(apiVersion: string, kind: string): boolean
  /** JSON object (with apiVersion and kind) -> 'k8s\0' + runtime.Unknown{typeMeta, raw}. Throws ProtobufError. */
  encode(obj: Record<string, unknown>): Buffer
  /** The reverse: JSON form with apiVersion/kind from the envelope's typeMeta (or from `expected` when the envelope's is empty). Throws ProtobufError. */
  decode(data: Buffer, expected?: { apiVersion: string; kind: string }): Record<string, unknown>
  /**
   * One frame of a protobuf watch stream, as the reference's raw stream serializer writes it: a
   * 4-byte big-endian length, then a bare metav1.WatchEvent {type, object: {raw: encode(object)}}
   * (no magic, no envelope: the frame's type is implied by the request). `groupVersion` fills the
   * object's apiVersion only when it has none.
   */
  encodeWatchFrame(type: string, object: Record<string, unknown>, groupVersion: string): Buffer
  /** Splits/decodes frames (for tests and the client side). */
  decodeWatchFrames(data: Buffer): { type: string; object: Record<string, unknown> }[]
}

let loading: Promise<ProtobufCodec> | undefined

/** Loads the descriptor once, on the first call. */
export function loadProtobufCodec(): Promise<ProtobufCodec> {
  loading ??= (async () => {
    const [{ default: protobuf }, { default: descriptor }] = await Promise.all([
      import('protobufjs/light.js'),
      import('./generated/k8s-descriptor.json', { with: { type: 'json' } }),
    ])
    const root = new LazyRoot(protobuf, descriptor.proto as protobuf.INamespace)
    return new K8sProtobufCodec(root, descriptor as unknown as K8sDescriptor)
  })()
  loading.catch(() => {
    loading = undefined
  })
  return loading
}
