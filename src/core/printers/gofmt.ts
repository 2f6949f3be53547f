/** A subset of Go's fmt package: Sprintf verbs, Sprint and Sprintln over template values. */
import { formatFloatG, goQuote, goQuoteRune, goSprintSharpV, goTypeName, isInt, isMap, sortedKeys } from './values.js'

/** int (template constants, len results, range indexes) — distinct from the data's int64. */
export class GoInt {
  constructor(readonly value: bigint) {}
}
/** float64 template constant (may be whole, e.g. 2.0). */
export class GoFloat {
  constructor(readonly value: number) {}
}
/** uint8, from indexing a string. */
export class GoUint8 {
  constructor(readonly value: number) {}
}

/** Go's type name of a template value: the typed numbers template functions make, else a JSON value's. */
export function typeOf(v: unknown): string {
  if (v instanceof GoInt) return 'int'
  if (v instanceof GoFloat) return 'float64'
  if (v instanceof GoUint8) return 'uint8'
  return goTypeName(v)
}

type Kind = 'nil' | 'bool' | 'int' | 'float' | 'string' | 'slice' | 'map'
function kindOf(v: unknown): Kind {
  if (v === null || v === undefined) return 'nil'
  if (v instanceof GoInt || v instanceof GoUint8 || isInt(v)) return 'int'
  if (v instanceof GoFloat || typeof v === 'number') return 'float'
  if (typeof v === 'boolean') return 'bool'
  if (typeof v === 'string') return 'string'
  if (Array.isArray(v)) return 'slice'
  return 'map'
}
export function intValue(v: unknown): bigint {
  if (v instanceof GoInt) return v.value
  if (v instanceof GoUint8) return BigInt(v.value)
  return BigInt(v as number | bigint)
}
export function floatValue(v: unknown): number {
  return v instanceof GoFloat ? v.value : (v as number)
}

interface Flags {
  minus: boolean
  plus: boolean
  sharp: boolean
  space: boolean
  zero: boolean
  width?: number
  prec?: number
}

function pad(s: string, f: Flags, numeric = false): string {
  const len = Array.from(s).length
  if (f.width === undefined || len >= f.width) return s
  const n = f.width - len
  if (f.minus) return s + ' '.repeat(n)
  if (f.zero && numeric) {
    const sign = /^[+\- ]/.test(s) ? s[0] : ''
    return sign + '0'.repeat(n) + s.slice(sign.length)
  }
  if (f.zero && !numeric) return '0'.repeat(n) + s
  return ' '.repeat(n) + s
}

function expForm(digits: string, exp: number, upper: boolean): string {
  const sign = exp < 0 ? '-' : '+'
  const a = Math.abs(exp)
  return `${digits}${upper ? 'E' : 'e'}${sign}${a < 10 ? '0' : ''}${a}`
}

function fmtE(x: number, prec: number, upper: boolean): string {
  const s = x.toExponential(prec) // d.ddde+X
  const [m, e] = s.split('e') as [string, string]
  return expForm(m, Number(e), upper)
}

function fmtG(x: number, prec: number | undefined, upper: boolean): string {
  if (prec === undefined) {
    const s = formatFloatG(x)
    return upper ? s.toUpperCase() : s
  }
  if (prec === 0) prec = 1
  if (x === 0) return '0'
  const e = Number(x.toExponential(prec - 1).split('e')[1])
  let digits = x.toExponential(prec - 1).split('e')[0]!.replace('-', '').replace('.', '')
  digits = digits.replace(/0+$/, '') || '0'
  let eprec = prec
  const dp = e + 1
  if (eprec > digits.length && digits.length >= dp) eprec = digits.length
  if (e < -4 || e >= eprec) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits
    return (x < 0 ? '-' : '') + expForm(m, e, upper)
  }
  return (x < 0 ? '-' : '') + Number(x.toPrecision(prec)).toString().replace('-', '')
}

function fmtFloat(x: number, verb: string, f: Flags): string {
  let s: string
  if (!Number.isFinite(x)) s = Number.isNaN(x) ? 'NaN' : x > 0 ? '+Inf' : '-Inf'
  else
    switch (verb) {
      case 'e':
      case 'E':
        s = fmtE(x, f.prec ?? 6, verb === 'E')
        break
      case 'f':
      case 'F':
        s = x.toFixed(f.prec ?? 6)
        break
      case 'g':
      case 'G':
        s = fmtG(x, f.prec, verb === 'G')
        break
      default:
        s = formatFloatG(x)
    }
  if (f.plus && !s.startsWith('-') && !s.startsWith('+')) s = '+' + s
  else if (f.space && !s.startsWith('-')) s = ' ' + s
  if (s === '+Inf' && !f.plus) s = f.space ? ' Inf' : '+Inf'
  return pad(s, f, true)
}

