/** GET of one object: the object (JSON, YAML or protobuf) or a one-row Table. */
import { writeObject } from '../negotiation.js'
import { toTable } from '../table.js'
import { type Scope, includeObject, responseOutput } from './scope.js'

export async function getHandler(scope: Scope): Promise<void> {
  const output = responseOutput(scope, true)
  const obj = await scope.store.get(scope.namespace, scope.name!)
  if (output.kind === 'table') {
    const table = toTable(scope.store.strategy.table, [obj], { resourceVersion: obj.metadata.resourceVersion }, { apiVersion: output.apiVersion, include: includeObject(scope.query) })
    await writeObject(scope.res, 200, table, output)
    return
  }
  await writeObject(scope.res, 200, obj, output)
}
