/**
 * A YAML emitter reproducing sigs.k8s.io/yaml (go-yaml v2) byte for byte for JSON-like trees:
 * sorted keys, 2-space indent, sequences not indented under their key, go-yaml's scalar
 * resolution (which strings must be quoted) and libyaml's scalar style selection and folding
 * at 80 columns.
 */
import { formatFloatG, formatInt, goJson, isInt, isMap, sortedKeys } from './values.js'

const BEST_WIDTH = 80
const BEST_INDENT = 2

// ---------------------------------------------------------------------------------------------
// go-yaml v2 resolve(): would this string, written plain, read back as something else?

const RESOLVE_NON_STR = new Set([
  '~', 'null', 'Null', 'NULL', '',
  'y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', 'true', 'True', 'TRUE',
  'n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF', 'false', 'False', 'FALSE',
  '.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF',
  '<<',
])
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/
const GO_INT = /^[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/
const GO_UINT = /^(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/
const GO_FLOAT =
  /^[-+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?|0[xX]([0-9a-fA-F]+(\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)[pP][-+]?[0-9]+|inf|infinity|nan)$/i

function fitsInt64(text: string): boolean {
  try {
    const neg = text.startsWith('-')
    const body = text.replace(/^[-+]/, '')
    let v: bigint
    if (/^0[oO]/.test(body)) v = BigInt('0o' + body.slice(2))
    else if (/^0[0-7]+$/.test(body)) v = BigInt('0o' + body.slice(1))
    else v = BigInt(body)
    if (neg) v = -v
    return v >= -(2n ** 63n) && v < 2n ** 63n
  } catch {
    return false
  }
}
function fitsUint64(text: string): boolean {
  try {
    let v: bigint
    if (/^0[oO]/.test(text)) v = BigInt('0o' + text.slice(2))
    else if (/^0[0-7]+$/.test(text)) v = BigInt('0o' + text.slice(1))
    else v = BigInt(text)
    return v < 2n ** 64n
  } catch {
    return false
  }
}

function isTimestamp(s: string): boolean {
  let m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:([Tt ])(\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?)?$/.exec(s)
  if (!m) return false
  const [, , mo, d, sep, h, mi, se, , zone] = m
  if (+mo! < 1 || +mo! > 12 || +d! < 1 || +d! > 31) return false
  if (sep) {
    if (+h! > 23 || +mi! > 59 || +se! > 59) return false
    if (sep === ' ' && zone) return false
    if (sep !== ' ' && !zone) return false
  }
  m = null
  return true
}

/** true when go-yaml would resolve the plain scalar `s` to a non-string (or a base-60 float). */
function resolvesToNonString(s: string): boolean {
  if (RESOLVE_NON_STR.has(s)) return true
  const c = s[0]
  if (c === '.') return GO_FLOAT.test(s)
  if (c !== undefined && '-+0123456789'.includes(c)) {
    if (c >= '0' && c <= '9' && isTimestamp(s)) return true
    const plain = s.replace(/_/g, '')
    if (GO_INT.test(plain) && fitsInt64(plain)) return true
    if (GO_UINT.test(plain) && fitsUint64(plain)) return true
    if (YAML_STYLE_FLOAT.test(plain)) return true
    if (/^-?0b[01]+$/.test(plain)) return true
  }
  return BASE60_FLOAT.test(s)
}

// ---------------------------------------------------------------------------------------------
// libyaml scalar analysis

const isBreakCh = (ch: string | undefined) => ch === '\r' || ch === '\n' || ch === '\u0085' || ch === '\u2028' || ch === '\u2029'
const isBlankOrEnd = (ch: string | undefined) => ch === undefined || ch === ' ' || ch === '\t' || isBreakCh(ch)

function isPrintable(ch: string): boolean {
  const c = ch.codePointAt(0)!
  if (c === 0x0a) return true
  if (c >= 0x20 && c <= 0x7e) return true
  if (c >= 0xa0 && c <= 0xd7ff) return true
  if (c >= 0xe000 && c <= 0xfffd) return c !== 0xfeff
  return false
}

interface Analysis {
  multiline: boolean
  blockPlainAllowed: boolean
  singleQuotedAllowed: boolean
  blockAllowed: boolean
}

function analyze(value: string): Analysis {
  if (value.length === 0) return { multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false }
  const chars = Array.from(value)
  let blockIndicators = false
  let flowIndicators = false
  let lineBreaks = false
  let special = false
  let leadingSpace = false, leadingBreak = false, trailingSpace = false, trailingBreak = false
  let breakSpace = false, spaceBreak = false, previousSpace = false, previousBreak = false
  if (value.startsWith('---') || value.startsWith('...')) {
    blockIndicators = true
    flowIndicators = true
  }
  let precededByWhitespace = true
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!
    const followedByWhitespace = isBlankOrEnd(chars[i + 1])
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) {
        flowIndicators = true
        blockIndicators = true
      } else if (ch === '?' || ch === ':') {
        flowIndicators = true
        if (followedByWhitespace) blockIndicators = true
      } else if (ch === '-' && followedByWhitespace) {
        flowIndicators = true
        blockIndicators = true
      }
    } else {
      if (',?[]{}'.includes(ch)) flowIndicators = true
      else if (ch === ':') {
        flowIndicators = true
        if (followedByWhitespace) blockIndicators = true
      } else if (ch === '#' && precededByWhitespace) {
        flowIndicators = true
        blockIndicators = true
      }
    }
    if (!isPrintable(ch)) special = true
    if (ch === ' ') {
      if (i === 0) leadingSpace = true
      if (i === chars.length - 1) trailingSpace = true
      if (previousBreak) breakSpace = true
      previousSpace = true
      previousBreak = false
    } else if (isBreakCh(ch)) {
      lineBreaks = true
      if (i === 0) leadingBreak = true
      if (i === chars.length - 1) trailingBreak = true
      if (previousSpace) spaceBreak = true
      previousSpace = false
      previousBreak = true
    } else {
      previousSpace = false
      previousBreak = false
    }
    precededByWhitespace = isBlankOrEnd(ch)
  }
  const a: Analysis = { multiline: lineBreaks, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: true }
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) a.blockPlainAllowed = false
  if (trailingSpace) a.blockAllowed = false
  if (breakSpace) {
    a.blockPlainAllowed = false
    a.singleQuotedAllowed = false
  }
  if (spaceBreak || special) {
    a.blockPlainAllowed = false
    a.singleQuotedAllowed = false
    a.blockAllowed = false
  }
  if (lineBreaks) a.blockPlainAllowed = false
  if (blockIndicators) a.blockPlainAllowed = false
  void flowIndicators
  return a
}

