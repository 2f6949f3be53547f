/**
 * What the cost estimator knows of a variable's data beyond its CEL type: the reference's
 * DeclType (apiserver/pkg/cel/types.go) reduced to the kind, the fields, the element type and
 * MaxElements (string length, list items, map entries), which a schema's maxLength, maxItems
 * and maxProperties set, or the request size limit bounds (common/schemas.go).
 */

export type CelDeclKind = 'object' | 'map' | 'list' | 'string' | 'bytes' | 'int' | 'uint' | 'double' | 'bool' | 'duration' | 'timestamp' | 'dyn'

/** A value's kind as cel-go's cost functions tell overloads apart: a declared kind or the checker's. */
export type ValueKind = CelDeclKind | 'struct' | 'null' | 'type' | 'optional' | 'opaque'

export interface CelDeclType {
  readonly kind: CelDeclKind
  /** Object fields by their CEL (escaped) names. */
  readonly fields?: Readonly<Record<string, CelDeclType>>
  /** List items or map values. */
  readonly elem?: CelDeclType
  /** Map keys. */
  readonly key?: CelDeclType
  /** The largest size() a value can have; 0 for scalars, as the reference's simple types. */
  readonly maxElements: bigint
  /** The fewest bytes the value takes serialized as JSON (MinSerializedSize). */
  readonly minSerializedSize: bigint
}

/** Resolves a cost path (a variable, then field names, `@items`, `@values`, `@keys`) to the declared type there. */
export function declAt(root: CelDeclType | undefined, path: readonly string[]): CelDeclType | undefined {
  let node = root
  for (const step of path) {
    if (!node) return undefined
    if (step === '@items' || step === '@values') node = node.elem
    else if (step === '@keys' || step === '@indices') node = step === '@keys' ? node.key : undefined
    else node = node.fields?.[step]
  }
  return node
}
