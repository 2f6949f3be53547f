/**
 * The RBAC objects `--rbac-from` names: files, directories (always recursive; .yaml, .yml and
 * .json files), `-` for standard input, or URLs, read as `patch -f` reads its sources
 * (the patch command's resource builder), each a stream of YAML or JSON documents; Lists are
 * flattened. Objects of other kinds are skipped: a whole repository of manifests can be given.
 */
import { resolveSources, splitStream } from '../patch-command/inputs.js'
import type { PatchIO } from '../patch-command/types.js'
import { loadYaml } from '../util/yaml.js'
import type { RbacObject } from '../rbac/policy.js'

const RBAC_KINDS = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'])

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** A document's objects: itself, or a List's items. */
function objectsOf(doc: unknown): Record<string, unknown>[] {
  if (!isRecord(doc)) return []
  if (Array.isArray(doc.items) && typeof doc.kind === 'string' && doc.kind.endsWith('List')) return doc.items.flatMap(objectsOf)
  return [doc]
}

/** The RBAC objects of the sources, in the order given; throws with the first unreadable source's message. */
export async function readRbacObjects(names: readonly string[], io: PatchIO): Promise<RbacObject[]> {
  const objects: RbacObject[] = []
  for (const source of resolveSources(names, true, io)) {
    const text = await source.read()
    for (const doc of splitStream(text)) {
      let value: unknown
      try {
        value = doc.json ? JSON.parse(doc.text) : loadYaml(doc.text)
      } catch (err) {
        throw new Error(`error parsing ${source.name}: ${(err as Error).message}`)
      }
      for (const obj of objectsOf(value)) {
        if (typeof obj.kind === 'string' && RBAC_KINDS.has(obj.kind) && isRecord(obj.metadata)) objects.push(obj as RbacObject)
      }
    }
  }
  return objects
}
