/**
 * Writing the objects a new cluster starts with. Each is created only when absent, so a
 * restart (or a second server on the same store) leaves what is there alone.
 */
import { randomUUID } from 'node:crypto'
import { AlreadyExistsError } from '../store/errors.js'
import type { Store } from '../store/types.js'
import type { BootstrapObject } from '../api/bootstrap/object.js'

export type { BootstrapObject }

/** Adds the metadata the server sets on create (uid, creationTimestamp). */
function withServerMetadata(object: Record<string, unknown>, now = new Date()): Record<string, unknown> {
  const metadata = { ...(object.metadata as Record<string, unknown>) }
  metadata.uid ??= randomUUID()
  metadata.creationTimestamp ??= now.toISOString().replace(/\.\d{3}Z$/, 'Z')
  return { ...object, metadata }
}

/** How an object becomes stored bytes (the server's storage media type); JSON by default. */
type ObjectEncoder = (object: Record<string, unknown>) => Buffer

const asJson: ObjectEncoder = (object) => Buffer.from(JSON.stringify(object))

/**
 * Creates each object that does not exist yet; returns how many were created. All are asked
 * for at once: the embedded store commits the creates of one turn together (one disk sync
 * instead of one per object) and etcd gets them pipelined, where one after the other a first
 * start spent a sync or a round trip on each of the 130 default RBAC objects.
 */
export async function ensureObjects(store: Store, objects: readonly BootstrapObject[], encode: ObjectEncoder = asJson): Promise<number> {
  const outcomes = await Promise.all(
    objects.map(async ({ key, object }) => {
      if (await store.get(key)) return 0
      try {
        await store.create(key, encode(withServerMetadata(object)))
        return 1
      } catch (err) {
        // Another server on the same store got there first: fine.
        if (!(err instanceof AlreadyExistsError)) throw err
        return 0
      }
    }),
  )
  return outcomes.reduce((sum: number, n) => sum + n, 0)
}
