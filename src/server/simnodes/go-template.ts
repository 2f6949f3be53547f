/**
 * The part of Go's text/template that kwok's stage templates use: text and `{{ }}` actions
 * (with `{{-` and `-}}` trimming), variables (`$x := ...`, `$x = ...`, `$` the root), fields
 * (`.a.b`, `$x.a`), pipelines (`x | f` passes x as the last argument), parenthesised
 * pipelines, string (quoted and raw), number and boolean literals, `if`/`else`/`with`/`range`
 * (`range $i, $e := ...`) and `end`, and the functions given plus Go's built-ins used there
 * (`or`, `and`, `not`, `eq`, `ne`, `index`, `len`, `printf` with %s %d %v). A missing map key
 * prints `<no value>` as Go's does.
 */

export type TemplateFunc = (...args: unknown[]) => unknown
export type FuncMap = Record<string, TemplateFunc>

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'output'; pipe: Pipeline }
  | { kind: 'if' | 'with'; pipe: Pipeline; then: Node[]; else: Node[] }
  | { kind: 'range'; pipe: Pipeline; vars: string[]; body: Node[]; else: Node[] }

interface Pipeline {
  /** `$x :=` declares, `$x =` assigns; the pipeline's value is then not printed. */
  decl?: { name: string; op: ':=' | '=' }
  commands: Term[][]
}

type Term =
  | { kind: 'field'; base: 'dot' | string; path: string[] }
  | { kind: 'literal'; value: unknown }
  | { kind: 'ident'; name: string }
  | { kind: 'paren'; pipe: Pipeline; path: string[] }

/** A parsed template, rendered against data with functions. */
export class GoTemplate {
  private constructor(private readonly nodes: Node[]) {}

  static parse(source: string): GoTemplate {
    const parser = new Parser(lex(source))
    const nodes = parser.list(new Set())
    if (parser.pending()) throw new Error(`template: unexpected {{${parser.pending()}}}`)
    return new GoTemplate(nodes)
  }

  render(data: unknown, funcs: FuncMap): string {
    const out: string[] = []
    new Evaluator({ ...BUILTINS, ...funcs }, out).run(this.nodes, data, [new Map([['$', data]])])
    return out.join('')
  }
}

// ---------------------------------------------------------------- lexing

type Piece = { kind: 'text'; text: string } | { kind: 'action'; text: string }

function lex(source: string): Piece[] {
  const pieces: Piece[] = []
  let at = 0
  while (at < source.length) {
    const open = source.indexOf('{{', at)
    if (open === -1) {
      pieces.push({ kind: 'text', text: source.slice(at) })
      break
    }
    let text = source.slice(at, open)
    let start = open + 2
    if (source[start] === '-' && /\s/.test(source[start + 1] ?? '')) {
      text = text.replace(/\s+$/, '')
      start += 1
    }
    pieces.push({ kind: 'text', text })
    const close = findClose(source, start)
    let inner = source.slice(start, close)
    let next = close + 2
    if (/\s-$/.test(inner)) {
      inner = inner.slice(0, -1)
      const rest = source.slice(next)
      next += rest.length - rest.replace(/^\s+/, '').length
    }
    pieces.push({ kind: 'action', text: inner.trim() })
    at = next
  }
  return pieces
}

/** The end of an action, skipping `}}` inside quoted and raw strings. */
function findClose(source: string, from: number): number {
  for (let i = from; i < source.length; i++) {
    const c = source[i]
    if (c === '"') {
      for (i++; i < source.length && source[i] !== '"'; i++) if (source[i] === '\\') i++
    } else if (c === '`') {
      i = source.indexOf('`', i + 1)
      if (i === -1) break
    } else if (c === '}' && source[i + 1] === '}') return i
  }
  throw new Error('template: unclosed action')
}

type Token = { t: 'str' | 'num' | 'word' | 'punct'; v: string }

