/**
 * The duplicate fields of a JSON text, as the reference's strict decoder reports them
 * (`duplicate field "spec.replicas"`): JSON.parse keeps the last value silently, so the raw
 * text is scanned. Non-JSON text (YAML bodies) has none here: the YAML parser rejects them.
 *
 * It runs on every create and update body (fieldValidation Warn is the default), so it reads
 * character codes, skips string values without decoding them, decodes a key only when it has
 * an escape, and spells a field's path only when the field is a duplicate.
 */
const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d
}

/** `spec.a[0].x` from the segments leading to a field (a key, or an array index). */
function pathOf(segments: Array<string | number>): string {
  let path = ''
  for (const s of segments) path += typeof s === 'number' ? `[${s}]` : path === '' ? s : `.${s}`
  return path
}

export function duplicateFields(text: string): string[] {
  const found: string[] = []
  const segments: Array<string | number> = []
  const end = text.length
  let i = 0
  const ws = () => {
    while (i < end && isSpace(text.charCodeAt(i))) i++
  }
  // The next backslash at or after `i` (-1: none left): found once per backslash, not per string.
  let slash = -2
  /** Past the string starting at `i` (its opening quote); true when it holds an escape. */
  const skipString = (): boolean => {
    let escaped = false
    i++
    for (;;) {
      const quote = text.indexOf('"', i)
      if (quote < 0) {
        i = end
        return escaped
      }
      if (slash !== -1 && slash < i) slash = text.indexOf('\\', i)
      if (slash === -1 || slash > quote) {
        i = quote + 1
        return escaped
      }
      // An escape: the character after the backslash (a quote, maybe) is part of the string.
      escaped = true
      i = slash + 2
    }
  }
  const key = (): string => {
    const start = i
    const escaped = skipString()
    return escaped ? (JSON.parse(text.slice(start, i)) as string) : text.slice(start + 1, i - 1)
  }
  const value = (): void => {
    ws()
    const c = text.charCodeAt(i)
    if (c === OPEN_BRACE) {
      i++
      ws()
      if (text.charCodeAt(i) === CLOSE_BRACE) {
        i++
        return
      }
      let seen: Set<string> | undefined
      let first: string | undefined
      while (i < end) {
        ws()
        const name = key()
        // Most objects are small: the first key needs no set.
        let duplicate: boolean
        if (first === undefined) {
          first = name
          duplicate = false
        } else {
          seen ??= new Set([first])
          duplicate = seen.has(name)
          seen.add(name)
        }
        segments.push(name)
        if (duplicate) found.push(pathOf(segments))
        ws()
        i++ // ':'
        value()
        segments.pop()
        ws()
        if (text.charCodeAt(i) === COMMA) i++
        else {
          i++ // '}'
          return
        }
      }
    } else if (c === OPEN_BRACKET) {
      i++
      ws()
      if (text.charCodeAt(i) === CLOSE_BRACKET) {
        i++
        return
      }
      for (let n = 0; i < end; n++) {
        segments.push(n)
        value()
        segments.pop()
        ws()
        if (text.charCodeAt(i) === COMMA) i++
        else {
          i++ // ']'
          return
        }
      }
    } else if (c === QUOTE) skipString()
    else {
      while (i < end) {
        const d = text.charCodeAt(i)
        if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || isSpace(d)) break
        i++
      }
    }
  }
  try {
    ws()
    if (text.charCodeAt(i) !== OPEN_BRACE) return []
    value()
  } catch {
    return []
  }
  return found
}

/** `duplicate field "spec.replicas"`, as the strict decoder words it. */
export function duplicateFieldMessage(path: string): string {
  return `duplicate field ${JSON.stringify(path)}`
}
