/** Go's name of a decoded JSON value's type, as its decoder's type errors name it (`cannot unmarshal array into ...`). */
export function goJsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'boolean') return 'bool'
  return typeof v === 'object' ? 'object' : typeof v
}