function tokens(text: string): Token[] {
  const out: Token[] = []
  const re = /\s*(?:("(?:[^"\\]|\\.)*")|(`[^`]*`)|(-?\d+(?:\.\d+)?)|(:=|[|()=,])|([$.]?[A-Za-z_$.][\w.$]*|\.))/y
  let m: RegExpExecArray | null
  let at = 0
  while (at < text.length) {
    re.lastIndex = at
    m = re.exec(text)
    if (!m || m[0].length === 0) {
      if (/^\s*$/.test(text.slice(at))) break
      throw new Error(`template: cannot read ${JSON.stringify(text.slice(at))}`)
    }
    at = re.lastIndex
    if (m[1] !== undefined) out.push({ t: 'str', v: JSON.parse(m[1]) as string })
    else if (m[2] !== undefined) out.push({ t: 'str', v: m[2].slice(1, -1) })
    else if (m[3] !== undefined) out.push({ t: 'num', v: m[3] })
    else if (m[4] !== undefined) out.push({ t: 'punct', v: m[4] })
    else if (m[5] !== undefined) out.push({ t: 'word', v: m[5] })
  }
  return out
}

// ---------------------------------------------------------------- parsing

class Parser {
  private at = 0
  constructor(private readonly pieces: Piece[]) {}

  pending(): string | undefined {
    const p = this.pieces[this.at]
    return p?.kind === 'action' ? p.text : undefined
  }

  /** Nodes up to one of the `stops` keywords (left unconsumed). */
  list(stops: Set<string>): Node[] {
    const nodes: Node[] = []
    while (this.at < this.pieces.length) {
      const piece = this.pieces[this.at]!
      if (piece.kind === 'text') {
        if (piece.text) nodes.push({ kind: 'text', text: piece.text })
        this.at++
        continue
      }
      const word = piece.text.split(/\s+/)[0] ?? ''
      if (stops.has(word)) return nodes
      if (piece.text.startsWith('/*')) {
        this.at++
        continue
      }
      this.at++
      if (word === 'if' || word === 'with') {
        const pipe = parsePipeline(tokens(piece.text.slice(word.length)))
        const then = this.list(new Set(['else', 'end']))
        const elseNodes = this.elseBranch()
        nodes.push({ kind: word, pipe, then, else: elseNodes })
      } else if (word === 'range') {
        const toks = tokens(piece.text.slice(word.length))
        const vars: string[] = []
        const declAt = toks.findIndex((t) => t.t === 'punct' && t.v === ':=')
        let rest = toks
        if (declAt !== -1) {
          for (const t of toks.slice(0, declAt)) if (t.t === 'word') vars.push(t.v)
          rest = toks.slice(declAt + 1)
        }
        const pipe = parsePipeline(rest)
        const body = this.list(new Set(['else', 'end']))
        nodes.push({ kind: 'range', pipe, vars, body, else: this.elseBranch() })
      } else {
        nodes.push({ kind: 'output', pipe: parsePipeline(tokens(piece.text)) })
      }
    }
    if (stops.size > 0) throw new Error('template: missing {{end}}')
    return nodes
  }

  /** After a branch: `{{else}} ... {{end}}`, `{{else if ...}}` / `{{else with ...}}` chains, or `{{end}}`. */
  private elseBranch(): Node[] {
    const piece = this.pieces[this.at]
    if (!piece || piece.kind !== 'action') throw new Error('template: missing {{end}}')
    this.at++
    if (piece.text === 'end') return []
    const chained = /^else\s+(if|with)\s+(.*)$/s.exec(piece.text)
    if (chained) {
      const kind = chained[1] as 'if' | 'with'
      const pipe = parsePipeline(tokens(chained[2]!))
      const then = this.list(new Set(['else', 'end']))
      return [{ kind, pipe, then, else: this.elseBranch() }]
    }
    const body = this.list(new Set(['end']))
    this.at++
    return body
  }
}

