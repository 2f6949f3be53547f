import assert from 'node:assert/strict'
import type { ApiWatchEvent } from '../../../../src/server/api/registry/generic-store.js'
import { type GroupMember, jsonWatchGroup, protobufWatchGroup } from '../../../../src/server/api/handlers/watch-group.js'
import { protobufCodec } from '../../../../src/server/api/negotiation.js'

/** A member that records the frames it takes, or why it broke. */
function member(): GroupMember & { frames: Buffer[]; events: ApiWatchEvent[]; broke: string[] } {
  const m = {
    frames: [] as Buffer[],
    events: [] as ApiWatchEvent[],
    broke: [] as string[],
    take(frame: Buffer, event: ApiWatchEvent) {
      m.frames.push(frame)
      m.events.push(event)
    },
    broken(error: Error) {
      m.broke.push(error.message)
    },
    event() {
      throw new Error('a grouped change never goes to the member sink')
    },
    end() {},
  }
  return m
}

const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', resourceVersion: '7' }, data: { a: name } })

describe('watch: a group of watchers of one format encodes a change once', () => {
  it('JSON: every member takes the same frame (one Buffer), the watch event line of the change, in order', () => {
    const members = [member(), member(), member()]
    const added: ApiWatchEvent = { type: 'ADDED', object: configMap('a') }
    const modified: ApiWatchEvent = { type: 'MODIFIED', object: configMap('b') }
    jsonWatchGroup().event(added, members)
    jsonWatchGroup().event(modified, members)
    for (const m of members) {
      assert.equal(m.frames.length, 2)
      assert.equal(m.frames[0], members[0]!.frames[0], 'the same Buffer for every member')
      assert.equal(m.frames[1], members[0]!.frames[1])
      assert.deepEqual(m.events, [added, modified])
    }
    assert.deepEqual(JSON.parse(members[0]!.frames[0]!.toString()), { type: 'ADDED', object: configMap('a') })
    assert.ok(members[0]!.frames[1]!.toString().endsWith('}\n'), 'one line per event')
  })

  it('protobuf: one group per API version; its frame is the length-prefixed WatchEvent the codec makes', async () => {
    const codec = await protobufCodec()
    assert.equal(protobufWatchGroup(codec, 'v1'), protobufWatchGroup(codec, 'v1'))
    assert.notEqual(protobufWatchGroup(codec, 'v1'), protobufWatchGroup(codec, 'apps/v1'))
    const members = [member(), member()]
    const ev: ApiWatchEvent = { type: 'ADDED', object: configMap('p') }
    protobufWatchGroup(codec, 'v1').event(ev, members)
    assert.equal(members[0]!.frames[0], members[1]!.frames[0])
    // A 4-byte big-endian length, then a WatchEvent with the type and the object in its envelope (k8s\0 + Unknown).
    const frame = members[0]!.frames[0]!
    assert.equal(frame.readUInt32BE(0), frame.length - 4)
    for (const part of ['ADDED', 'k8s\u0000', 'ConfigMap', 'v1']) assert.ok(frame.includes(Buffer.from(part)), part)
  })

  it('a change that cannot be encoded breaks every member, and none takes a frame', () => {
    const members = [member(), member()]
    const cyclic: Record<string, unknown> = { metadata: { name: 'loop' } }
    cyclic.self = cyclic
    jsonWatchGroup().event({ type: 'ADDED', object: cyclic }, members)
    for (const m of members) {
      assert.equal(m.frames.length, 0)
      assert.equal(m.broke.length, 1)
      assert.match(m.broke[0]!, /circular/i)
    }
  })
})
