/**
 * Watchers that send changes the same way (one output format, no selectors, read-only):
 * the watch cache hands each change to their group once, and the group encodes it once and
 * queues the same frame on every member's sender in one tight loop, instead of each watcher's
 * stream, translation and handler taking the change in turn (about 1.5 µs per watcher and
 * change with 1,000 watchers, most of it touching each watcher's objects). As the reference's
 * cacher, which serializes an event once per encoder and hands it to each watcher's channel,
 * every member keeps its own sender: its order, its buffer and backpressure, its flush window
 * and its end (watch-sender.ts). Tables and PartialObjectMetadata are made per watcher and are
 * never grouped.
 */
import type { ProtobufCodec } from '../../../core/protobuf/index.js'
import type { ApiWatchEvent, ApiWatchGroup, ApiWatchSink } from '../registry/generic-store.js'
import { jsonFrame, protobufFrame } from './watch-frames.js'

/** A watch that belongs to a group: its own sink, and what the group hands it. */
export interface GroupMember extends ApiWatchSink {
  /** One change, encoded for the whole group (a shared frame: never changed). */
  take(frame: Buffer, event: ApiWatchEvent): void
  /** The group could not encode a change: this watch ends. */
  broken(error: Error): void
}

function groupOf(encode: (event: ApiWatchEvent) => Buffer): ApiWatchGroup<GroupMember> {
  return {
    event(event, members) {
      let frame: Buffer
      try {
        frame = encode(event)
      } catch (err) {
        for (const m of members) m.broken(err as Error)
        return
      }
      for (let i = 0; i < members.length; i++) members[i]!.take(frame, event)
    },
  }
}

const jsonGroup = groupOf((event) => jsonFrame(event.type, event.object))
const protobufGroups = new WeakMap<ProtobufCodec, Map<string, ApiWatchGroup<GroupMember>>>()

/** The group of the JSON watchers (JSON frames depend on nothing else). */
export function jsonWatchGroup(): ApiWatchGroup<GroupMember> {
  return jsonGroup
}

/** The group of the protobuf watchers of one API version. */
export function protobufWatchGroup(codec: ProtobufCodec, apiVersion: string): ApiWatchGroup<GroupMember> {
  let byVersion = protobufGroups.get(codec)
  if (byVersion === undefined) protobufGroups.set(codec, (byVersion = new Map()))
  let group = byVersion.get(apiVersion)
  if (group === undefined) byVersion.set(apiVersion, (group = groupOf((event) => protobufFrame(codec, event.type, event.object, apiVersion))))
  return group
}
