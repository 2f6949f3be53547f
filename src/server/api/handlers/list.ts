/** GET of a collection: `<Kind>List` or a Table, with selectors, paging and resourceVersion. */
import { queryInt64 } from '../../http/query.js'
import { writeObject } from '../negotiation.js'
import { toTable } from '../table.js'
import type { Cause } from '../status-errors.js'
import { type Scope, forbidden, includeObject, listOptionsInvalid, selection, responseOutput } from './scope.js'
import { writeJsonListStream } from './list-stream.js'

function parseLimit(query: URLSearchParams): number {
  return Math.max(0, queryInt64(query, 'limit') ?? 0)
}

/** The reference's ValidateListOptions for a list (not a watch): 422 with every cause. */
function validateListOptions(query: URLSearchParams, rv: string, rvMatch: string): void {
  const causes: Cause[] = []
  if (rvMatch !== '') {
    if (rv === '') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'))
    if ((query.get('continue') ?? '') !== '') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'))
    if (rvMatch !== 'Exact' && rvMatch !== 'NotOlderThan') {
      causes.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(rvMatch)}: supported values: "Exact", "NotOlderThan", ""`, field: 'resourceVersionMatch' })
    }
    if (rvMatch === 'Exact' && rv === '0') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'))
  }
  if (query.get('sendInitialEvents') !== null) causes.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'))
  if (causes.length > 0) throw listOptionsInvalid(causes)
}

export async function listHandler(scope: Scope): Promise<void> {
  const { query, store } = scope
  const output = responseOutput(scope, true)
  const rvMatch = query.get('resourceVersionMatch') ?? ''
  const rv = query.get('resourceVersion') ?? ''
  validateListOptions(query, rv, rvMatch)
  // A list has no use for timeoutSeconds, but the reference decodes it (and refuses a bad one) all the same.
  queryInt64(query, 'timeoutSeconds')
  const limit = parseLimit(query)
  // A whole list in JSON is written as it is read (pages come with no limit and continue).
  if (limit === 0 && !query.get('continue') && output.kind === 'json' && (output.formats?.[0] ?? 'json') === 'json') {
    const stream = await store.streamList({ ...selection(scope), resourceVersion: rv, resourceVersionMatch: rvMatch })
    await writeJsonListStream(scope.res, { kind: `${store.strategy.kind}List`, apiVersion: store.apiVersion, metadata: { resourceVersion: stream.resourceVersion } }, stream)
    return
  }
  const result = await store.list({
    ...selection(scope),
    limit,
    ...(query.get('continue') ? { continue: query.get('continue')! } : {}),
    resourceVersion: rv,
    resourceVersionMatch: rvMatch,
  })
  const metadata: Record<string, unknown> = { resourceVersion: result.resourceVersion }
  if (result.continue) metadata.continue = result.continue
  if (result.remainingItemCount !== undefined) metadata.remainingItemCount = result.remainingItemCount
  if (output.kind === 'table') {
    await writeObject(scope.res, 200, toTable(store.strategy.table, result.items, metadata, { apiVersion: output.apiVersion, include: includeObject(query) }), output)
    return
  }
  await writeObject(scope.res, 200, { kind: `${store.strategy.kind}List`, apiVersion: store.apiVersion, metadata, items: result.items }, output)
}