function parsePipeline(toks: Token[]): Pipeline {
  let decl: Pipeline['decl']
  if (toks.length >= 2 && toks[0]!.t === 'word' && toks[0]!.v.startsWith('$') && toks[1]!.t === 'punct' && (toks[1]!.v === ':=' || toks[1]!.v === '=')) {
    decl = { name: toks[0]!.v, op: toks[1]!.v as ':=' | '=' }
    toks = toks.slice(2)
  }
  const commands: Term[][] = [[]]
  for (let i = 0; i < toks.length; i++) {
    const tok = toks[i]!
    if (tok.t === 'punct' && tok.v === '|') {
      commands.push([])
      continue
    }
    if (tok.t === 'punct' && tok.v === '(') {
      let depth = 1
      let j = i + 1
      for (; j < toks.length && depth > 0; j++) {
        if (toks[j]!.t === 'punct' && toks[j]!.v === '(') depth++
        if (toks[j]!.t === 'punct' && toks[j]!.v === ')') depth--
      }
      commands[commands.length - 1]!.push({ kind: 'paren', pipe: parsePipeline(toks.slice(i + 1, j - 1)), path: [] })
      i = j - 1
      continue
    }
    commands[commands.length - 1]!.push(term(tok))
  }
  return decl ? { decl, commands } : { commands }
}

function term(tok: Token): Term {
  if (tok.t === 'str') return { kind: 'literal', value: tok.v }
  if (tok.t === 'num') return { kind: 'literal', value: Number(tok.v) }
  const v = tok.v
  if (v === 'true' || v === 'false') return { kind: 'literal', value: v === 'true' }
  if (v === 'nil') return { kind: 'literal', value: undefined }
  if (v === '.') return { kind: 'field', base: 'dot', path: [] }
  if (v.startsWith('.')) return { kind: 'field', base: 'dot', path: v.slice(1).split('.') }
  if (v.startsWith('$')) {
    const [name, ...path] = v.split('.')
    return { kind: 'field', base: name!, path }
  }
  return { kind: 'ident', name: v }
}

// ---------------------------------------------------------------- evaluation

type Scope = Map<string, unknown>[]

/** Go's truth: false, 0, nil, and empty strings, lists and maps are false. */
export function truthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false
  if (Array.isArray(v)) return v.length > 0
  if (typeof v === 'object') return Object.keys(v).length > 0
  return true
}

const NO_VALUE = Symbol('no value')

function fieldOf(value: unknown, name: string): unknown {
  if (value === null || value === undefined || typeof value !== 'object') return undefined
  const obj = value as Record<string, unknown>
  return Object.prototype.hasOwnProperty.call(obj, name) ? obj[name] : NO_VALUE
}

function print(v: unknown): string {
  if (v === NO_VALUE) return '<no value>'
  if (v === undefined || v === null) return '<no value>'
  if (typeof v === 'string') return v
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  if (Array.isArray(v)) return `[${v.map(print).join(' ')}]`
  return `map[${Object.keys(v as object)
    .sort()
    .map((k) => `${k}:${print((v as Record<string, unknown>)[k])}`)
    .join(' ')}]`
}

const eq = (a: unknown, ...bs: unknown[]) => bs.some((b) => a === b)

const BUILTINS: FuncMap = {
  or: (...args) => args.find(truthy) ?? args[args.length - 1],
  and: (...args) => args.find((a) => !truthy(a)) ?? args[args.length - 1],
  not: (a) => !truthy(a),
  eq: (a, ...bs) => eq(a, ...bs),
  ne: (a, b) => a !== b,
  len: (a) => (Array.isArray(a) || typeof a === 'string' ? a.length : a && typeof a === 'object' ? Object.keys(a).length : 0),
  index: (coll, ...keys) => {
    let v = coll
    for (const k of keys) v = v === null || v === undefined || typeof v !== 'object' ? undefined : (v as Record<string, unknown>)[String(k)]
    return v
  },
  printf: (format, ...args) => {
    let i = 0
    return String(format).replace(/%[sdvq%]/g, (spec) => (spec === '%%' ? '%' : spec === '%q' ? JSON.stringify(String(args[i++])) : print(args[i++])))
  },
}