function fmtInt(n: bigint, verb: string, f: Flags): string {
  const neg = n < 0n
  const a = neg ? -n : n
  let s: string
  switch (verb) {
    case 'b':
      s = a.toString(2)
      break
    case 'o':
    case 'O':
      s = a.toString(8)
      if (verb === 'O') s = '0o' + s
      else if (f.sharp) s = '0' + s
      break
    case 'x':
      s = a.toString(16)
      if (f.sharp) s = '0x' + s
      break
    case 'X':
      s = a.toString(16).toUpperCase()
      if (f.sharp) s = '0X' + s
      break
    case 'c':
      return pad(String.fromCodePoint(Number(n)), f)
    case 'q':
      return pad(goQuoteRune(Number(n)), f)
    case 'U':
      return pad('U+' + a.toString(16).toUpperCase().padStart(4, '0'), f)
    default:
      s = a.toString()
  }
  if (f.prec !== undefined) s = s.padStart(f.prec, '0')
  if (neg) s = '-' + s
  else if (f.plus) s = '+' + s
  else if (f.space) s = ' ' + s
  return pad(s, { ...f, zero: f.zero && f.prec === undefined }, true)
}

function fmtString(s: string, verb: string, f: Flags): string {
  if (f.prec !== undefined) s = Array.from(s).slice(0, f.prec).join('')
  switch (verb) {
    case 'q':
      return pad(goQuote(s), f)
    case 'x':
    case 'X': {
      let h = Buffer.from(s, 'utf8').toString('hex')
      if (verb === 'X') h = h.toUpperCase()
      return pad(h, f)
    }
    default:
      return pad(s, f)
  }
}

function bad(verb: string, v: unknown): string {
  if (v === null || v === undefined) return `%!${verb}(<nil>)`
  return `%!${verb}(${typeOf(v)}=${sprintValue(v, 'v', noFlags())})`
}

function noFlags(): Flags {
  return { minus: false, plus: false, sharp: false, space: false, zero: false }
}

/** Formats one operand with a verb (fmt's printArg/printValue). */
export function sprintValue(v: unknown, verb: string, f: Flags, depth = 0): string {
  if (verb === 'v' && f.sharp) return goSprintSharpV(v instanceof GoInt || v instanceof GoUint8 ? intValue(v) : v instanceof GoFloat ? v.value : v)
  if (verb === 'T') return pad(typeOf(v), f)
  const k = kindOf(v)
  switch (k) {
    case 'nil':
      if (verb === 'v') return pad('<nil>', f)
      return bad(verb, v)
    case 'bool':
      if (verb === 'v' || verb === 't') return pad(v ? 'true' : 'false', f)
      return bad(verb, v)
    case 'int':
      if ('vdboOxXcqU'.includes(verb)) return fmtInt(intValue(v), verb, f)
      return bad(verb, v)
    case 'float':
      if ('veEfFgGxX'.includes(verb) && verb !== 'x' && verb !== 'X') return fmtFloat(floatValue(v), verb, f)
      return bad(verb, v)
    case 'string':
      if ('vsqxX'.includes(verb)) return fmtString(v as string, verb, f)
      return bad(verb, v)
    case 'slice':
      return '[' + (v as unknown[]).map((e) => sprintValue(e, verb, f, depth + 1)).join(' ') + ']'
    case 'map': {
      const m = v as Record<string, unknown>
      void isMap
      return 'map[' + sortedKeys(m).map((key) => `${sprintValue(key, verb, f, depth + 1)}:${sprintValue(m[key], verb, f, depth + 1)}`).join(' ') + ']'
    }
  }
}

export function sprintf(format: string, args: unknown[]): string {
  let out = ''
  let argNum = 0
  const chars = Array.from(format)
  for (let i = 0; i < chars.length; ) {
    const c = chars[i]!
    if (c !== '%') {
      out += c
      i++
      continue
    }
    i++
    const f = noFlags()
    for (; i < chars.length; i++) {
      const ch = chars[i]
      if (ch === '-') {
        f.minus = true
        f.zero = false
      } else if (ch === '+') f.plus = true
      else if (ch === '#') f.sharp = true
      else if (ch === ' ') f.space = true
      else if (ch === '0') f.zero = !f.minus
      else break
    }
    let num = ''
    while (i < chars.length && /[0-9]/.test(chars[i]!)) num += chars[i++]
    if (num) f.width = Number(num)
    if (chars[i] === '.') {
      i++
      let p = ''
      while (i < chars.length && /[0-9]/.test(chars[i]!)) p += chars[i++]
      f.prec = p ? Number(p) : 0
    }
    if (i >= chars.length) {
      out += '%!(NOVERB)'
      break
    }
    const verb = chars[i++]!
    if (verb === '%') {
      out += '%'
      continue
    }
    if (argNum >= args.length) {
      out += `%!${verb}(MISSING)`
      continue
    }
    const arg = args[argNum++]
    out += sprintValue(arg, verb, f)
  }
  if (argNum < args.length) {
    out += '%!(EXTRA ' + args.slice(argNum).map((a) => (a === null || a === undefined ? '<nil>' : `${typeOf(a)}=${sprintValue(a, 'v', noFlags())}`)).join(', ') + ')'
  }
  return out
}

/** fmt.Sprint: spaces between operands when neither is a string. */
export function sprint(args: unknown[]): string {
  let out = ''
  args.forEach((a, i) => {
    if (i > 0 && typeof a !== 'string' && typeof args[i - 1] !== 'string') out += ' '
    out += sprintValue(a, 'v', noFlags())
  })
  return out
}

export function sprintln(args: unknown[]): string {
  return args.map((a) => sprintValue(a, 'v', noFlags())).join(' ') + '\n'
}
