/**
 * An ApplyConfiguration mutation merged into the object (the reference's
 * mutating/patch/smd.go ApplyStructuredMergeDiff): the configuration must type against the
 * object's schema, may not set an atomic list, map or struct (that would drop what it leaves
 * out), and is merged with server-side apply's rules: leaves replaced, map-lists merged by key,
 * atomic values replaced whole. No field ownership is recorded (managedFields stay as they are).
 */
import { type TypeNode, fieldType, isNamedField, merge, resolve, validationErrors } from '../../../../core/apply/index.js'

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** structured-merge-diff's ValidationErrors text: one error as itself, more as a list. */
function validationText(errs: string[]): string {
  return errs.length === 1 ? errs[0]! : ['errors:', ...errs.map((e) => `  ${e}`)].join('\n')
}

/**
 * The paths of the atomic lists, maps and structs `value` sets (the reference's findAtomics):
 * struct fields are followed, list items by index; map entries are not.
 */
export function findAtomics(value: unknown, node: TypeNode, path = ''): string[] {
  const n = resolve(node, value)
  const atomics: string[] = []
  if (isObj(value) && n.k === 'map') {
    if (n.atomic) atomics.push(path)
    for (const [k, v] of Object.entries(value)) {
      if (isNamedField(n, k)) atomics.push(...findAtomics(v, fieldType(n, k), `${path}.${k}`))
    }
  }
  if (Array.isArray(value) && n.k === 'list') {
    if (n.type === 'atomic') atomics.push(path)
    value.forEach((item, i) => atomics.push(...findAtomics(item, n.elem, `${path}[${i}]`)))
  }
  return atomics
}

/** The object with `patch` merged in; throws with the reference's messages. */
export function applyStructuredMergeDiff(type: TypeNode, original: Obj, patch: Obj): Obj {
  const typedPatch = { ...patch, apiVersion: original.apiVersion, kind: original.kind }
  const patchErrors = validationErrors(typedPatch, type)
  if (patchErrors.length > 0) throw new Error(`failed to convert patch object to typed object: ${validationText(patchErrors)}`)
  const atomics = findAtomics(typedPatch, type)
  if (atomics.length > 0) throw new Error(`invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${atomics.join(', ')}`)
  // The live object is typed allowing duplicate list entries (the reference's type converter
  // does): a merge that does not touch them keeps them, one that does keeps the merged entry.
  // Fields its kind does not declare never reach the reference's admission (decoding drops
  // them); here they may, and the merge keeps them as they are.
  const originalErrors = validationErrors(original, type).filter((e) => !/: duplicate entries for key |: field not declared in schema$/.test(e))
  if (originalErrors.length > 0) throw new Error(`failed to convert original object to typed object: ${validationText(originalErrors)}`)
  return merge(original, typedPatch, type) as Obj
}