class Evaluator {
  constructor(
    private readonly funcs: FuncMap,
    private readonly out: string[],
  ) {}

  run(nodes: Node[], dot: unknown, scope: Scope): void {
    for (const node of nodes) {
      switch (node.kind) {
        case 'text':
          this.out.push(node.text)
          break
        case 'output': {
          const value = this.pipeline(node.pipe, dot, scope)
          if (!node.pipe.decl) this.out.push(print(value))
          break
        }
        case 'if':
        case 'with': {
          const value = this.pipeline(node.pipe, dot, scope)
          const inner: Scope = [...scope, new Map()]
          if (truthy(value)) this.run(node.then, node.kind === 'with' ? value : dot, inner)
          else this.run(node.else, dot, inner)
          break
        }
        case 'range': {
          const value = this.pipeline({ commands: node.pipe.commands }, dot, scope)
          const entries: Array<[unknown, unknown]> = Array.isArray(value)
            ? value.map((v, i) => [i, v])
            : value && typeof value === 'object'
              ? Object.keys(value)
                  .sort()
                  .map((k) => [k, (value as Record<string, unknown>)[k]])
              : typeof value === 'number'
                ? Array.from({ length: value }, (_, i) => [i, i])
                : []
          if (entries.length === 0) {
            this.run(node.else, dot, [...scope, new Map()])
            break
          }
          for (const [key, item] of entries) {
            const vars = new Map<string, unknown>()
            if (node.vars.length === 1) vars.set(node.vars[0]!, item)
            if (node.vars.length === 2) {
              vars.set(node.vars[0]!, key)
              vars.set(node.vars[1]!, item)
            }
            this.run(node.body, item, [...scope, vars])
          }
          break
        }
      }
    }
  }

  private pipeline(pipe: Pipeline, dot: unknown, scope: Scope): unknown {
    let value: unknown = NO_VALUE
    let first = true
    for (const command of pipe.commands) {
      value = this.command(command, dot, scope, first ? undefined : { value })
      first = false
    }
    if (value === NO_VALUE) value = undefined
    if (pipe.decl) {
      if (pipe.decl.op === ':=') scope[scope.length - 1]!.set(pipe.decl.name, value)
      else {
        const holder = [...scope].reverse().find((s) => s.has(pipe.decl!.name))
        if (!holder) throw new Error(`template: undefined variable: ${pipe.decl.name}`)
        holder.set(pipe.decl.name, value)
      }
    }
    return value
  }

  private command(terms: Term[], dot: unknown, scope: Scope, piped?: { value: unknown }): unknown {
    const [head, ...rest] = terms
    if (!head) throw new Error('template: empty command')
    if (head.kind === 'ident') {
      const fn = this.funcs[head.name]
      if (!fn) throw new Error(`template: function ${JSON.stringify(head.name)} not defined`)
      const args = rest.map((t) => this.operand(t, dot, scope))
      if (piped) args.push(piped.value)
      return fn(...args.map((a) => (a === NO_VALUE ? undefined : a)))
    }
    if (rest.length > 0 || piped) throw new Error('template: can\'t give argument to non-function')
    return this.operand(head, dot, scope)
  }

  private operand(t: Term, dot: unknown, scope: Scope): unknown {
    switch (t.kind) {
      case 'literal':
        return t.value
      case 'ident': {
        const fn = this.funcs[t.name]
        if (!fn) throw new Error(`template: function ${JSON.stringify(t.name)} not defined`)
        return fn()
      }
      case 'paren':
        return this.pipeline(t.pipe, dot, scope)
      case 'field': {
        let v: unknown
        if (t.base === 'dot') v = dot
        else {
          const holder = [...scope].reverse().find((s) => s.has(t.base))
          if (!holder) throw new Error(`template: undefined variable: ${t.base}`)
          v = holder.get(t.base)
        }
        for (const name of t.path) v = fieldOf(v === NO_VALUE ? undefined : v, name)
        return v
      }
    }
  }
}
