/** Go's `%+v` of a decoded JSON value (map[string]interface{} and friends), as error messages quote patches. */
export function goFormat(v: unknown): string {
  if (v === null || v === undefined) return '<nil>'
  if (Array.isArray(v)) return `[${v.map(goFormat).join(' ')}]`
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `map[${entries.map(([k, x]) => `${k}:${goFormat(x)}`).join(' ')}]`
  }
  return String(v)
}
