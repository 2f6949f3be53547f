/**
 * The part of jq that kwok's stage selectors use as `matchExpressions` keys: paths (`.a.b`),
 * iteration (`.list.[]`, `.list[]`), pipes, and `select( <path> == "<text>" )`. A query gives a
 * stream of values; a missing field gives nothing (kwok treats null as absent).
 */
type Step = { kind: 'path'; names: Array<string | '[]'> } | { kind: 'select'; path: Step; value: unknown }

export function compileQuery(text: string): (input: unknown) => unknown[] {
  const steps = splitTop(text, '|').map((part) => parseStep(part.trim()))
  return (input) => {
    let stream: unknown[] = [input]
    for (const step of steps) stream = stream.flatMap((v) => run(step, v))
    return stream.filter((v) => v !== undefined && v !== null)
  }
}

function splitTop(text: string, sep: string): string[] {
  const parts: string[] = []
  let depth = 0
  let quoted = false
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '"' && text[i - 1] !== '\\') quoted = !quoted
    if (quoted) continue
    if (c === '(') depth++
    if (c === ')') depth--
    if (c === sep && depth === 0) {
      parts.push(text.slice(start, i))
      start = i + 1
    }
  }
  parts.push(text.slice(start))
  return parts
}

function parseStep(text: string): Step {
  const select = /^select\s*\((.*)\)$/s.exec(text)
  if (select) {
    const m = /^\s*(\.[^=\s]*)\s*==\s*(.+?)\s*$/s.exec(select[1]!)
    if (!m) throw new Error(`unsupported selector query: ${text}`)
    return { kind: 'select', path: parsePath(m[1]!), value: JSON.parse(m[2]!) as unknown }
  }
  return parsePath(text)
}

/** `.a.b`, `.a[]`, `.a.[]`, `.a["key with.dots"]`. */
function parsePath(text: string): Step {
  if (text === '.') return { kind: 'path', names: [] }
  if (!text.startsWith('.')) throw new Error(`unsupported selector query: ${text}`)
  const names: Array<string | '[]'> = []
  const re = /\.?(?:\[\]|\[("(?:[^"\\]|\\.)*")\]|([^.[\]]+))/y
  let at = 0
  while (at < text.length) {
    re.lastIndex = at
    const m = re.exec(text)
    if (!m || m[0].length === 0) throw new Error(`unsupported selector query: ${text}`)
    at = re.lastIndex
    if (m[1] !== undefined) names.push(JSON.parse(m[1]) as string)
    else if (m[2] !== undefined) names.push(m[2])
    else names.push('[]')
  }
  return { kind: 'path', names }
}

function run(step: Step, input: unknown): unknown[] {
  if (step.kind === 'select') return run(step.path, input).some((v) => v === step.value) ? [input] : []
  let stream: unknown[] = [input]
  for (const name of step.names) {
    stream = stream.flatMap((v) => {
      if (name === '[]') return Array.isArray(v) ? v : v && typeof v === 'object' ? Object.values(v) : []
      return v && typeof v === 'object' && !Array.isArray(v) ? [(v as Record<string, unknown>)[name]] : []
    })
  }
  return stream
}
