/**
 * A port of k8s.io/client-go/util/jsonpath (parser + evaluator) as used by kubectl's
 * `-o jsonpath=...` printer, including its quirks (e.g. `['a.b']` is split on dots).
 */
import { compare, fromGo, goEqual, type CmpValue } from './compare.js'
import { formatFloatG, formatInt, goJson, goTypeName, isInt, isMap, sortedKeys } from './values.js'

type Node =
  | { type: 'list'; nodes: Node[] }
  | { type: 'text'; text: string }
  | { type: 'field'; value: string }
  | { type: 'identifier'; name: string }
  | { type: 'array'; params: Param[] }
  | { type: 'filter'; left: Node; right: Node; operator: string }
  | { type: 'int'; value: number }
  | { type: 'float'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'wildcard' }
  | { type: 'recursive' }
  | { type: 'union'; nodes: Node[] }

interface Param {
  value: number
  known: boolean
  derived: boolean
}

export class JsonPathParseError extends Error {}

const EOF = ''

class Parser {
  input = ''
  pos = 0
  start = 0
  root: Node & { type: 'list' } = { type: 'list', nodes: [] }

  parse(text: string): void {
    this.input = text
    this.pos = 0
    this.start = 0
    this.root = { type: 'list', nodes: [] }
    this.parseText(this.root)
  }

  private next(): string {
    if (this.pos >= this.input.length) {
      this.pos = this.input.length + 1 // mirror Go's width-0 EOF handling via backup()
      return EOF
    }
    const cp = this.input.codePointAt(this.pos)!
    const ch = String.fromCodePoint(cp)
    this.pos += ch.length
    this.lastWidth = ch.length
    return ch
  }
  private lastWidth = 0
  private backup(): void {
    if (this.pos > this.input.length) {
      this.pos = this.input.length
      return
    }
    this.pos -= this.lastWidth
  }
  private peek(): string {
    const save = this.pos
    const w = this.lastWidth
    const r = this.next()
    this.pos = Math.min(save, this.input.length)
    this.lastWidth = w
    return r
  }
  private consumeText(): string {
    if (this.pos > this.input.length) this.pos = this.input.length
    const value = this.input.slice(this.start, this.pos)
    this.start = this.pos
    return value
  }

  private parseText(cur: Node & { type: 'list' }): void {
    for (;;) {
      if (this.input.startsWith('{', this.pos)) {
        if (this.pos > this.start) cur.nodes.push({ type: 'text', text: this.consumeText() })
        return this.parseLeftDelim(cur)
      }
      if (this.next() === EOF) break
    }
    if (this.pos > this.input.length) this.pos = this.input.length
    if (this.pos > this.start) cur.nodes.push({ type: 'text', text: this.consumeText() })
  }

  private parseLeftDelim(cur: Node & { type: 'list' }): void {
    this.pos += 1
    this.consumeText()
    const list: Node & { type: 'list' } = { type: 'list', nodes: [] }
    cur.nodes.push(list)
    this.parseInsideAction(list)
  }

  private parseInsideAction(cur: Node & { type: 'list' }): void {
    for (;;) {
      const rest = this.input.slice(Math.min(this.pos, this.input.length))
      if (rest.startsWith('}')) {
        this.pos += 1
        this.consumeText()
        return this.parseText(this.root)
      }
      if (rest.startsWith('[?(')) {
        this.parseFilter(cur)
        continue
      }
      if (rest.startsWith('..')) {
        this.parseRecursive(cur)
        continue
      }
      const r = this.next()
      if (r === EOF || r === '\r' || r === '\n') throw new JsonPathParseError('unclosed action')
      if (r === ' ') {
        this.consumeText()
      } else if (r === '@' || r === '$') {
        this.consumeText()
      } else if (r === '[') {
        this.parseArray(cur)
      } else if (r === '"' || r === "'") {
        this.parseQuote(cur, r)
      } else if (r === '.') {
        this.parseField(cur)
      } else if (r === '+' || r === '-' || /\p{Nd}/u.test(r)) {
        this.backup()
        this.parseNumber(cur)
      } else if (isAlphaNumeric(r)) {
        this.backup()
        this.parseIdentifier(cur)
      } else {
        throw new JsonPathParseError(`unrecognized character in action: ${goUnicodeRepr(r)}`)
      }
    }
  }