type Style = 'plain' | 'single' | 'double' | 'literal'

function chooseStyle(value: string, simpleKey: boolean): Style {
  // go-yaml encoder (stringv)
  let style: Style
  if (value.includes('\n')) style = 'literal'
  else if (!resolvesToNonString(value)) style = 'plain'
  else style = 'double'
  // libyaml select_scalar_style (block context)
  const a = analyze(value)
  if (simpleKey && a.multiline) style = 'double'
  if (style === 'plain') {
    if (!a.blockPlainAllowed) style = 'single'
    if (value.length === 0 && simpleKey) style = 'single'
  }
  if (style === 'single' && !a.singleQuotedAllowed) style = 'double'
  if (style === 'literal' && (!a.blockAllowed || simpleKey)) style = 'double'
  return style
}

// ---------------------------------------------------------------------------------------------

class Emitter {
  out = ''
  column = 0
  whitespace = true
  indention = true
  indent = 0

  private putRaw(s: string): void {
    this.out += s
    this.column += Array.from(s).length
  }
  putBreak(): void {
    this.out += '\n'
    this.column = 0
  }
  writeIndent(): void {
    const indent = Math.max(this.indent, 0)
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak()
    while (this.column < indent) this.putRaw(' ')
    this.whitespace = true
    this.indention = true
  }
  writeIndicator(ind: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.putRaw(' ')
    this.putRaw(ind)
    this.whitespace = isWhitespace
    this.indention = this.indention && isIndention
  }

