/**
 * A port of the parts of Go's text/template that kubectl's go-template printer users rely on:
 * actions, pipelines, variables, if/else if/with/range/else/break/continue, trim markers,
 * comments and the builtin functions (and, or, not, len, index, slice, print, printf, println,
 * html, js, urlquery, eq, ne, lt, le, gt, ge) plus kubectl's base64decode.
 * Error messages follow Go's wording: `template: output:1:12: executing "output" at <.x>: ...`.
 * Not supported: define/template/block, call, method calls, complex numbers.
 */
import { compare, errNoComparison, fromGo, goEqual, type CmpValue } from './compare.js'
import { GoFloat, GoInt, GoUint8, floatValue, intValue, sprint, sprintf, sprintln, sprintValue, typeOf } from './gofmt.js'
import { isGoPrint, isInt, isMap, sortedKeys } from './values.js'

const NAME = 'output'

export class TemplateParseError extends Error {}

// ---------------------------------------------------------------------------------------------
// lexer

type ItemType =
  | 'text' | 'leftDelim' | 'rightDelim' | 'identifier' | 'field' | 'variable' | 'dot' | 'string' | 'rawString'
  | 'char' | 'charConstant' | 'number' | 'bool' | 'nil' | 'pipe' | 'leftParen' | 'rightParen' | 'declare' | 'assign'
  | 'space' | 'keyword' | 'EOF' | 'error' | 'comment'

interface Item {
  typ: ItemType
  pos: number
  val: string
  line: number
}

const KEYWORDS = new Set(['if', 'else', 'end', 'range', 'with', 'define', 'template', 'block', 'break', 'continue'])
const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\r' || c === '\n'
const isAlnum = (c: string | undefined) => c !== undefined && (c === '_' || /[\p{L}\p{Nd}]/u.test(c))

