/**
 * The RBAC objects `--rbac-from` names: files, directories (always recursive; .yaml, .yml and
 * .json files), `-` for standard input, or URLs, read as `patch -f` reads its sources
 * (the patch command's resource builder), each a stream of YAML or JSON documents; Lists are
 * flattened. CustomResourceDefinitions add their resources to discovery (kubectl against a
 * server with them installed resolves their types); objects of other kinds are skipped, so a
 * whole repository of manifests can be given.
 */
import { resolveSources, splitStream } from '../patch-command/inputs.js'
import type { PatchIO } from '../patch-command/types.js'
import { loadYaml } from '../util/yaml.js'
import type { RbacObject } from '../rbac/policy.js'
import type { DiscoveredResource } from './resources.js'

const RBAC_KINDS = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'])

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** A document's objects: itself, or a List's items. */
function objectsOf(doc: unknown): Record<string, unknown>[] {
  if (!isRecord(doc)) return []
  if (Array.isArray(doc.items) && typeof doc.kind === 'string' && doc.kind.endsWith('List')) return doc.items.flatMap(objectsOf)
  return [doc]
}

/** What the inputs hold: RBAC objects, and the resources of their CustomResourceDefinitions. */
export interface PolicyInputs {
  rbac: RbacObject[]
  customResources: DiscoveredResource[]
}

/** A CRD's resource in each served version, as discovery lists it (the singular defaults to the lower-case kind). */
function customResources(crd: Record<string, unknown>): DiscoveredResource[] {
  const spec = isRecord(crd.spec) ? crd.spec : {}
  const names = isRecord(spec.names) ? spec.names : {}
  const str = (v: unknown) => (typeof v === 'string' ? v : '')
  const versions = Array.isArray(spec.versions) ? spec.versions.filter((v) => isRecord(v) && v.served !== false) : []
  return versions.map((v) => ({
    group: str(spec.group),
    version: str((v as Record<string, unknown>).name),
    resource: str(names.plural),
    singular: str(names.singular) || str(names.kind).toLowerCase(),
    namespaced: spec.scope === 'Namespaced',
    shortNames: Array.isArray(names.shortNames) ? names.shortNames.filter((n): n is string => typeof n === 'string') : [],
  }))
}

/** The inputs of the sources, in the order given; throws with the first unreadable source's message. */
export async function readPolicyInputs(names: readonly string[], io: PatchIO): Promise<PolicyInputs> {
  const inputs: PolicyInputs = { rbac: [], customResources: [] }
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
        if (obj.kind === 'CustomResourceDefinition') inputs.customResources.push(...customResources(obj))
        else if (typeof obj.kind === 'string' && RBAC_KINDS.has(obj.kind) && isRecord(obj.metadata)) inputs.rbac.push(obj as RbacObject)
      }
    }
  }
  return inputs
}
