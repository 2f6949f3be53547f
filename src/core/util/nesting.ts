/**
 * The nesting bound of every structured input (JSON, YAML and protobuf bodies, patches,
 * manifests). The reference's decoders stop at 10,000 levels; this runtime's own recursion
 * (JSON.stringify, structuredClone, the patch engine) overflows its stack well before that,
 * which would turn a hostile body into a 500, so the bound here is lower: deep enough for any
 * real object (the deepest built-in schemas nest a few dozen levels), shallow enough that
 * everything downstream of the decoder stays within the stack.
 */
export const MAX_NESTING_DEPTH = 1000

/** The Go decoder's text for a document nested deeper than it accepts. */
export const EXCEEDED_MAX_DEPTH = 'exceeded max depth'

/**
 * Whether JSON text nests arrays and objects deeper than `max`, found by scanning the text
 * (strings skipped) before any parser recurses into it.
 */
export function jsonTextTooDeep(text: string, max = MAX_NESTING_DEPTH): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
      continue
    }
    if (c === 0x22) inString = true
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true
    } else if (c === 0x7d || c === 0x5d) depth--
  }
  return false
}

/** Whether a decoded value (without shared parts: JSON or protobuf) nests deeper than `max`. */
export function valueTooDeep(value: unknown, max = MAX_NESTING_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v)) continue
    if (depth + 1 > max) return true
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1])
    }
  }
  return false
}
