/**
 * CEL's message construction syntax (`Object.spec{replicas: 3}`, `JSONPatch{op: "add"}`), which
 * @marcbachmann/cel-js does not parse, read as calls it does: the expression is rewritten
 * before parsing, each construction becoming a call of a constructor function registered for
 * that type name (`__new_0({"replicas": 3})`), each field name its quoted key. The rewrite
 * keeps, for every character it writes, the offset of the source character it stands for, so
 * that errors point into the expression as written.
 */

/** A construction's type name and the call it became. */
export interface Construction {
  readonly typeName: string
  readonly fn: string
}

export interface RewrittenExpression {
  /** What the library parses. */
  readonly text: string
  /** The offset in the original expression of each offset of `text` (its length + 1 entries). */
  readonly offsets: readonly number[]
  /** The distinct type names constructed, each with its function. */
  readonly constructions: readonly Construction[]
}

/** A construction the rewrite refuses, at an offset of the original expression. */
export class ConstructionError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message)
    this.name = 'ConstructionError'
  }
}

interface Token {
  readonly start: number
  readonly end: number
  readonly kind: 'ident' | 'string' | 'number' | 'punct' | 'space'
}

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y
const NUMBER = /(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)[uU]?/y
const SPACE = /(?:\s+|\/\/[^\n]*)+/y

function stringEnd(expression: string, start: number): number | undefined {
  const prefix = /[rRbB]{0,2}/y
  prefix.lastIndex = start
  const p = prefix.exec(expression)![0]
  const q = start + p.length
  const quoteChar = expression[q]
  if (quoteChar !== '"' && quoteChar !== "'") return undefined
  const raw = /[rR]/.test(p)
  const quote = expression.startsWith(quoteChar.repeat(3), q) ? quoteChar.repeat(3) : quoteChar
  let i = q + quote.length
  while (i < expression.length && !expression.startsWith(quote, i)) i += !raw && expression[i] === '\\' ? 2 : 1
  return Math.min(i + quote.length, expression.length)
}

function tokenize(expression: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  const at = (re: RegExp): number | undefined => {
    re.lastIndex = i
    return re.exec(expression) ? re.lastIndex : undefined
  }
  while (i < expression.length) {
    let end: number | undefined
    let kind: Token['kind']
    if ((end = stringEnd(expression, i)) !== undefined) kind = 'string'
    else if ((end = at(SPACE)) !== undefined) kind = 'space'
    else if ((end = at(NUMBER)) !== undefined) kind = 'number'
    else if ((end = at(IDENT)) !== undefined) kind = 'ident'
    else {
      end = i + 1
      kind = 'punct'
    }
    tokens.push({ start: i, end, kind })
    i = end
  }
  return tokens
}

/** The type names the reference's mutation type resolver knows (DynamicTypeResolver). */
function isKnownTypeName(name: string): boolean {
  return name === 'JSONPatch' || name === 'Object' || name.startsWith('Object.')
}

/** The JSONPatch fields and whether each is a string (`value` is dyn). */
export const JSON_PATCH_FIELDS: Readonly<Record<string, 'string' | 'dyn'>> = { op: 'string', path: 'string', from: 'string', value: 'dyn' }

/** The function checking a JSONPatch string field's type: `__JSONPatch_op(string): string`. */
export function jsonPatchFieldFunction(field: string): string {
  return `__JSONPatch_${field}`
}

/** The function `has(T{...}.f)` becomes: the library's has() macro only tests a selection on a variable. */
export const HAS_FIELD_FUNCTION = '__has'

/**
 * `has(<construction>.field)` as `__has(<construction>, "field")`: the edits, beside those of
 * the construction itself.
 */
function hasOnConstructions(significant: readonly Token[], text: (t: Token) => string): { start: number; end: number; replacement: string }[] {
  const edits: { start: number; end: number; replacement: string }[] = []
  for (let i = 0; i + 3 < significant.length; i++) {
    if (text(significant[i]!) !== 'has' || text(significant[i + 1]!) !== '(' || significant[i + 2]!.kind !== 'ident') continue
    let j = i + 2
    while (significant[j + 2] && text(significant[j + 1]!) === '.' && significant[j + 2]!.kind === 'ident') j += 2
    if (!significant[j + 1] || text(significant[j + 1]!) !== '{') continue
    let depth = 0
    let close = j + 1
    for (; close < significant.length; close++) {
      const t = text(significant[close]!)
      if (t === '(' || t === '[' || t === '{') depth++
      else if (t === ')' || t === ']' || t === '}') depth--
      if (depth === 0) break
    }
    const [dot, field, paren] = [significant[close + 1], significant[close + 2], significant[close + 3]]
    if (!dot || !field || !paren || text(dot) !== '.' || field.kind !== 'ident' || text(paren) !== ')') continue
    edits.push({ start: significant[i]!.start, end: significant[i]!.end, replacement: HAS_FIELD_FUNCTION })
    edits.push({ start: dot.start, end: paren.end, replacement: `, ${JSON.stringify(text(field))})` })
  }
  return edits
}

