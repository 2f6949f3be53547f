/** GET of a collection: `<Kind>List` or a Table, with selectors, paging and resourceVersion. */
import { queryInt64 } from '../query.js'
import { checkPartialForm, partialObjectMetadata } from '../negotiation.js'
import type { KubeObject } from '../registry/object.js'
import { tableHead, tableRow } from '../table.js'
import type { Cause } from '../status-errors.js'
import { type Scope, forbidden, includeObject, listOptionsInvalid, selection, responseOutput } from './scope.js'
import { type ListSource, collect, mapSource, sourceOfItems, sourceOfStream, writeListStream } from './list-stream.js'

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
  const listKind = `${store.strategy.kind}List`
  // Asking for one object's metadata form of a list is the reference's 406, before any read.
  if (output.kind === 'partial') checkPartialForm(output, true, listKind)
  let source: ListSource
  const metadata: Record<string, unknown> = {}
  if (limit === 0 && !query.get('continue')) {
    // A whole list: read page by page as it is written.
    const options = { ...selection(scope), resourceVersion: rv, resourceVersionMatch: rvMatch }
    const stream = await store.streamList(options)
    metadata.resourceVersion = stream.resourceVersion
    source = sourceOfStream(stream, (resourceVersion) => store.streamList({ ...options, resourceVersion, resourceVersionMatch: 'Exact' }))
  } else {
    const result = await store.list({
      ...selection(scope),
      limit,
      ...(query.get('continue') ? { continue: query.get('continue')! } : {}),
      resourceVersion: rv,
      resourceVersionMatch: rvMatch,
    })
    metadata.resourceVersion = result.resourceVersion
    if (result.continue) metadata.continue = result.continue
    if (result.remainingItemCount !== undefined) metadata.remainingItemCount = result.remainingItemCount
    source = sourceOfItems(result.items)
  }
  if (output.kind === 'table') {
    const columns = store.strategy.table
    const options = { apiVersion: output.apiVersion, include: includeObject(query) }
    const now = Date.now()
    // A kind whose printer orders the rows (a small collection) has them sorted in memory.
    if (columns.order) source = sourceOfItems(((await collect(source)) as KubeObject[]).sort(columns.order))
    const rows = mapSource(source, (obj) => tableRow(columns, obj as KubeObject, now, options.include))
    await writeListStream(scope.res, [output.format ?? 'json'], tableHead(columns, metadata, options), 'rows', rows)
    return
  }
  if (output.kind === 'partial') {
    const items = mapSource(source, (obj) => partialObjectMetadata(obj, output.apiVersion))
    await writeListStream(scope.res, output.formats, { kind: 'PartialObjectMetadataList', apiVersion: output.apiVersion, metadata }, 'items', items)
    return
  }
  await writeListStream(scope.res, output.formats ?? [output.kind], { kind: listKind, apiVersion: store.apiVersion, metadata }, 'items', source)
}
