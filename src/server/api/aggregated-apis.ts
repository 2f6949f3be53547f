/**
 * What the resource API asks of the aggregation layer (src/server/aggregator/), which sits
 * above it: whether an extension server serves a group version (then its requests are proxied
 * there, as the reference's aggregator routes them before its local delegate), and the resources
 * the extension servers publish, which discovery lists beside the local kinds.
 */
import type { Handler } from '../http/types.js'
import type { Strategy } from './registry/strategy.js'

export interface AggregatedApis {
  /** The proxy of an APIService backed by a service for this group version; undefined when it is local. */
  remote(group: string, version: string): Handler | undefined
  /**
   * The resources of the available extension servers as discovery reads kinds (group, version,
   * resource, kind, scope, verbs, short names, categories, subresources); nothing else of a
   * Strategy is read from them.
   */
  discoveredKinds(): readonly Strategy[]
  /** The extension servers' OpenAPI v3 documents, by their `/openapi/v3` path (`apis/<group>/<version>`). */
  openApiV3Documents(): ReadonlyMap<string, Record<string, unknown>>
  /** The extension servers' OpenAPI v2 documents, to be merged into `/openapi/v2`. */
  openApiV2Documents(): readonly Record<string, unknown>[]
  /** Changes whenever one of those documents does (the merged documents are built again then). */
  openApiRevision(): number
}
