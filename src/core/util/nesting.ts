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
  // Deeper than `max` takes more than `max` opening brackets.
  if (text.length <= max) return false
  let depth = 0
  // The next backslash at or after `i` (-1: none left), looked up once per backslash.
  let slash = -2
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // A string: jump from quote to quote (every request body is scanned, strings are most of it).
      for (;;) {
        const quote = text.indexOf('"', i + 1)
        if (quote < 0) return false
        if (slash !== -1 && slash <= i) slash = text.indexOf('\\', i + 1)
        if (slash === -1 || slash > quote) {
          i = quote
          break
        }
        // The character after a backslash is escaped, a quote included.
        i = slash + 1
      }
    } else if (c === 0x7b || c === 0x5b) {
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
