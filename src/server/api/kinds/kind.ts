/**
 * The shape of a built-in kind's entry: what differs from the common strategy (data-strategy.ts)
 * for one generated kind. Each API group's file holds its kinds' entries in one KindTable; the
 * generated ResourceInfo (names, scope, verbs, subresources) comes from api/generated/.
 */
import type { ResourceInfo } from '../generated/resources.js'
import type { KubeObject } from '../registry/object.js'
import type { Strategy } from '../registry/strategy.js'

/**
 * One kind's behaviour beyond the common strategy: any Strategy member (validation, field
 * selectors, Table columns, storeHooks...) replaces the common one, except that
 * prepareForCreate and prepareForUpdate run after the common ones and selectableFields and
 * fields add to metadata.name (and metadata.namespace).
 */
export type KindOverrides = Partial<Omit<Strategy, keyof ResourceInfo>> & {
  /**
   * The scheme's defaulting (the reference's SetDefaults_*): run on every object the kind
   * receives, created, replaced or patched, before the strategy's own preparation.
   */
  defaults?(obj: KubeObject): void
  /**
   * The status belongs to the status subresource: a create drops the status it is sent and an
   * update keeps the stored one (the reference's PrepareForCreate/PrepareForUpdate).
   */
  statusOwnedBySubresource?: boolean
  /** Subresources served by handlers of their own rather than the generic store (ApiDeps.virtualHandlers). */
  virtualSubresources?: readonly string[]
}

/**
 * The entries of one API group's kinds, by `<group>/<version>/<resource>` (the core group's
 * as `/v1/<resource>`). A beta or alpha version without an entry of its own behaves as its GA
 * version's entry says.
 */
export type KindTable = Readonly<Record<string, KindOverrides>>
