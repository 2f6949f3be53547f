/**
 * The duplicate fields of a JSON text, as the reference's strict decoder reports them
 * (`duplicate field "spec.replicas"`): JSON.parse keeps the last value silently, so the raw
 * text is scanned. Non-JSON text (YAML bodies) has none here: the YAML parser rejects them.
 */
export function duplicateFields(text: string): string[] {
  const found: string[] = []
  let i = 0
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++
  }
  const str = (): string => {
    const start = i
    i++
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1
    i++
    return JSON.parse(text.slice(start, i)) as string
  }
  const value = (path: string): void => {
    ws()
    const c = text[i]
    if (c === '{') {
      i++
      const seen = new Set<string>()
      ws()
      if (text[i] === '}') {
        i++
        return
      }
      while (i < text.length) {
        ws()
        const key = str()
        const child = path === '' ? key : `${path}.${key}`
        if (seen.has(key)) found.push(child)
        seen.add(key)
        ws()
        i++ // ':'
        value(child)
        ws()
        if (text[i] === ',') i++
        else {
          i++ // '}'
          return
        }
      }
    } else if (c === '[') {
      i++
      ws()
      if (text[i] === ']') {
        i++
        return
      }
      for (let n = 0; i < text.length; n++) {
        value(`${path}[${n}]`)
        ws()
        if (text[i] === ',') i++
        else {
          i++ // ']'
          return
        }
      }
    } else if (c === '"') str()
    else while (i < text.length && !',}] \t\n\r'.includes(text[i]!)) i++
  }
  try {
    ws()
    if (text[i] !== '{') return []
    value('')
  } catch {
    return []
  }
  return found
}

/** `duplicate field "spec.replicas"`, as the strict decoder words it. */
export function duplicateFieldMessage(path: string): string {
  return `duplicate field ${JSON.stringify(path)}`
}