  private parseIdentifier(cur: Node & { type: 'list' }): void {
    for (;;) {
      const r = this.next()
      if (isTerminator(r)) {
        this.backup()
        break
      }
    }
    const value = this.consumeText()
    if (value === 'true' || value === 'false') cur.nodes.push({ type: 'bool', value: value === 'true' })
    else cur.nodes.push({ type: 'identifier', name: value })
  }

  private parseRecursive(cur: Node & { type: 'list' }): void {
    const last = cur.nodes[cur.nodes.length - 1]
    if (last && last.type === 'recursive') throw new JsonPathParseError('invalid multiple recursive descent')
    this.pos += 2
    this.consumeText()
    cur.nodes.push({ type: 'recursive' })
    const r = this.peek()
    if (isAlphaNumeric(r)) this.parseField(cur)
  }

  private parseNumber(cur: Node & { type: 'list' }): void {
    const r = this.peek()
    if (r === '+' || r === '-') this.next()
    for (;;) {
      const c = this.next()
      if (c !== '.' && !/\p{Nd}/u.test(c)) {
        this.backup()
        break
      }
    }
    const value = this.consumeText()
    if (/^[+-]?\d+$/.test(value) && Math.abs(Number(value)) < 2 ** 63) {
      cur.nodes.push({ type: 'int', value: Number(value) })
      return
    }
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(value)) {
      cur.nodes.push({ type: 'float', value: Number(value) })
      return
    }
    throw new JsonPathParseError(`cannot parse number ${value}`)
  }

  private parseArray(cur: Node & { type: 'list' }): void {
    for (;;) {
      const r = this.next()
      if (r === EOF || r === '\n') throw new JsonPathParseError('unterminated array')
      if (r === ']') break
    }
    let text = this.consumeText()
    text = text.slice(1, -1)
    if (text === '*') text = ':'
    const strs = text.split(',')
    if (strs.length > 1) {
      const union: Node[] = []
      for (const s of strs) union.push(parseAction(`[${s.replace(/^ +| +$/g, '')}]`))
      cur.nodes.push({ type: 'union', nodes: union })
      return
    }
    const dict = /^'([^']*)'$/.exec(text)
    if (dict) {
      const root = parseAction(`.${dict[1]}`) as Node & { type: 'list' }
      cur.nodes.push(...root.nodes)
      return
    }
    const m = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/.exec(text)
    if (!m) throw new JsonPathParseError(`invalid array index ${text}`)
    const value = [m[1] ?? '', m[2] ?? '', m[3] ?? '']
    const params: Param[] = [
      { value: 0, known: false, derived: false },
      { value: 0, known: false, derived: false },
      { value: 0, known: false, derived: false },
    ]
    for (let i = 0; i < 3; i++) {
      if (value[i] !== '') {
        if (i > 0) value[i] = value[i]!.slice(1)
        if (i > 0 && value[i] === '') params[i]!.known = false
        else {
          if (!/^[+-]?\d+$/.test(value[i]!)) throw new JsonPathParseError(`array index ${value[i]} is not a number`)
          params[i] = { value: Number(value[i]), known: true, derived: false }
        }
      } else if (i === 1) {
        params[1] = { value: params[0]!.value + 1, known: true, derived: true }
      }
    }
    cur.nodes.push({ type: 'array', params })
  }

  private parseFilter(cur: Node & { type: 'list' }): void {
    this.pos += 3
    this.consumeText()
    let begin = false
    let end = false
    let pair = ''
    for (;;) {
      const r = this.next()
      if (r === EOF || r === '\n') throw new JsonPathParseError('unterminated filter')
      if (r === '"' || r === "'") {
        if (!begin) {
          begin = true
          pair = r
          continue
        }
        if (this.input[this.pos - 2] !== '\\' && r === pair) end = true
      } else if (r === ')') {
        if (begin === end) break
      }
    }
    if (this.next() !== ']') throw new JsonPathParseError('unclosed array expect ]')
    let text = this.consumeText()
    text = text.slice(0, -2)
    const m = /^([^!<>=]+)([!<>=]+)(.+?)$/s.exec(text)
    if (!m) {
      cur.nodes.push({ type: 'filter', left: parseAction(text), right: { type: 'list', nodes: [] }, operator: 'exists' })
    } else {
      cur.nodes.push({ type: 'filter', left: parseAction(m[1]!), right: parseAction(m[3]!), operator: m[2]! })
    }
  }

  private parseQuote(cur: Node & { type: 'list' }, end: string): void {
    for (;;) {
      const r = this.next()
      if (r === EOF || r === '\n') throw new JsonPathParseError('unterminated quoted string')
      if (r === '\\') {
        const n = this.next()
        if (n === EOF || n === '\n') throw new JsonPathParseError('unterminated quoted string')
        continue
      }
      if (r === end) break
    }
    const value = this.consumeText()
    let s: string
    try {
      s = unquoteExtend(value)
    } catch (e) {
      throw new JsonPathParseError(`unquote string ${value} error ${(e as Error).message}`)
    }
    cur.nodes.push({ type: 'text', text: s })
  }

  private parseField(cur: Node & { type: 'list' }): void {
    this.consumeText()
    for (;;) {
      const r = this.next()
      if (r === '\\') {
        this.next()
        continue
      }
      if (isTerminator(r)) {
        this.backup()
        break
      }
    }
    const value = this.consumeText()
    if (value === '*') cur.nodes.push({ type: 'wildcard' })
    else cur.nodes.push({ type: 'field', value: value.replace(/\\/g, '') })
  }
}