interface Frame {
  readonly construction?: { typeName: string; expectField: boolean; wrapped: boolean }
}

/**
 * Rewrites the constructions of `expression`. A type name other than `Object`, `Object.<path>`
 * and `JSONPatch` is an undeclared reference, a JSONPatch field other than its four an
 * undefined field, as cel-go's checker reports them.
 */
export function rewriteConstructions(expression: string): RewrittenExpression {
  const tokens = tokenize(expression)
  const significant = tokens.filter((t) => t.kind !== 'space')
  const text = (t: Token) => expression.slice(t.start, t.end)
  const edits: { start: number; end: number; replacement: string }[] = []
  const functions = new Map<string, string>()
  const stack: Frame[] = []
  const top = () => stack[stack.length - 1]

  edits.push(...hasOnConstructions(significant, text))
  for (let i = 0; i < significant.length; i++) {
    const token = significant[i]!
    const frame = top()
    const construction = frame?.construction
    if (construction?.expectField && token.kind === 'ident' && significant[i + 1] && text(significant[i + 1]!) === ':') {
      const field = text(token)
      if (construction.typeName === 'JSONPatch' && !(field in JSON_PATCH_FIELDS)) throw new ConstructionError(`undefined field '${field}'`, token.start)
      const typed = construction.typeName === 'JSONPatch' && JSON_PATCH_FIELDS[field] === 'string'
      edits.push({ start: token.start, end: token.end, replacement: JSON.stringify(field) })
      if (typed) edits.push({ start: significant[i + 1]!.end, end: significant[i + 1]!.end, replacement: `${jsonPatchFieldFunction(field)}(` })
      construction.expectField = false
      construction.wrapped = typed
      i++
      continue
    }
    if (token.kind === 'ident') {
      const previous = significant[i - 1]
      const startsPrimary = !previous || !['.', ')', ']'].includes(text(previous)) || previous.kind === 'string'
      let j = i
      while (significant[j + 2] && text(significant[j + 1]!) === '.' && significant[j + 2]!.kind === 'ident') j += 2
      const brace = significant[j + 1]
      if (startsPrimary && brace && text(brace) === '{') {
        const typeName = significant
          .slice(i, j + 1)
          .map(text)
          .join('')
        if (!isKnownTypeName(typeName)) throw new ConstructionError(`undeclared reference to '${typeName}' (in container '')`, token.start)
        let fn = functions.get(typeName)
        if (!fn) functions.set(typeName, (fn = `__new_${functions.size}`))
        edits.push({ start: token.start, end: brace.end, replacement: `${fn}({` })
        stack.push({ construction: { typeName, expectField: true, wrapped: false } })
        i = j + 1
        continue
      }
    }
    const punct = token.kind === 'punct' ? text(token) : ''
    if (punct === '{' || punct === '(' || punct === '[') stack.push({})
    else if (punct === '}' || punct === ')' || punct === ']') {
      const closed = stack.pop()
      if (closed?.construction) {
        if (closed.construction.wrapped) edits.push({ start: token.start, end: token.start, replacement: ')' })
        edits.push({ start: token.start, end: token.end, replacement: '})' })
      }
    } else if (punct === ',' && construction) {
      if (construction.wrapped) edits.push({ start: token.start, end: token.start, replacement: ')' })
      construction.expectField = true
      construction.wrapped = false
    }
  }

  let out = ''
  const offsets: number[] = []
  let from = 0
  const copy = (to: number) => {
    for (let k = from; k < to; k++) offsets.push(k)
    out += expression.slice(from, to)
  }
  for (const edit of edits.sort((a, b) => a.start - b.start || a.end - b.end)) {
    copy(edit.start)
    for (let k = 0; k < edit.replacement.length; k++) offsets.push(edit.start)
    out += edit.replacement
    from = edit.end
  }
  copy(expression.length)
  offsets.push(expression.length)
  return { text: out, offsets, constructions: [...functions].map(([typeName, fn]) => ({ typeName, fn })) }
}
