/**
 * The reference's apiequality.Semantic.DeepEqual on a built-in object's JSON, as its strategies
 * use it to decide whether a spec changed (and metadata.generation moves): an empty list and an
 * absent (or null) one are equal, because a Go slice that is nil and one that is empty compare
 * equal there. `kubectl apply` of a file with `namespaces: []` in a pod affinity term, applied
 * twice, must leave the generation alone (test/cmd/apps.sh, run_daemonset_tests). Empty objects
 * are not folded: in JSON a map and a struct pointer look alike, and a nil pointer and a pointer
 * to an empty struct differ for the reference.
 */
type Json = unknown

export function semanticEqual(a: Json, b: Json): boolean {
  if (isEmptyList(a) && isEmptyList(b)) return true
  if (a === b) return true
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    return a.every((v, i) => semanticEqual(v, b[i]))
  }
  if (!isObject(a) || !isObject(b)) return false
  const keys = new Set([...Object.keys(a), ...Object.keys(b)])
  for (const key of keys) if (!semanticEqual(a[key], b[key])) return false
  return true
}

/** Absent, null or []: what a nil or empty Go slice becomes. */
function isEmptyList(v: Json): boolean {
  return v === undefined || v === null || (Array.isArray(v) && v.length === 0)
}

function isObject(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