function parseAction(text: string): Node {
  const p = new Parser()
  p.parse(`{${text}}`)
  return p.root
}

function isTerminator(r: string): boolean {
  return r === EOF || ' .,[]$@{}'.includes(r)
}
function isAlphaNumeric(r: string): boolean {
  return r === '_' || /[\p{L}\p{Nd}]/u.test(r)
}
function goUnicodeRepr(r: string): string {
  const c = r.codePointAt(0)!
  return `U+${c.toString(16).toUpperCase().padStart(4, '0')} '${r}'`
}

/** Go's strconv.Unquote, extended to single-quoted strings. */
function unquoteExtend(s: string): string {
  if (s.length < 2) throw new Error('invalid syntax')
  const q = s[0]
  if ((q !== '"' && q !== "'") || s[s.length - 1] !== q) throw new Error('invalid syntax')
  const body = s.slice(1, -1)
  let out = ''
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!
    if (c === q) throw new Error('invalid syntax')
    if (c !== '\\') {
      out += c
      continue
    }
    const n = body[++i]
    const simple: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"' }
    if (n !== undefined && simple[n] !== undefined) out += simple[n]
    else if (n === 'x' || n === 'u' || n === 'U') {
      const len = n === 'x' ? 2 : n === 'u' ? 4 : 8
      const hex = body.slice(i + 1, i + 1 + len)
      if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) throw new Error('invalid syntax')
      out += n === 'x' ? Buffer.from([parseInt(hex, 16)]).toString('latin1') : String.fromCodePoint(parseInt(hex, 16))
      i += len
    } else if (n !== undefined && /[0-7]/.test(n)) {
      const oct = body.slice(i, i + 3)
      if (!/^[0-7]{3}$/.test(oct)) throw new Error('invalid syntax')
      out += String.fromCharCode(parseInt(oct, 8))
      i += 2
    } else throw new Error('invalid syntax')
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Evaluation. A "value" is a GoValue, or { byte } for indexing a string (Go's uint8).

type Val = unknown

export class JsonPathExecError extends Error {}

export class JsonPath {
  private parser = new Parser()
  private beginRange = 0
  private inRange = 0
  private endRange = 0
  private lastEndNode: Node | undefined
  allowMissingKeys = true
  outputJSON = false

  constructor(text: string) {
    this.parser.parse(text)
  }

  execute(data: unknown): string {
    this.beginRange = this.inRange = this.endRange = 0
    const root = this.parser.root.nodes
    let full: Val[][]
    try {
      full = this.findResults(data, root)
    } finally {
      this.parser.root.nodes = root
    }
    let out = ''
    for (const results of full) out += this.printResults(results)
    return out
  }

  private findResults(data: unknown, nodes: Node[]): Val[][] {
    const full: Val[][] = []
    const cur: Val[] = [data]
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!
      const results = this.walk(cur, node)
      if (this.endRange > 0 && this.endRange <= this.inRange) {
        this.endRange--
        this.lastEndNode = nodes[i]
        break
      }
      if (this.beginRange > 0) {
        this.beginRange--
        this.inRange++
        if (results.length > 0) {
          for (const value of results) full.push(...this.findResults(value, nodes.slice(i + 1)))
        } else {
          this.findResults(null, nodes.slice(i + 1))
        }
        this.inRange--
        for (let k = i + 1; k < nodes.length; k++) {
          if (nodes[k] === this.lastEndNode) {
            i = k
            break
          }
        }
        continue
      }
      full.push(results)
    }
    return full
  }

  private printResults(results: Val[]): string {
    if (this.outputJSON) results = [results]
    let out = ''
    results.forEach((r, i) => {
      let text: string
      const composite = Array.isArray(r) || isMap(r)
      if (this.outputJSON) text = goJson(r, '    ') + '\n'
      else if (composite) text = goJson(r)
      else text = evalToText(r)
      if (i !== results.length - 1) text += ' '
      out += text
    })
    return out
  }

  private walk(value: Val[], node: Node): Val[] {
    switch (node.type) {
      case 'list':
        return this.evalList(value, node)
      case 'text':
        return [node.text]
      case 'field':
        return this.evalField(value, node.value)
      case 'array':
        return this.evalArray(value, node.params)
      case 'filter':
        return this.evalFilter(value, node)
      case 'int':
        return value.map(() => node.value)
      case 'float':
        return value.map(() => new FloatConst(node.value))
      case 'bool':
        return value.map(() => node.value)
      case 'wildcard':
        return this.evalWildcard(value)
      case 'recursive':
        return this.evalRecursive(value)
      case 'union': {
        const result: Val[] = []
        for (const n of node.nodes) result.push(...this.evalList(value, n as Node & { type: 'list' }))
        return result
      }
      case 'identifier':
        if (node.name === 'range') {
          this.beginRange++
          return value
        }
        if (node.name === 'end') {
          if (this.inRange > 0) {
            this.endRange++
            return []
          }
          throw new JsonPathExecError('not in range, nothing to end')
        }
        throw new JsonPathExecError(`unrecognized identifier ${node.name}`)
    }
  }

  private evalList(value: Val[], node: Node & { type: 'list' }): Val[] {
    let cur = value
    for (const n of node.nodes) cur = this.walk(cur, n)
    return cur
  }

  private evalField(input: Val[], name: string): Val[] {
    const results: Val[] = []
    if (input.length === 0) return results
    for (const value of input) {
      if (value === null || value === undefined) continue
      if (isMap(value) && !isByte(value) && !isFloatConst(value) && Object.prototype.hasOwnProperty.call(value, name)) {
        results.push(value[name])
      }
    }
    if (results.length === 0) {
      if (this.allowMissingKeys) return results
      throw new JsonPathExecError(`${name} is not found`)
    }
    return results
  }

  private evalArray(input: Val[], params: Param[]): Val[] {
    const result: Val[] = []
    for (const raw of input) {
      if (raw === null || raw === undefined) continue
      if (!Array.isArray(raw)) throw new JsonPathExecError(`${typeName(raw)} is not array or slice`)
      const value: Val[] = raw
      const p = params.map((x) => ({ ...x }))
      const len = value.length
      if (!p[0]!.known) p[0]!.value = 0
      if (p[0]!.value < 0) p[0]!.value += len
      if (!p[1]!.known) p[1]!.value = len
      if (p[1]!.value < 0 || (p[1]!.value === 0 && p[1]!.derived)) p[1]!.value += len
      if (p[1]!.value !== p[0]!.value) {
        if (p[0]!.value >= len || p[0]!.value < 0) throw new JsonPathExecError(`array index out of bounds: index ${p[0]!.value}, length ${len}`)
        if (p[1]!.value > len || p[1]!.value < 0) throw new JsonPathExecError(`array index out of bounds: index ${p[1]!.value - 1}, length ${len}`)
        if (p[0]!.value > p[1]!.value) throw new JsonPathExecError(`starting index ${p[0]!.value} is greater than ending index ${p[1]!.value}`)
      } else {
        return result
      }
      const sliced = value.slice(p[0]!.value, p[1]!.value)
      let step = 1
      if (p[2]!.known) {
        if (p[2]!.value <= 0) throw new JsonPathExecError('step must be > 0')
        step = p[2]!.value
      }
      for (let i = 0; i < sliced.length; i += step) result.push(sliced[i])
    }
    return result
  }

  private children(value: Val): Val[] | undefined {
    if (Array.isArray(value)) return value
    if (typeof value === 'string') return Array.from(Buffer.from(value, 'utf8')).map((b) => new GoByte(b))
    if (isMap(value) && !isByte(value) && !isFloatConst(value)) return sortedKeys(value).map((k) => value[k])
    return undefined
  }

  private evalWildcard(input: Val[]): Val[] {
    const results: Val[] = []
    for (const value of input) {
      if (value === null || value === undefined) continue
      const c = this.children(value)
      if (c) results.push(...c)
    }
    return results
  }

  private evalRecursive(input: Val[]): Val[] {
    const result: Val[] = []
    for (const value of input) {
      if (value === null || value === undefined) continue
      const c = this.children(value) ?? []
      if (c.length !== 0) {
        result.push(value)
        result.push(...this.evalRecursive(c))
      }
    }
    return result
  }

  private evalFilter(input: Val[], node: Node & { type: 'filter' }): Val[] {
    const results: Val[] = []
    for (const value of input) {
      if (!Array.isArray(value)) throw new JsonPathExecError(`${goSprintForFilter(value)} is not array or slice and cannot be filtered`)
      for (const item of value) {
        const temp = [item]
        if (node.operator === 'exists') {
          let lefts: Val[] = []
          try {
            lefts = this.evalList(temp, node.left as Node & { type: 'list' })
          } catch {
            lefts = []
          }
          if (lefts.length > 0) results.push(item)
          continue
        }
        const lefts = this.evalList(temp, node.left as Node & { type: 'list' })
        if (lefts.length === 0) continue
        if (lefts.length > 1) throw new JsonPathExecError('can only compare one element at a time')
        const rights = this.evalList(temp, node.right as Node & { type: 'list' })
        if (rights.length === 0) continue
        if (rights.length > 1) throw new JsonPathExecError('can only compare one element at a time')
        const left = toCmp(lefts[0])
        const right = toCmp(rights[0])
        let pass: boolean
        try {
          switch (node.operator) {
            case '<':
              pass = compare(left, right) < 0
              break
            case '>':
              pass = compare(left, right) > 0
              break
            case '==':
              pass = goEqual(left, [right])
              break
            case '!=':
              pass = !goEqual(left, [right])
              break
            case '<=':
              pass = compare(left, right) <= 0
              break
            case '>=':
              pass = compare(left, right) >= 0
              break
            default:
              throw new JsonPathExecError(`unrecognized filter operator ${node.operator}`)
          }
        } catch (e) {
          throw new JsonPathExecError((e as Error).message)
        }
        if (pass) results.push(item)
      }
    }
    return results
  }
}

