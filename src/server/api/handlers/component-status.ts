/**
 * `componentstatuses` (list and get): not stored, computed per request as the reference's
 * componentstatus REST does. This server's only component to probe is its store, answered as
 * `etcd-0` (the reference's name for the first storage backend). Deprecated there since 1.19,
 * with the same Warning header.
 */
import { writeObject } from '../negotiation.js'
import type { Store } from '../../store/types.js'
import { errors } from '../status-errors.js'
import { toTable } from '../table.js'
import type { KubeObject } from '../registry/object.js'
import { type Scope, includeObject, responseOutput } from './scope.js'

const DEPRECATION = '299 - "v1 ComponentStatus is deprecated in v1.19+"'
const STORE_COMPONENT = 'etcd-0'

async function componentStatus(store: Store): Promise<KubeObject> {
  let condition: Record<string, unknown>
  try {
    await store.healthCheck(5000)
    condition = { type: 'Healthy', status: 'True', message: 'ok' }
  } catch (err) {
    condition = { type: 'Healthy', status: 'False', message: '', error: (err as Error).message }
  }
  return { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name: STORE_COMPONENT }, conditions: [condition] }
}

export async function componentStatusHandler(scope: Scope, store: Store): Promise<void> {
  scope.res.setHeader('Warning', DEPRECATION)
  const output = responseOutput(scope, true)
  const items = [await componentStatus(store)]
  if (scope.name !== undefined) {
    const item = items.find((i) => i.metadata.name === scope.name)
    if (!item) throw errors.notFound({ group: '', resource: 'componentstatuses' }, scope.name)
    if (output.kind === 'table') return writeObject(scope.res, 200, toTable(scope.store.strategy.table, [item], {}, { apiVersion: output.apiVersion, include: includeObject(scope.query) }), output)
    return writeObject(scope.res, 200, item, output)
  }
  if (output.kind === 'table') return writeObject(scope.res, 200, toTable(scope.store.strategy.table, items, {}, { apiVersion: output.apiVersion, include: includeObject(scope.query) }), output)
  await writeObject(scope.res, 200, { kind: 'ComponentStatusList', apiVersion: 'v1', metadata: {}, items: items.map(({ kind: _k, apiVersion: _a, ...rest }) => rest) }, output)
}