  scalar(value: string, style: Style, simpleKey: boolean): void {
    const allowBreaks = !simpleKey
    const chars = Array.from(value)
    if (style === 'plain') {
      if (!this.whitespace) this.putRaw(' ')
      let spaces = false
      for (let i = 0; i < chars.length; i++) {
        const ch = chars[i]!
        if (ch === ' ') {
          if (allowBreaks && !spaces && this.column > BEST_WIDTH && chars[i + 1] !== ' ') this.writeIndent()
          else this.putRaw(ch)
          spaces = true
        } else {
          this.putRaw(ch)
          this.indention = false
          spaces = false
        }
      }
      this.whitespace = false
      this.indention = false
      return
    }
    if (style === 'single') {
      this.writeIndicator("'", true, false, false)
      let spaces = false
      let breaks = false
      for (let i = 0; i < chars.length; i++) {
        const ch = chars[i]!
        if (ch === ' ') {
          if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < chars.length - 1 && chars[i + 1] !== ' ') this.writeIndent()
          else this.putRaw(ch)
          spaces = true
        } else if (isBreakCh(ch)) {
          if (!breaks && ch === '\n') this.putBreak()
          this.writeBreak(ch)
          this.indention = true
          breaks = true
        } else {
          if (breaks) this.writeIndent()
          if (ch === "'") this.putRaw("'")
          this.putRaw(ch)
          this.indention = false
          spaces = false
          breaks = false
        }
      }
      this.writeIndicator("'", false, false, false)
      this.whitespace = false
      this.indention = false
      return
    }
    if (style === 'double') {
      this.writeIndicator('"', true, false, false)
      let spaces = false
      for (let i = 0; i < chars.length; i++) {
        const ch = chars[i]!
        const c = ch.codePointAt(0)!
        if (!isPrintable(ch) || c === 0xfeff || isBreakCh(ch) || ch === '"' || ch === '\\') {
          this.putRaw('\\')
          const esc: Record<number, string> = {
            0: '0', 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r', 0x1b: 'e', 0x22: '"', 0x5c: '\\',
            0x85: 'N', 0xa0: '_', 0x2028: 'L', 0x2029: 'P',
          }
          if (esc[c] !== undefined) this.putRaw(esc[c]!)
          else if (c <= 0xff) this.putRaw('x' + c.toString(16).toUpperCase().padStart(2, '0'))
          else if (c <= 0xffff) this.putRaw('u' + c.toString(16).toUpperCase().padStart(4, '0'))
          else this.putRaw('U' + c.toString(16).toUpperCase().padStart(8, '0'))
          spaces = false
        } else if (ch === ' ') {
          if (allowBreaks && !spaces && this.column > BEST_WIDTH && i !== 0 && i !== chars.length - 1) {
            this.writeIndent()
            if (chars[i + 1] === ' ') this.putRaw('\\')
          } else this.putRaw(ch)
          spaces = true
        } else {
          this.putRaw(ch)
          spaces = false
        }
      }
      this.writeIndicator('"', false, false, false)
      this.whitespace = false
      this.indention = false
      return
    }
    // literal
    this.writeIndicator('|', true, false, false)
    if (chars[0] === ' ' || isBreakCh(chars[0])) this.writeIndicator(String(BEST_INDENT), false, false, false)
    const last = chars[chars.length - 1]
    let chomp = ''
    if (!isBreakCh(last)) chomp = '-'
    else if (chars.length === 1 || isBreakCh(chars[chars.length - 2])) chomp = '+'
    if (chomp) this.writeIndicator(chomp, false, false, false)
    this.putBreak()
    this.indention = true
    this.whitespace = true
    let breaks = true
    for (const ch of chars) {
      if (isBreakCh(ch)) {
        this.writeBreak(ch)
        this.indention = true
        breaks = true
      } else {
        if (breaks) {
          this.writeIndent()
          breaks = false
        }
        this.putRaw(ch)
        this.indention = false
      }
    }
  }

  private writeBreak(ch: string): void {
    if (ch === '\n') this.putBreak()
    else {
      this.out += ch
      this.column = 0
    }
  }

  /** Emits a scalar node (value or key) at `this.indent + 2` (libyaml increases the indent for scalars). */
  emitScalar(text: string, style: Style, simpleKey: boolean): void {
    const saved = this.indent
    this.indent = saved < 0 ? 0 : saved + BEST_INDENT
    if (simpleKey) this.indent = saved < 0 ? 0 : saved + BEST_INDENT
    this.scalar(text, style, simpleKey)
    this.indent = saved
  }

  node(v: unknown, mappingContext: boolean, simpleKey = false): void {
    if (Array.isArray(v)) {
      if (v.length === 0) {
        this.writeIndicator('[', true, true, false)
        this.writeIndicator(']', false, false, false)
        return
      }
      const saved = this.indent
      const indentless = mappingContext && !this.indention
      this.indent = this.indent < 0 ? 0 : indentless ? this.indent : this.indent + BEST_INDENT
      for (const item of v) {
        this.writeIndent()
        this.writeIndicator('-', true, false, true)
        this.node(item, false)
      }
      this.indent = saved
      return
    }
    if (isMap(v)) {
      const keys = sortedKeys(v)
      if (keys.length === 0) {
        this.writeIndicator('{', true, true, false)
        this.writeIndicator('}', false, false, false)
        return
      }
      const saved = this.indent
      this.indent = this.indent < 0 ? 0 : this.indent + BEST_INDENT
      for (const k of keys) {
        this.writeIndent()
        this.emitScalar(k, chooseStyle(k, true), true)
        this.writeIndicator(':', false, false, false)
        this.node(v[k], true)
      }
      this.indent = saved
      return
    }
    const [text, style] = scalarOf(v)
    this.emitScalar(text, style ?? chooseStyle(text, simpleKey), simpleKey)
  }
}

function scalarOf(v: unknown): [string, Style | undefined] {
  if (v === null || v === undefined) return ['null', 'plain']
  if (typeof v === 'boolean') return [v ? 'true' : 'false', 'plain']
  if (typeof v === 'string') return [v, undefined]
  if (typeof v === 'number' || typeof v === 'bigint') {
    // sigs.k8s.io/yaml goes through JSON text, re-read by go-yaml (int, uint64 or float64)
    if (isInt(v)) return [formatInt(v), 'plain']
    const text = goJson(v)
    if (/^-?\d+$/.test(text)) {
      const b = BigInt(text)
      if (b >= -(2n ** 63n) && b < 2n ** 64n) return [text, 'plain']
    }
    return [formatFloatG(v), 'plain']
  }
  return [String(v), undefined]
}

/** sigs.k8s.io/yaml.Marshal of a JSON-like tree. */
export function toYaml(v: unknown): string {
  const e = new Emitter()
  e.indent = -1
  e.node(v, false)
  if (e.column > 0 || e.out === '') e.putBreak()
  return e.out
}