class GoByte {
  constructor(readonly byte: number) {}
}
class FloatConst {
  constructor(readonly float: number) {}
}
function isByte(v: unknown): v is GoByte {
  return v instanceof GoByte
}
function isFloatConst(v: unknown): v is FloatConst {
  return v instanceof FloatConst
}

function typeName(v: Val): string {
  if (isByte(v)) return 'uint8'
  if (isFloatConst(v)) return 'float64'
  return goTypeName(v)
}

function toCmp(v: Val): CmpValue {
  if (isFloatConst(v)) return { kind: 'float', value: v.float }
  if (isByte(v)) return { kind: 'uint', value: BigInt(v.byte) }
  return fromGo(v)
}

function goSprintForFilter(v: Val): string {
  if (isByte(v)) return String(v.byte)
  return formatV(v)
}

function formatV(v: Val): string {
  if (v === null || v === undefined) return '<nil>'
  if (typeof v === 'string') return v
  if (typeof v === 'boolean') return String(v)
  if (isInt(v)) return formatInt(v)
  if (typeof v === 'number') return formatFloatG(v)
  if (Array.isArray(v)) return `[${v.map(formatV).join(' ')}]`
  if (isMap(v)) return `map[${sortedKeys(v).map((k) => `${k}:${formatV(v[k])}`).join(' ')}]`
  return String(v)
}

function evalToText(v: Val): string {
  if (v === null || v === undefined) return 'null'
  if (isByte(v)) return String(v.byte)
  if (isFloatConst(v)) return formatFloatG(v.float)
  return formatV(v)
}

