/**
 * The JSON value model of the patch engine, mirroring what Go's encoding/json produces when it
 * decodes into interface{} with UseNumber-like int/float distinction (as apimachinery does):
 *
 * - int64 within ±2^53 → a JS `number` whose value is an integer;
 * - int64 outside that range → a `bigint` (exact; e.g. 9007199254740993 survives);
 * - float64 with a fractional part → a JS `number`;
 * - float64 with an integral value (literal `1.0`, `8080.0`, `1e3`, or any integer beyond int64) →
 *   a {@link GoFloat}. It is a different value from the int64 of the same magnitude (SMP merge
 *   keys, primitive-list de-duplication, the "no change" check), but prints the same way:
 *   `GoFloat.toJSON()` returns the plain number, so `JSON.stringify` prints `8080` like Go.
 * - strings, booleans, null, arrays, plain objects as usual.
 *
 * Printers: use {@link formatGoNumber} (or `JSON.stringify`, which handles GoFloat but throws on
 * bigint) to print numbers.
 */
import { goQuote } from '../util/go-quote.js'

export { goQuote }

export class GoFloat {
  constructor(readonly value: number) {}
  toJSON(): number {
    return this.value
  }
  toString(): string {
    return formatFloat(this.value)
  }
}

export type JsonObject = { [key: string]: unknown }

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof GoFloat)
}

/** Go dynamic type name of a decoded JSON value (as reflect.TypeOf would print it). */
type GoKind = 'map' | 'slice' | 'string' | 'bool' | 'int64' | 'float64' | 'nil'

export function goKind(v: unknown): GoKind {
  if (v === null || v === undefined) return 'nil'
  if (Array.isArray(v)) return 'slice'
  if (v instanceof GoFloat) return 'float64'
  switch (typeof v) {
    case 'string':
      return 'string'
    case 'boolean':
      return 'bool'
    case 'bigint':
      return 'int64'
    case 'number':
      return Number.isInteger(v) ? 'int64' : 'float64'
    default:
      return 'map'
  }
}

export function goTypeName(v: unknown): string {
  switch (goKind(v)) {
    case 'map':
      return 'map[string]interface {}'
    case 'slice':
      return '[]interface {}'
    case 'nil':
      return '%!s(<nil>)'
    default:
      return goKind(v)
  }
}

/** Number formatting of Go's encoding/json for float64 (same as ES for finite values). */
function formatFloat(n: number): string {
  return String(n)
}

/** Prints a number of the model (number | bigint | GoFloat) exactly as Go's json.Marshal would. */
export function formatGoNumber(v: number | bigint | GoFloat): string {
  if (v instanceof GoFloat) return formatFloat(v.value)
  return String(v)
}

/** Scalar equality with Go `==` on interface{} values (type and value). */
export function scalarEqual(a: unknown, b: unknown): boolean {
  const ka = goKind(a)
  if (ka !== goKind(b)) return false
  if (a instanceof GoFloat && b instanceof GoFloat) return a.value === b.value
  if (ka === 'int64') return BigInt(a as number | bigint) === BigInt(b as number | bigint)
  return a === b
}

/** Deep equality of two JSON trees, respecting int64 vs float64 (like reflect.DeepEqual on decoded JSON). */
export function deepEqual(a: unknown, b: unknown): boolean {
  const ka = goKind(a)
  if (ka !== goKind(b)) return false
  if (ka === 'slice') {
    const x = a as unknown[]
    const y = b as unknown[]
    return x.length === y.length && x.every((v, i) => deepEqual(v, y[i]))
  }
  if (ka === 'map') {
    const x = a as JsonObject
    const y = b as JsonObject
    const kx = Object.keys(x)
    if (kx.length !== Object.keys(y).length) return false
    return kx.every((k) => Object.prototype.hasOwnProperty.call(y, k) && deepEqual(x[k], y[k]))
  }
  return scalarEqual(a, b)
}

export function deepClone<T>(v: T): T {
  if (Array.isArray(v)) return v.map((e) => deepClone(e)) as T
  if (isObject(v)) {
    const out: JsonObject = {}
    for (const k of Object.keys(v)) out[k] = deepClone(v[k])
    return out as T
  }
  return v
}

/** Converts a JS number read from YAML (or JSON.parse) to the model: integral → int64, else float. */
export function fromJsNumber(n: number): number | bigint | GoFloat {
  if (!Number.isFinite(n)) return n
  if (Number.isInteger(n)) {
    if (Number.isSafeInteger(n)) return n
    if (Math.abs(n) < 2 ** 63) return BigInt(n)
    return new GoFloat(n)
  }
  return n
}

/** Go fmt `%v` rendering of a decoded JSON value (maps sorted by key, `<nil>` for null). */
export function goSprint(v: unknown): string {
  if (v === null || v === undefined) return '<nil>'
  if (Array.isArray(v)) return '[' + v.map(goSprint).join(' ') + ']'
  if (v instanceof GoFloat) return goFloatV(v.value)
  if (isObject(v)) {
    const keys = Object.keys(v).sort(byteCompare)
    return 'map[' + keys.map((k) => `${k}:${goSprint(v[k])}`).join(' ') + ']'
  }
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : goFloatV(v)
  return String(v)
}

/** strconv.FormatFloat(f, 'g', -1, 64) as used by %v. */
function goFloatV(f: number): string {
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : f < 0 ? '-Inf' : 'NaN'
  if (f === 0) return '0'
  const exp = Math.floor(Math.log10(Math.abs(f)))
  if (exp < -4 || exp >= 21) {
    const [m, e] = f.toExponential().split('e')
    const en = Number(e)
    return `${m}e${en < 0 ? '-' : '+'}${String(Math.abs(en)).padStart(2, '0')}`
  }
  return String(f)
}

function byteCompare(a: string, b: string): number {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return Buffer.compare(x, y)
}


/** Compact JSON as Go's json.Marshal prints it (keys sorted, `<>&` escaped). */
export function goMarshal(v: unknown): string {
  if (v === null || v === undefined) return 'null'
  if (Array.isArray(v)) return '[' + v.map(goMarshal).join(',') + ']'
  if (v instanceof GoFloat) return formatGoNumber(v)
  if (isObject(v)) {
    const keys = Object.keys(v).sort(byteCompare)
    return '{' + keys.map((k) => `${goString(k)}:${goMarshal(v[k])}`).join(',') + '}'
  }
  if (typeof v === 'string') return goString(v)
  if (typeof v === 'number' || typeof v === 'bigint') return formatGoNumber(v)
  return String(v)
}

function goString(s: string): string {
  return JSON.stringify(s)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}
