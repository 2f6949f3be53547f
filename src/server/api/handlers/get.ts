/** GET of one object: the object (JSON, YAML or protobuf) or a one-row Table. */
import { PROTOBUF_MEDIA_TYPE } from '../../../core/protobuf/index.js'
import { type Output, send, writeObject } from '../negotiation.js'
import { toTable } from '../table.js'
import { type Scope, includeObject, responseOutput } from './scope.js'

export async function getHandler(scope: Scope): Promise<void> {
  const output = responseOutput(scope, true)
  const resourceVersion = scope.query.get('resourceVersion') ?? undefined
  if (prefersProtobuf(output)) {
    // The stored protobuf as it is, when it already is the answer (see getForProtobuf).
    const found = await scope.store.getForProtobuf(scope.namespace, scope.name!, resourceVersion)
    if ('bytes' in found) {
      send(scope.res, 200, PROTOBUF_MEDIA_TYPE, found.bytes)
      return
    }
    await writeObject(scope.res, 200, found.object, output)
    return
  }
  if (output.kind === 'json' && (output.formats?.[0] ?? 'json') === 'json') {
    // The object's JSON as kept for its stored revision (see getJson): what writeObject would send.
    send(scope.res, 200, 'application/json', await scope.store.getJson(scope.namespace, scope.name!, resourceVersion))
    return
  }
  const obj = await scope.store.get(scope.namespace, scope.name!, resourceVersion)
  if (output.kind === 'table') {
    const table = toTable(scope.store.strategy.table, [obj], { resourceVersion: obj.metadata.resourceVersion }, { apiVersion: output.apiVersion, include: includeObject(scope.query) })
    await writeObject(scope.res, 200, table, output)
    return
  }
  await writeObject(scope.res, 200, obj, output)
}

/** Protobuf is the first choice of the negotiated output (the reader's Accept put it first). */
function prefersProtobuf(output: Output): boolean {
  return output.kind === 'protobuf' && (output.formats?.[0] ?? 'protobuf') === 'protobuf'
}
