/** GET of a collection: `<Kind>List` or a Table, with selectors, paging and resourceVersion. */
import { errors } from '../status-errors.js'
import { negotiateOutput, writeObject } from '../negotiation.js'
import { toTable } from '../table.js'
import { type Scope, includeObject, selection } from './scope.js'

function parseLimit(value: string | null): number {
  if (value === null || value === '') return 0
  if (!/^-?\d+$/.test(value)) throw errors.badRequest(`limit: Invalid value: ${JSON.stringify(value)}: must be an integer`)
  return Math.max(0, Number(value))
}

export async function listHandler(scope: Scope): Promise<void> {
  const { query, store } = scope
  const output = negotiateOutput(scope.req.headers.accept, { table: true, customResource: store.strategy.customResource ?? false })
  const rvMatch = query.get('resourceVersionMatch') ?? ''
  if (rvMatch !== '' && rvMatch !== 'Exact' && rvMatch !== 'NotOlderThan') {
    throw errors.badRequest(`resourceVersionMatch: Unsupported value: ${JSON.stringify(rvMatch)}: supported values: "Exact", "NotOlderThan"`)
  }
  const rv = query.get('resourceVersion') ?? ''
  if (rvMatch !== '' && rv === '') throw errors.badRequest('resourceVersionMatch is forbidden unless resourceVersion is provided')
  const result = await store.list({
    ...selection(scope),
    limit: parseLimit(query.get('limit')),
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
