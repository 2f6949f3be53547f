/**
 * The bytes of a watch event, made once per format and shared by every watcher that sends it
 * in that format (the reference's cacher serializes an event once per encoder and hands the
 * same bytes to each watcher). Keyed by the event's object: changes the watch cache fans out
 * arrive as one shared object (see registry/shared-decodes.ts), so a thousand JSON watchers
 * cost one JSON.stringify. Outputs that differ per watcher (Tables, whose first row carries the
 * column definitions) are not shared.
 */
import type { ProtobufCodec } from '../../../core/protobuf/index.js'

const frames = new WeakMap<object, Map<string, Buffer>>()

/**
 * The last JSON frame made or found: the watch cache hands one event to every watcher in
 * turn, so a thousand watchers ask for the same frame one after another, and an identity check
 * answers them without the maps (and without building the variant's key string each time).
 */
let lastJson: { object: object; type: string; frame: Buffer } | undefined

function shared(object: object, variant: string, make: () => Buffer): Buffer {
  let byVariant = frames.get(object)
  if (!byVariant) frames.set(object, (byVariant = new Map()))
  let frame = byVariant.get(variant)
  if (frame === undefined) byVariant.set(variant, (frame = make()))
  return frame
}

/**
 * One line of a JSON watch: `{"type":…,"object":…}` and a newline, as UTF-8 bytes: a string
 * would be encoded again for every watcher's socket.
 */
export function jsonFrame(type: string, object: Record<string, unknown>): Buffer {
  if (lastJson !== undefined && lastJson.object === object && lastJson.type === type) return lastJson.frame
  const frame = shared(object, `json\u0000${type}`, () => Buffer.from(`${JSON.stringify({ type, object })}\n`))
  lastJson = { object, type, frame }
  return frame
}

/** One length-prefixed protobuf WatchEvent. */
export function protobufFrame(codec: ProtobufCodec, type: string, object: Record<string, unknown>, apiVersion: string): Buffer {
  return shared(object, `protobuf\u0000${type}\u0000${apiVersion}`, () => codec.encodeWatchFrame(type, object, apiVersion))
}