function lex(input: string): Item[] {
  const items: Item[] = []
  let pos = 0
  let start = 0
  let line = 1
  let startLine = 1
  const emit = (typ: ItemType) => {
    items.push({ typ, pos: start, val: input.slice(start, pos), line: startLine })
    start = pos
    startLine = line
  }
  const fail = (msg: string) => {
    items.push({ typ: 'error', pos: start, val: msg, line: startLine })
  }
  const advance = (n: number) => {
    for (let k = 0; k < n; k++) if (input[pos + k] === '\n') line++
    pos += n
  }
  const ignore = () => {
    start = pos
    startLine = line
  }
  const hasRightTrim = (at: number) => input[at] === ' ' && input[at + 1] === '-' && input.startsWith('}}', at + 2)

  // returns false on error
  for (;;) {
    // lexText
    const x = input.indexOf('{{', pos)
    if (x < 0) {
      advance(input.length - pos)
      if (pos > start) emit('text')
      items.push({ typ: 'EOF', pos, val: '', line })
      return items
    }
    let textEnd = x
    const trimLeft = input[x + 2] === '-' && isSpace(input[x + 3])
    if (trimLeft) {
      while (textEnd > start && isSpace(input[textEnd - 1])) textEnd--
    }
    advance(textEnd - pos)
    if (pos > start) emit('text')
    advance(x - pos)
    ignore()
    // lexLeftDelim
    advance(2)
    const afterMarker = trimLeft ? 2 : 0
    if (input.startsWith('/*', pos + afterMarker)) {
      advance(afterMarker)
      ignore()
      const end = input.indexOf('*/', pos)
      if (end < 0) {
        fail('unclosed comment')
        return items
      }
      advance(end + 2 - pos)
      let trimRight = false
      if (hasRightTrim(pos)) {
        trimRight = true
        advance(2)
      }
      if (!input.startsWith('}}', pos)) {
        fail('comment ends before closing delimiter')
        return items
      }
      advance(2)
      if (trimRight) while (isSpace(input[pos])) advance(1)
      ignore()
      continue
    }
    emit('leftDelim')
    advance(afterMarker)
    ignore()
    let parenDepth = 0
    // lexInsideAction
    for (;;) {
      if (hasRightTrim(pos) || input.startsWith('}}', pos)) {
        if (parenDepth !== 0) {
          fail('unclosed left paren')
          return items
        }
        const trim = hasRightTrim(pos)
        if (trim) {
          advance(2)
          ignore()
        }
        advance(2)
        emit('rightDelim')
        if (trim) {
          while (isSpace(input[pos])) advance(1)
          ignore()
        }
        break
      }
      const r = input[pos]
      if (r === undefined) {
        fail('unclosed action')
        return items
      }
      if (isSpace(r)) {
        while (isSpace(input[pos]) && !hasRightTrim(pos)) advance(1)
        emit('space')
        continue
      }
      if (r === '=') {
        advance(1)
        emit('assign')
      } else if (r === ':') {
        if (input[pos + 1] !== '=') {
          fail('expected :=')
          return items
        }
        advance(2)
        emit('declare')
      } else if (r === '|') {
        advance(1)
        emit('pipe')
      } else if (r === '"') {
        advance(1)
        for (;;) {
          const c = input[pos]
          if (c === '\\') {
            advance(1)
            if (input[pos] === undefined || input[pos] === '\n') {
              fail('unterminated quoted string')
              return items
            }
            advance(1)
            continue
          }
          if (c === undefined || c === '\n') {
            fail('unterminated quoted string')
            return items
          }
          advance(1)
          if (c === '"') break
        }
        emit('string')
      } else if (r === '`') {
        const end = input.indexOf('`', pos + 1)
        if (end < 0) {
          fail('unterminated raw quoted string')
          return items
        }
        advance(end + 1 - pos)
        emit('rawString')
      } else if (r === '$') {
        advance(1)
        while (isAlnum(input[pos])) advance(1)
        emit('variable')
      } else if (r === "'") {
        advance(1)
        for (;;) {
          const c = input[pos]
          if (c === '\\') {
            advance(2)
            continue
          }
          if (c === undefined || c === '\n') {
            fail('unterminated character constant')
            return items
          }
          advance(1)
          if (c === "'") break
        }
        emit('charConstant')
      } else if (r === '.' && !/[0-9]/.test(input[pos + 1] ?? '')) {
        advance(1)
        while (isAlnum(input[pos])) advance(1)
        emit(pos - start === 1 ? 'dot' : 'field')
      } else if (r === '+' || r === '-' || r === '.' || /[0-9]/.test(r)) {
        const m = /^[+-]?(0[xX][0-9a-fA-F_]*(\.[0-9a-fA-F_]*)?([pP][+-]?[0-9_]+)?|0[bBoO][0-9_]+|[0-9_]*(\.[0-9_]*)?([eE][+-]?[0-9_]+)?)[i]?/.exec(input.slice(pos))
        const len = m && m[0].length > 0 && !/^[+-]$/.test(m[0]) ? m[0].length : 0
        if (len === 0 || isAlnum(input[pos + len])) {
          let end = pos + Math.max(len, 1)
          while (isAlnum(input[end]) || input[end] === '.') end++
          fail(`bad number syntax: ${JSON.stringify(input.slice(pos, end))}`)
          return items
        }
        advance(len)
        emit('number')
      } else if (isAlnum(r)) {
        while (isAlnum(input[pos])) advance(1)
        const word = input.slice(start, pos)
        if (KEYWORDS.has(word)) emit('keyword')
        else if (word === 'true' || word === 'false') emit('bool')
        else if (word === 'nil') emit('nil')
        else emit('identifier')
      } else if (r === '(') {
        advance(1)
        emit('leftParen')
        parenDepth++
      } else if (r === ')') {
        advance(1)
        emit('rightParen')
        parenDepth--
        if (parenDepth < 0) {
          fail('unexpected right paren')
          return items
        }
      } else if (r.charCodeAt(0) < 0x80 && isGoPrint(r)) {
        advance(1)
        emit('char')
      } else {
        const cp = input.codePointAt(pos)!
        fail(`unrecognized character in action: U+${cp.toString(16).toUpperCase().padStart(4, '0')} '${String.fromCodePoint(cp)}'`)
        return items
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// parse tree

type TNode =
  | { type: 'text'; pos: number; text: string }
  | { type: 'action'; pos: number; pipe: PipeNode }
  | { type: 'if' | 'with' | 'range'; pos: number; pipe: PipeNode; list: ListNode; elseList?: ListNode }
  | { type: 'break' | 'continue'; pos: number }
export interface ListNode {
  type: 'list'
  nodes: TNode[]
}
interface PipeNode {
  type: 'pipe'
  pos: number
  isAssign: boolean
  decl: string[]
  cmds: CommandNode[]
}
interface CommandNode {
  type: 'command'
  pos: number
  args: ArgNode[]
}
type ArgNode =
  | { type: 'field'; pos: number; ident: string[] }
  | { type: 'variable'; pos: number; ident: string[] }
  | { type: 'chain'; pos: number; node: ArgNode; field: string[] }
  | { type: 'identifier'; pos: number; name: string }
  | { type: 'dot'; pos: number }
  | { type: 'nil'; pos: number }
  | { type: 'bool'; pos: number; value: boolean }
  | { type: 'number'; pos: number; text: string; value: GoInt | GoFloat }
  | { type: 'string'; pos: number; quoted: string; text: string }
  | PipeNode

function argString(n: ArgNode): string {
  switch (n.type) {
    case 'field':
      return '.' + n.ident.join('.')
    case 'variable':
      return n.ident.join('.')
    case 'chain':
      return (n.node.type === 'pipe' ? `(${argString(n.node)})` : argString(n.node)) + '.' + n.field.join('.')
    case 'identifier':
      return n.name
    case 'dot':
      return '.'
    case 'nil':
      return 'nil'
    case 'bool':
      return String(n.value)
    case 'number':
      return n.text
    case 'string':
      return n.quoted
    case 'pipe':
      return pipeString(n)
  }
}
function commandString(c: CommandNode): string {
  return c.args.map((a) => (a.type === 'pipe' ? `(${argString(a)})` : argString(a))).join(' ')
}
function pipeString(p: PipeNode): string {
  let s = ''
  if (p.decl.length > 0) s = p.decl.join(', ') + (p.isAssign ? ' = ' : ' := ')
  return s + p.cmds.map(commandString).join(' | ')
}

const BUILTINS = new Set(['and', 'or', 'not', 'len', 'index', 'slice', 'print', 'printf', 'println', 'html', 'js', 'urlquery', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'call', 'base64decode'])

class TreeParser {
  private i = 0
  private vars: string[] = ['$']
  private rangeDepth = 0
  constructor(private items: Item[]) {}

  private next(): Item {
    return this.items[this.i++] ?? this.items[this.items.length - 1]!
  }
  private peek(): Item {
    return this.items[this.i] ?? this.items[this.items.length - 1]!
  }
  private backup(n = 1): void {
    this.i -= n
  }
  private nextNonSpace(): Item {
    let t = this.next()
    while (t.typ === 'space') t = this.next()
    return t
  }
  private peekNonSpace(): Item {
    const t = this.nextNonSpace()
    this.backup()
    return t
  }
  private errorf(line: number, msg: string): never {
    throw new TemplateParseError(`template: ${NAME}:${line}: ${msg}`)
  }
  private check(t: Item): void {
    if (t.typ === 'error') this.errorf(t.line, t.val)
  }
  private unexpected(t: Item, context: string): never {
    if (t.typ === 'error') this.errorf(t.line, t.val)
    this.errorf(t.line, `unexpected ${itemString(t)} in ${context}`)
  }

  parse(): ListNode {
    const list: ListNode = { type: 'list', nodes: [] }
    for (;;) {
      const t = this.peek()
      if (t.typ === 'EOF') break
      const n = this.textOrAction()
      if (n === 'end' || n === 'else') {
        const tok = this.items[this.i - 1]!
        this.errorf(tok.line, `unexpected {{${n}}}`)
      }
      if (n) list.nodes.push(n)
    }
    return list
  }

  /** returns a node, or 'end'/'else' markers (with else-chain info stored in this.elseInfo) */
  private elseInfo: { kind: 'plain' | 'if' | 'with'; pos: number } | undefined

  private textOrAction(): TNode | 'end' | 'else' | undefined {
    const t = this.nextNonSpace()
    this.check(t)
    if (t.typ === 'text') return { type: 'text', pos: t.pos, text: t.val }
    if (t.typ === 'leftDelim') return this.action()
    this.unexpected(t, 'input')
  }

  private action(): TNode | 'end' | 'else' | undefined {
    const t = this.nextNonSpace()
    this.check(t)
    if (t.typ === 'keyword') {
      switch (t.val) {
        case 'end':
          this.expectRight('end')
          return 'end'
        case 'else':
          return this.elseControl(t)
        case 'if':
          return this.control('if', t)
        case 'with':
          return this.control('with', t)
        case 'range':
          return this.control('range', t)
        case 'break':
        case 'continue':
          if (this.rangeDepth === 0) this.errorf(t.line, `{{${t.val}}} outside {{range}}`)
          this.expectRight(t.val)
          return { type: t.val, pos: t.pos }
        default:
          this.errorf(t.line, `{{${t.val}}} is not supported by this implementation`)
      }
    }
    this.backup()
    const start = this.peek()
    return { type: 'action', pos: start.pos, pipe: this.pipeline('command', 'rightDelim') }
  }

  private expectRight(context: string): void {
    const t = this.nextNonSpace()
    if (t.typ !== 'rightDelim') this.unexpected(t, context)
  }

  private elseControl(t: Item): 'else' {
    const p = this.peekNonSpace()
    if (p.typ === 'keyword' && (p.val === 'if' || p.val === 'with')) {
      this.elseInfo = { kind: p.val as 'if' | 'with', pos: p.pos }
      return 'else'
    }
    const r = this.nextNonSpace()
    if (r.typ !== 'rightDelim') this.unexpected(r, 'else')
    this.elseInfo = { kind: 'plain', pos: t.pos }
    return 'else'
  }

  private itemList(): { list: ListNode; next: 'end' | 'else' } {
    const list: ListNode = { type: 'list', nodes: [] }
    for (;;) {
      const t = this.peekNonSpace()
      if (t.typ === 'EOF') this.errorf(t.line, 'unexpected EOF')
      const n = this.textOrAction()
      if (n === 'end' || n === 'else') return { list, next: n }
      if (n) list.nodes.push(n)
    }
  }

  private control(kind: 'if' | 'with' | 'range', t: Item): TNode {
    const savedVars = this.vars.length
    const pipe = this.pipeline(kind, 'rightDelim')
    if (kind === 'range') this.rangeDepth++
    const { list, next } = this.itemList()
    if (kind === 'range') this.rangeDepth--
    let elseList: ListNode | undefined
    if (next === 'else') {
      const info = this.elseInfo!
      if (info.kind !== 'plain') {
        if (kind === 'range' || (info.kind === 'if' && kind !== 'if') || (info.kind === 'with' && kind !== 'with')) {
          if (kind === 'range' || info.kind !== kind) {
            // "else if" inside with, etc. are allowed in Go as nested controls
          }
        }
        // {{else if ...}} == {{else}}{{if ...}} ... {{end}}{{end}}
        const kw = this.nextNonSpace()
        const nested = this.control(info.kind, kw)
        elseList = { type: 'list', nodes: [nested] }
      } else {
        const r = this.itemList()
        if (r.next !== 'end') this.errorf(this.items[this.i - 1]!.line, 'expected end; found {{else}}')
        elseList = r.list
      }
    }
    this.vars.length = savedVars
    return { type: kind, pos: t.pos, pipe, list, ...(elseList ? { elseList } : {}) }
  }

  private pipeline(context: string, end: 'rightDelim' | 'rightParen'): PipeNode {
    const token = this.peekNonSpace()
    const pipe: PipeNode = { type: 'pipe', pos: token.pos, isAssign: false, decl: [], cmds: [] }
    for (;;) {
      const v = this.peekNonSpace()
      if (v.typ !== 'variable') break
      const save = this.i
      this.nextNonSpace()
      const next = this.peekNonSpace()
      if (next.typ === 'assign' || next.typ === 'declare') {
        pipe.isAssign = next.typ === 'assign'
        this.nextNonSpace()
        pipe.decl.push(v.val)
        if (next.typ === 'declare') this.vars.push(v.val)
        else if (!this.vars.includes(v.val)) this.errorf(v.line, `undefined variable "${v.val}"`)
        break
      }
      if (next.typ === 'char' && next.val === ',') {
        this.nextNonSpace()
        pipe.decl.push(v.val)
        this.vars.push(v.val)
        if (context === 'range' && pipe.decl.length < 2) {
          const p = this.peekNonSpace()
          if (p.typ === 'variable' || p.typ === 'rightDelim' || p.typ === 'rightParen') continue
          this.errorf(p.line, 'range can only initialize variables')
        }
        this.errorf(v.line, `too many declarations in ${context}`)
      }
      this.i = save
      break
    }
    for (;;) {
      const t = this.nextNonSpace()
      if (t.typ === end) {
        if (pipe.cmds.length === 0) this.errorf(t.line, `missing value for ${context}`)
        pipe.cmds.slice(1).forEach((c, i) => {
          if (['bool', 'dot', 'nil', 'number', 'string'].includes(c.args[0]!.type)) this.errorf(t.line, `non executable command in pipeline stage ${i + 2}`)
        })
        return pipe
      }
      if (['bool', 'charConstant', 'dot', 'field', 'identifier', 'number', 'nil', 'rawString', 'string', 'variable', 'leftParen'].includes(t.typ)) {
        this.backup()
        pipe.cmds.push(this.command())
      } else this.unexpected(t, context)
    }
  }

  private command(): CommandNode {
    const cmd: CommandNode = { type: 'command', pos: this.peekNonSpace().pos, args: [] }
    for (;;) {
      this.peekNonSpace()
      const operand = this.operand()
      if (operand) cmd.args.push(operand)
      const t = this.next()
      if (t.typ === 'space') continue
      if (t.typ === 'rightDelim' || t.typ === 'rightParen') this.backup()
      else if (t.typ !== 'pipe') this.unexpected(t, 'operand')
      break
    }
    if (cmd.args.length === 0) this.errorf(this.peek().line, 'empty command')
    return cmd
  }

  private operand(): ArgNode | undefined {
    const node = this.term()
    if (!node) return undefined
    if (this.peek().typ === 'field') {
      const pos = this.peek().pos
      const fields: string[] = []
      while (this.peek().typ === 'field') fields.push(this.next().val.slice(1))
      switch (node.type) {
        case 'field':
          return { type: 'field', pos, ident: [...node.ident, ...fields] }
        case 'variable':
          return { type: 'variable', pos, ident: [...node.ident, ...fields] }
        case 'bool':
        case 'string':
        case 'number':
        case 'nil':
        case 'dot':
          this.errorf(this.peek().line, `unexpected . after term ${JSON.stringify(argString(node))}`)
        // falls through
        default:
          return { type: 'chain', pos, node, field: fields }
      }
    }
    return node
  }

  private term(): ArgNode | undefined {
    const t = this.nextNonSpace()
    this.check(t)
    switch (t.typ) {
      case 'identifier':
        if (!BUILTINS.has(t.val)) this.errorf(t.line, `function ${JSON.stringify(t.val)} not defined`)
        return { type: 'identifier', pos: t.pos, name: t.val }
      case 'dot':
        return { type: 'dot', pos: t.pos }
      case 'nil':
        return { type: 'nil', pos: t.pos }
      case 'variable': {
        if (!this.vars.includes(t.val)) this.errorf(t.line, `undefined variable "${t.val}"`)
        return { type: 'variable', pos: t.pos, ident: [t.val] }
      }
      case 'field':
        return { type: 'field', pos: t.pos, ident: [t.val.slice(1)] }
      case 'bool':
        return { type: 'bool', pos: t.pos, value: t.val === 'true' }
      case 'number':
      case 'charConstant':
        return { type: 'number', pos: t.pos, text: t.val, value: parseNumber(t.val, (m) => this.errorf(t.line, m)) }
      case 'leftParen':
        return this.pipeline('parenthesized pipeline', 'rightParen')
      case 'string':
      case 'rawString':
        return { type: 'string', pos: t.pos, quoted: t.val, text: t.typ === 'rawString' ? t.val.slice(1, -1).replace(/\r/g, '') : goUnquote(t.val) }
    }
    this.backup()
    return undefined
  }
}

function itemString(t: Item): string {
  switch (t.typ) {
    case 'EOF':
      return 'EOF'
    case 'error':
      return t.val
    case 'keyword':
      return `<${t.val}>`
    case 'rightDelim':
      return '"}}"'
    case 'leftDelim':
      return '"{{"'
    case 'space':
      return `space`
  }
  if (t.val.length > 10) return `${JSON.stringify(t.val.slice(0, 10))}...`
  return JSON.stringify(t.val)
}

function goUnquote(q: string): string {
  return JSON.parse(
    q.replace(/\\([abfnrtv\\"'])|\\x([0-9a-fA-F]{2})|\\([0-7]{3})|\\U([0-9a-fA-F]{8})/g, (m, e, x, o, u) => {
      if (e) return ({ a: '\\u0007', b: '\\b', f: '\\f', n: '\\n', r: '\\r', t: '\\t', v: '\\u000b', '\\': '\\\\', '"': '\\"', "'": "'" } as Record<string, string>)[e]!
      const cp = x ? parseInt(x, 16) : o ? parseInt(o, 8) : parseInt(u, 16)
      return JSON.stringify(String.fromCodePoint(cp)).slice(1, -1)
    }),
  ) as string
}

function parseNumber(text: string, fail: (m: string) => never): GoInt | GoFloat {
  if (text.startsWith("'")) {
    const inner = goUnquote('"' + text.slice(1, -1).replace(/"/g, '\\"') + '"')
    return new GoInt(BigInt(inner.codePointAt(0) ?? 0))
  }
  const clean = text.replace(/_/g, '')
  const isFloatSyntax = /[.eEpP]/.test(clean) && !/^[+-]?0[xX][0-9a-fA-F]+$/.test(clean)
  let intVal: bigint | undefined
  try {
    if (/^[+-]?(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)$/.test(clean)) {
      const neg = clean.startsWith('-')
      let body = clean.replace(/^[+-]/, '')
      if (/^0[0-7]+$/.test(body)) body = '0o' + body.slice(1)
      intVal = BigInt(body) * (neg ? -1n : 1n)
    }
  } catch {
    intVal = undefined
  }
  if (!isFloatSyntax && intVal !== undefined) {
    if (intVal >= -(2n ** 63n) && intVal < 2n ** 63n) return new GoInt(intVal)
    fail(`integer overflow: ${JSON.stringify(text)}`)
  }
  const f = Number(clean)
  if (Number.isNaN(f)) fail(`illegal number syntax: ${JSON.stringify(text)}`)
  return new GoFloat(f)
}

// ---------------------------------------------------------------------------------------------
// execution

const NO_VALUE = Symbol('no value') // Go's invalid reflect.Value
type V = unknown

class BreakSignal {}
class ContinueSignal {}

class ExecError extends Error {
  constructor(
    readonly node: { pos: number; str: string },
    msg: string,
  ) {
    super(msg)
  }
}

/** A value plus whether its static type is interface{} (matters only for error messages). */
interface TV {
  v: V
  iface: boolean
}

export class GoTemplate {
  private root: ListNode
  missingKeyError = false

  constructor(readonly text: string) {
    this.root = new TreeParser(lex(text)).parse()
  }

  execute(data: unknown): { output: string; error?: string } {
    const st = new ExecState(this.text, data, this.missingKeyError)
    try {
      st.walk({ v: data, iface: false }, this.root)
      return { output: st.out }
    } catch (e) {
      if (e instanceof ExecError) {
        const { line, col } = st.location(e.node.pos)
        return { output: st.out, error: `template: ${NAME}:${line}:${col}: executing "${NAME}" at <${e.node.str}>: ${e.message}` }
      }
      throw e
    }
  }
}

class ExecState {
  out = ''
  private vars: { name: string; value: TV }[]
  private node: { pos: number; str: string } = { pos: 0, str: '' }

  constructor(
    private text: string,
    data: unknown,
    private missingKeyError: boolean,
  ) {
    this.vars = [{ name: '$', value: { v: data, iface: false } }]
  }

  location(pos: number): { line: number; col: number } {
    const before = this.text.slice(0, pos)
    const nl = before.lastIndexOf('\n')
    const line = 1 + (before.match(/\n/g)?.length ?? 0)
    const col = nl === -1 ? Buffer.byteLength(before) : Buffer.byteLength(before.slice(nl + 1))
    return { line, col }
  }

  private at(pos: number, str: string): void {
    this.node = { pos: Buffer.byteLength(this.text.slice(0, 0)) + pos, str }
  }
  private errorf(msg: string): never {
    throw new ExecError(this.node, msg)
  }

  walk(dot: TV, list: ListNode): void {
    for (const n of list.nodes) this.walkNode(dot, n)
  }

  private walkNode(dot: TV, n: TNode): void {
    switch (n.type) {
      case 'text':
        this.out += n.text
        return
      case 'action': {
        const mark = this.vars.length
        const val = this.evalPipeline(dot, n.pipe)
        if (n.pipe.decl.length === 0) this.printValue(val)
        void mark
        return
      }
      case 'break':
        throw new BreakSignal()
      case 'continue':
        throw new ContinueSignal()
      case 'if':
      case 'with': {
        const mark = this.vars.length
        const val = this.evalPipeline(dot, n.pipe)
        const truth = isTrue(val.v)
        if (truth) {
          this.walk(n.type === 'with' ? val : dot, n.list)
        } else if (n.elseList) {
          this.walk(dot, n.elseList)
        }
        this.vars.length = mark
        return
      }
      case 'range':
        return this.walkRange(dot, n as TNode & { type: 'range' })
    }
  }

  private walkRange(dot: TV, r: TNode & { type: 'range' }): void {
    this.at(r.pos, 'range')
    const mark0 = this.vars.length
    const val = this.evalPipeline(dot, r.pipe).v
    const mark = this.vars.length
    const one = (index: V, elem: TV): boolean => {
      if (r.pipe.decl.length > 0) {
        if (r.pipe.isAssign) {
          this.setVar(r.pipe.decl[0]!, r.pipe.decl.length > 1 ? { v: index, iface: false } : elem)
        } else this.setTopVar(1, elem)
      }
      if (r.pipe.decl.length > 1) {
        if (r.pipe.isAssign) this.setVar(r.pipe.decl[1]!, elem)
        else this.setTopVar(2, { v: index, iface: false })
      }
      try {
        this.walk(elem, r.list)
      } catch (e) {
        if (e instanceof BreakSignal) return false
        if (!(e instanceof ContinueSignal)) throw e
      } finally {
        this.vars.length = mark
      }
      return true
    }
    let iterated = false
    if (Array.isArray(val)) {
      if (val.length > 0) {
        iterated = true
        for (let i = 0; i < val.length; i++) if (!one(new GoInt(BigInt(i)), { v: val[i], iface: true })) break
      }
    } else if (isMap(val)) {
      const keys = sortedKeys(val)
      if (keys.length > 0) {
        iterated = true
        for (const k of keys) if (!one(k, { v: val[k], iface: true })) break
      }
    } else if (val instanceof GoInt || isInt(val)) {
      const n = intValue(val)
      if (n > 0n) {
        iterated = true
        for (let i = 0n; i < n; i++) if (!one(val instanceof GoInt ? new GoInt(i) : i, { v: val instanceof GoInt ? new GoInt(i) : Number(i), iface: false })) break
      }
    } else if (val === NO_VALUE || val === null || val === undefined) {
      // nothing to iterate
    } else {
      this.errorf(`range can't iterate over ${sprintValue(val, 'v', { minus: false, plus: false, sharp: false, space: false, zero: false })}`)
    }
    if (!iterated && r.elseList) this.walk(dot, r.elseList)
    this.vars.length = mark0
  }

  private setVar(name: string, value: TV): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      if (this.vars[i]!.name === name) {
        this.vars[i]!.value = value
        return
      }
    }
    this.errorf(`undefined variable: ${name}`)
  }
  private setTopVar(n: number, value: TV): void {
    this.vars[this.vars.length - n]!.value = value
  }
  private varValue(name: string): TV {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i]!.name === name) return this.vars[i]!.value
    this.errorf(`undefined variable: ${name}`)
  }

  private printValue(val: TV): void {
    const v = val.v
    if (v === NO_VALUE || v === null || v === undefined) {
      this.out += v === NO_VALUE || val.iface === false ? (v === NO_VALUE ? '<no value>' : '<nil>') : '<no value>'
      return
    }
    this.out += sprintValue(v, 'v', { minus: false, plus: false, sharp: false, space: false, zero: false })
  }

  private evalPipeline(dot: TV, pipe: PipeNode): TV {
    this.at(pipe.pos, pipeString(pipe))
    let value: TV | undefined
    for (const cmd of pipe.cmds) {
      value = this.evalCommand(dot, cmd, value)
      // an interface{} holding nil becomes an invalid value; otherwise dig into the interface
      if (value.iface) value = { v: value.v === null ? NO_VALUE : value.v, iface: false }
    }
    const result = value ?? { v: NO_VALUE, iface: false }
    for (const name of pipe.decl) {
      if (pipe.isAssign) this.setVar(name, result)
      else this.vars.push({ name, value: result })
    }
    return result
  }

  private notAFunction(args: ArgNode[], final: TV | undefined): void {
    if (args.length > 1 || final !== undefined) this.errorf(`can't give argument to non-function ${argString(args[0]!)}`)
  }

  private evalCommand(dot: TV, cmd: CommandNode, final: TV | undefined): TV {
    const first = cmd.args[0]!
    switch (first.type) {
      case 'field':
        return this.evalFieldNode(dot, first, cmd.args, final)
      case 'chain':
        return this.evalChainNode(dot, first, cmd.args, final)
      case 'identifier':
        return this.evalFunction(dot, first, cmd, cmd.args, final)
      case 'pipe':
        this.notAFunction(cmd.args, final)
        return this.evalPipeline(dot, first)
      case 'variable':
        return this.evalVariableNode(dot, first, cmd.args, final)
    }
    this.at(first.pos, argString(first))
    this.notAFunction(cmd.args, final)
    switch (first.type) {
      case 'bool':
        return { v: first.value, iface: false }
      case 'dot':
        return dot
      case 'nil':
        this.errorf('nil is not a command')
      // falls through
      case 'number':
        return { v: first.value, iface: false }
      case 'string':
        return { v: first.text, iface: false }
    }
    this.errorf(`can't evaluate command ${argString(first)}`)
  }

  private evalFieldNode(dot: TV, field: ArgNode & { type: 'field' }, args: ArgNode[], final: TV | undefined): TV {
    this.at(field.pos, argString(field))
    return this.evalFieldChain(dot, dot, field.ident, args, final)
  }

  private evalChainNode(dot: TV, chain: ArgNode & { type: 'chain' }, args: ArgNode[], final: TV | undefined): TV {
    this.at(chain.pos, argString(chain))
    const pipe = this.evalArg(dot, chain.node, 'any')
    return this.evalFieldChain(dot, pipe, chain.field, args, final)
  }

  private evalVariableNode(dot: TV, v: ArgNode & { type: 'variable' }, args: ArgNode[], final: TV | undefined): TV {
    this.at(v.pos, argString(v))
    const value = this.varValue(v.ident[0]!)
    if (v.ident.length === 1) {
      this.notAFunction(args, final)
      return value
    }
    return this.evalFieldChain(dot, value, v.ident.slice(1), args, final)
  }

  private evalFieldChain(dot: TV, receiver: TV, ident: string[], args: ArgNode[], final: TV | undefined): TV {
    let r = receiver
    for (let i = 0; i < ident.length - 1; i++) r = this.evalField(r, ident[i]!, [], undefined)
    return this.evalField(r, ident[ident.length - 1]!, args, final)
  }

  private evalField(receiver: TV, name: string, args: ArgNode[], final: TV | undefined): TV {
    const v = receiver.v
    if (v === NO_VALUE) {
      if (this.missingKeyError) this.errorf(`nil data; no entry for key ${JSON.stringify(name)}`)
      return { v: NO_VALUE, iface: false }
    }
    const typ = receiver.iface ? 'interface {}' : typeOf(v)
    if (v === null || v === undefined) this.errorf(`nil pointer evaluating ${typ}.${name}`)
    if (isMap(v)) {
      if (args.length > 1 || final !== undefined) this.errorf(`${name} is not a method but has arguments`)
      if (Object.prototype.hasOwnProperty.call(v, name)) return { v: v[name], iface: true }
      if (this.missingKeyError) this.errorf(`map has no entry for key ${JSON.stringify(name)}`)
      return { v: NO_VALUE, iface: false }
    }
    this.errorf(`can't evaluate field ${name} in type ${typ}`)
  }

  private evalFunction(dot: TV, node: ArgNode & { type: 'identifier' }, cmd: CommandNode | ArgNode, args: ArgNode[], final: TV | undefined): TV {
    this.at(node.pos, node.name)
    const cmdNode = cmd.type === 'command' ? { pos: cmd.pos, str: commandString(cmd) } : { pos: node.pos, str: node.name }
    const rest = args.slice(1)
    const name = node.name
    const callErr = (e: unknown): never => {
      this.node = cmdNode
      this.errorf(`error calling ${name}: ${(e as Error).message}`)
    }
    const n = rest.length + (final !== undefined ? 1 : 0)
    const want = (min: number, variadic: boolean, max = min) => {
      if (variadic ? n < min : n !== max) {
        if (variadic) this.errorf(`wrong number of args for ${name}: want at least ${min} got ${n}`)
        this.errorf(`wrong number of args for ${name}: want ${max} got ${n}`)
      }
    }
    if (name === 'and' || name === 'or') {
      want(1, true)
      let v: TV = { v: NO_VALUE, iface: false }
      for (const a of rest) {
        v = this.evalArg(dot, a, 'value')
        if (isTrue(v.v) === (name === 'or')) return v
      }
      if (final !== undefined) v = final
      return v
    }
    const argv = (kinds: ('any' | 'string' | 'value')[], variadic: 'any' | 'string' | 'value' | undefined): TV[] => {
      const out: TV[] = []
      rest.forEach((a, i) => out.push(this.evalArg(dot, a, kinds[i] ?? variadic ?? 'any')))
      if (final !== undefined) {
        const k = kinds[rest.length] ?? variadic ?? 'any'
        out.push(this.validate(final, k))
      }
      return out
    }
    const plain = (t: TV) => (t.v === NO_VALUE ? null : t.v)
    switch (name) {
      case 'not': {
        want(1, false)
        const [a] = argv(['value'], undefined)
        return { v: !isTrue(a!.v), iface: false }
      }
      case 'len': {
        want(1, false)
        const [a] = argv(['value'], undefined)
        const x = a!.v
        if (x === NO_VALUE || x === null) callErr(new Error('len of nil pointer'))
        if (typeof x === 'string') return { v: new GoInt(BigInt(Buffer.byteLength(x))), iface: false }
        if (Array.isArray(x)) return { v: new GoInt(BigInt(x.length)), iface: false }
        if (isMap(x)) return { v: new GoInt(BigInt(Object.keys(x).length)), iface: false }
        return callErr(new Error(`len of type ${typeOf(x)}`))
      }
      case 'index': {
        want(1, true)
        const [item, ...idx] = argv(['value'], 'value')
        try {
          return { v: goIndex(item!.v, idx.map((i) => i.v)), iface: true }
        } catch (e) {
          return callErr(e)
        }
      }
      case 'slice': {
        want(1, true)
        const [item, ...idx] = argv(['value'], 'value')
        try {
          return { v: goSlice(item!.v, idx.map((i) => i.v)), iface: false }
        } catch (e) {
          return callErr(e)
        }
      }
      case 'print':
        return { v: sprint(argv([], 'any').map(plain)), iface: false }
      case 'println':
        return { v: sprintln(argv([], 'any').map(plain)), iface: false }
      case 'printf': {
        want(1, true)
        const [fmt, ...a] = argv(['string'], 'any')
        return { v: sprintf(fmt!.v as string, a.map(plain)), iface: false }
      }
      case 'html':
        return { v: htmlEscape(evalArgs(argv([], 'any').map(plain))), iface: false }
      case 'js':
        return { v: jsEscape(evalArgs(argv([], 'any').map(plain))), iface: false }
      case 'urlquery':
        return { v: queryEscape(evalArgs(argv([], 'any').map(plain))), iface: false }
      case 'eq': {
        want(1, true)
        const [a, ...b] = argv(['value'], 'value')
        try {
          return { v: goEqual(toCmp(a!.v), b.map((x) => toCmp(x.v)), false, (c) => [sprintValue((c as { value: unknown }).value, 'v', NOFLAGS), typeOf((c as { value: unknown }).value)]), iface: false }
        } catch (e) {
          return callErr(e)
        }
      }
      case 'ne': {
        want(2, false)
        const [a, b] = argv(['value', 'value'], undefined)
        try {
          return { v: !goEqual(toCmp(a!.v), [toCmp(b!.v)], false), iface: false }
        } catch (e) {
          return callErr(e)
        }
      }
      case 'lt':
      case 'le':
      case 'gt':
      case 'ge': {
        want(2, false)
        const [a, b] = argv(['value', 'value'], undefined)
        try {
          const c = compare(toCmp(a!.v), toCmp(b!.v))
          const r = name === 'lt' ? c < 0 : name === 'le' ? c <= 0 : name === 'gt' ? c > 0 : c >= 0
          return { v: r, iface: false }
        } catch (e) {
          return callErr(e)
        }
      }
      case 'base64decode': {
        want(1, false)
        const [s] = argv(['string'], undefined)
        const str = s!.v as string
        const clean = str
        if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 !== 0) {
          const bad = firstBadBase64(clean)
          return callErr(new Error(`base64 decode failed: illegal base64 data at input byte ${bad}`))
        }
        return { v: Buffer.from(clean, 'base64').toString('latin1') === '' ? '' : Buffer.from(clean, 'base64').toString('utf8'), iface: false }
      }
    }
    this.errorf(`${JSON.stringify(name)} is not a defined function`)
  }

  private validate(v: TV, kind: 'any' | 'string' | 'value'): TV {
    if (kind === 'string') {
      if (v.v === NO_VALUE) this.errorf('invalid value; expected string')
      if (typeof v.v !== 'string') this.errorf(`wrong type for value; expected string; got ${v.iface && v.v === null ? 'interface {}' : typeOf(v.v)}`)
    }
    return v
  }

  private evalArg(dot: TV, n: ArgNode, kind: 'any' | 'string' | 'value'): TV {
    this.at(n.pos, argString(n))
    switch (n.type) {
      case 'dot':
        return this.validate(dot, kind)
      case 'nil':
        if (kind === 'string') this.errorf('cannot assign nil to string')
        return { v: null, iface: false }
      case 'field':
        return this.validate(this.evalFieldNode(dot, n, [n], undefined), kind)
      case 'variable':
        return this.validate(this.evalVariableNode(dot, n, [], undefined), kind)
      case 'pipe':
        return this.validate(this.evalPipeline(dot, n), kind)
      case 'identifier':
        return this.validate(this.evalFunction(dot, n, n, [n], undefined), kind)
      case 'chain':
        return this.validate(this.evalChainNode(dot, n, [], undefined), kind)
    }
    if (kind === 'string') {
      if (n.type === 'string') return { v: n.text, iface: false }
      this.errorf(`expected string; found ${argString(n)}`)
    }
    switch (n.type) {
      case 'bool':
        return { v: n.value, iface: false }
      case 'number':
        return { v: n.value, iface: false }
      case 'string':
        return { v: n.text, iface: false }
    }
    this.errorf(`can't handle ${argString(n)}`)
  }
}

const NOFLAGS = { minus: false, plus: false, sharp: false, space: false, zero: false }

function toCmp(v: V): CmpValue {
  if (v === NO_VALUE) return { kind: 'invalid' }
  if (v instanceof GoInt) return { kind: 'int', value: v.value }
  if (v instanceof GoUint8) return { kind: 'uint', value: BigInt(v.value) }
  if (v instanceof GoFloat) return { kind: 'float', value: v.value }
  return fromGo(v)
}
void errNoComparison

function isTrue(v: V): boolean {
  if (v === NO_VALUE || v === null || v === undefined) return false
  if (typeof v === 'boolean') return v
  if (typeof v === 'string') return v.length > 0
  if (v instanceof GoInt || v instanceof GoUint8 || isInt(v)) return intValue(v) !== 0n
  if (v instanceof GoFloat || typeof v === 'number') return floatValue(v) !== 0
  if (Array.isArray(v)) return v.length > 0
  if (isMap(v)) return Object.keys(v).length > 0
  return true
}

function indexArg(i: V, cap: number): number {
  if (i === NO_VALUE || i === null) throw new Error('cannot index slice/array with nil')
  if (!(i instanceof GoInt || i instanceof GoUint8 || isInt(i))) throw new Error(`cannot index slice/array with type ${typeOf(i)}`)
  const x = intValue(i)
  if (x < 0n || x > BigInt(cap)) throw new Error(`index out of range: ${x}`)
  return Number(x)
}

function goIndex(item: V, indexes: V[]): V {
  if (item === NO_VALUE || item === null) throw new Error('index of untyped nil')
  for (const index of indexes) {
    if (item === null) throw new Error('index of nil pointer')
    if (Array.isArray(item)) {
      const x = indexArg(index, item.length)
      if (x === item.length) throw new Error(`reflect: slice index out of range`)
      item = item[x]
    } else if (typeof item === 'string') {
      const bytes = Buffer.from(item, 'utf8')
      const x = indexArg(index, bytes.length)
      if (x === bytes.length) throw new Error(`reflect: string index out of range`)
      item = new GoUint8(bytes[x]!)
    } else if (isMap(item)) {
      if (index === NO_VALUE || index === null) throw new Error('value is nil; should be of type string')
      if (typeof index !== 'string') throw new Error(`value has type ${typeOf(index)}; should be string`)
      item = Object.prototype.hasOwnProperty.call(item, index) ? item[index] : null
    } else {
      throw new Error(`can't index item of type ${typeOf(item)}`)
    }
  }
  return item
}

function goSlice(item: V, indexes: V[]): V {
  if (item === NO_VALUE || item === null) throw new Error('slice of untyped nil')
  if (indexes.length > 3) throw new Error(`too many slice indexes: ${indexes.length}`)
  let len: number
  if (typeof item === 'string') {
    if (indexes.length === 3) throw new Error('cannot 3-index slice a string')
    len = Buffer.byteLength(item)
  } else if (Array.isArray(item)) len = item.length
  else throw new Error(`can't slice item of type ${typeOf(item)}`)
  const idx = [0, len]
  indexes.forEach((ix, i) => {
    idx[i] = indexArg(ix, len)
    if (i > 0 && idx[i]! < idx[i - 1]!) throw new Error(`invalid slice index: ${idx[i - 1]} > ${idx[i]}`)
  })
  if (typeof item === 'string') return Buffer.from(item, 'utf8').subarray(idx[0], idx[1]).toString('utf8')
  return item.slice(idx[0], idx[1])
}

function evalArgs(args: unknown[]): string {
  if (args.length === 1 && typeof args[0] === 'string') return args[0]
  return sprint(args)
}

function htmlEscape(s: string): string {
  return s.replace(/[\0"'&<>]/g, (c) => ({ '\0': '\uFFFD', '"': '&#34;', "'": '&#39;', '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!)
}

function jsEscape(s: string): string {
  let out = ''
  for (const ch of s) {
    const c = ch.codePointAt(0)!
    if (ch === '\\') out += '\\\\'
    else if (ch === "'") out += "\\'"
    else if (ch === '"') out += '\\"'
    else if (ch === '<') out += '\\u003C'
    else if (ch === '>') out += '\\u003E'
    else if (ch === '&') out += '\\u0026'
    else if (ch === '=') out += '\\u003D'
    else if (c < 0x20) out += '\\u' + c.toString(16).toUpperCase().padStart(4, '0')
    else if (c < 0x80 || isGoPrint(ch)) out += ch
    else out += '\\u' + c.toString(16).toUpperCase().padStart(4, '0')
  }
  return out
}

function queryEscape(s: string): string {
  let out = ''
  for (const b of Buffer.from(s, 'utf8')) {
    const ch = String.fromCharCode(b)
    if (/[A-Za-z0-9\-_.~]/.test(ch)) out += ch
    else if (ch === ' ') out += '+'
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0')
  }
  return out
}

function firstBadBase64(s: string): number {
  for (let i = 0; i < s.length; i++) {
    if (!/[A-Za-z0-9+/=]/.test(s[i]!)) return i
    if (s[i] === '=') return i
  }
  return Math.floor(s.length / 4) * 4
}
