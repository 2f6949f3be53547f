/** GET of one object: the object (JSON, YAML or protobuf) or a one-row Table. */
import { PROTOBUF_MEDIA_TYPE } from '../../../core/protobuf/index.js'
import { type Output, send, writeObject } from '../negotiation.js'
import { toTable } from '../table.js'
import { type Scope, includeObject, responseOutput } from './scope.js'

/**
 * Not async: a GET of the current state (no resourceVersion) from a store that reads at once,
 * as JSON or as stored protobuf bytes, is answered within the request's own call (no promise,
 * no saved frame); anything else reads through the store's promise.
 */
export function getHandler(scope: Scope): void | Promise<void> {
  const output = responseOutput(scope, true)
  const resourceVersion = scope.query.get('resourceVersion') ?? undefined
  if (prefersProtobuf(output)) {
    const found = scope.store.getForProtobufNow(scope.namespace, scope.name!, resourceVersion)
    if (!found) return getProtobuf(scope, output, resourceVersion)
    if ('bytes' in found) {
      send(scope.res, 200, PROTOBUF_MEDIA_TYPE, found.bytes)
      return
    }
    return writeObject(scope.res, 200, found.object, output)
  }
  if (output.kind === 'json' && (output.formats?.[0] ?? 'json') === 'json') {
    // The object's JSON as kept for its stored revision (see getJson): what writeObject would send.
    const json = scope.store.getJsonNow(scope.namespace, scope.name!, resourceVersion)
    if (json) {
      send(scope.res, 200, 'application/json', json)
      return
    }
    return getJson(scope, resourceVersion)
  }
  return getOther(scope, output, resourceVersion)
}

async function getProtobuf(scope: Scope, output: Output, resourceVersion: string | undefined): Promise<void> {
  // The stored protobuf as it is, when it already is the answer (see getForProtobuf).
  const found = await scope.store.getForProtobuf(scope.namespace, scope.name!, resourceVersion)
  if ('bytes' in found) {
    send(scope.res, 200, PROTOBUF_MEDIA_TYPE, found.bytes)
    return
  }
  await writeObject(scope.res, 200, found.object, output)
}

async function getJson(scope: Scope, resourceVersion: string | undefined): Promise<void> {
  send(scope.res, 200, 'application/json', await scope.store.getJson(scope.namespace, scope.name!, resourceVersion))
}

async function getOther(scope: Scope, output: Output, resourceVersion: string | undefined): Promise<void> {
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
