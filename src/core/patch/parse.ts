/**
 * Decoding of patch text the way kubectl does it: Go encoding/json semantics for JSON (int64 vs
 * float64, Go syntax-error texts) and go-yaml v2 (YAML 1.1 scalars, first document only) for YAML.
 */
import type * as JsYamlNs from 'js-yaml'

import { YamlAliasingError, jsYaml, loadYaml } from '../util/yaml.js'
import { EXCEEDED_MAX_DEPTH, jsonTextTooDeep } from '../util/nesting.js'
import { GoFloat, type JsonObject, fromJsNumber } from './values.js'

export class GoJsonSyntaxError extends Error {}

/** json.Unmarshal into interface{} with int64/float64 distinction (see values.ts). */
export function parseGoJson(text: string): unknown {
  // The parser below recurses per level: the depth is bounded before it starts.
  if (jsonTextTooDeep(text)) throw new GoJsonSyntaxError(EXCEEDED_MAX_DEPTH)
  let i = 0
  const n = text.length
  const ws = () => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++
  }
  const quoteChar = (c: string) => (c === "'" ? "'\\''" : c === '"' ? `'"'` : `'${c}'`)
  const bad = (context: string): never => {
    if (i >= n) throw new GoJsonSyntaxError('unexpected end of JSON input')
    throw new GoJsonSyntaxError(`invalid character ${quoteChar(text[i])} ${context}`)
  }
  const value = (): unknown => {
    ws()
    const c = text[i]
    if (c === '{') {
      i++
      const obj: JsonObject = {}
      ws()
      if (text[i] === '}') {
        i++
        return obj
      }
      for (;;) {
        ws()
        if (text[i] !== '"') bad('looking for beginning of object key string')
        const key = str()
        ws()
        if (text[i] !== ':') bad('after object key')
        i++
        const v = value()
        if (key === '__proto__') Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true })
        else obj[key] = v
        ws()
        if (text[i] === ',') {
          i++
          continue
        }
        if (text[i] === '}') {
          i++
          return obj
        }
        bad('after object key:value pair')
      }
    }
    if (c === '[') {
      i++
      const arr: unknown[] = []
      ws()
      if (text[i] === ']') {
        i++
        return arr
      }
      for (;;) {
        arr.push(value())
        ws()
        if (text[i] === ',') {
          i++
          continue
        }
        if (text[i] === ']') {
          i++
          return arr
        }
        bad('after array element')
      }
    }
    if (c === '"') return str()
    if (c === '-' || (c >= '0' && c <= '9')) return num()
    for (const [lit, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(lit, i)) {
        i += lit.length
        return v
      }
    }
    if (c !== undefined && 'tfn'.includes(c)) {
      // a broken literal: Go reports the first unexpected character
      const lit = c === 't' ? 'true' : c === 'f' ? 'false' : 'null'
      let k = 0
      while (i < n && text[i] === lit[k]) {
        i++
        k++
      }
      bad(`in literal ${lit} (expecting ${quoteChar(lit[k])})`)
    }
    return bad('looking for beginning of value')
  }
  const str = (): string => {
    const start = i
    i++
    for (;;) {
      if (i >= n) bad('')
      const c = text[i]
      if (c === '"') break
      if (c === '\\') i += 2
      else {
        if (c.charCodeAt(0) < 0x20) bad('in string literal')
        i++
      }
    }
    i++
    try {
      return JSON.parse(text.slice(start, i)) as string
    } catch {
      i = start
      return bad('in string escape code')
    }
  }
  const num = (): unknown => {
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i))
    if (!m || m[0] === '-') {
      i++
      return bad('in numeric literal')
    }
    i += m[0].length
    const lit = m[0]
    if (m[2] === undefined && m[3] === undefined) {
      const big = BigInt(lit)
      if (big >= -(2n ** 63n) && big < 2n ** 63n) {
        const asNum = Number(big)
        return Number.isSafeInteger(asNum) ? asNum : big
      }
      return new GoFloat(Number(lit))
    }
    const f = Number(lit)
    return Number.isInteger(f) ? new GoFloat(f) : f
  }
  const v = value()
  ws()
  if (i < n) bad('after top-level value')
  return v
}

// ---------------------------------------------------------------------------------------------
// YAML 1.1 (go-yaml v2 resolution rules) → JSON model

let schema: JsYamlNs.Schema | undefined

const YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/

/** go-yaml v2 resolve() for a plain scalar: undefined = stays a string. */
function resolvePlain(s: string): { v: unknown } | undefined {
  switch (s) {
    case '':
    case '~':
    case 'null':
    case 'Null':
    case 'NULL':
      return { v: null }
    case 'y':
    case 'Y':
    case 'yes':
    case 'Yes':
    case 'YES':
    case 'on':
    case 'On':
    case 'ON':
    case 'true':
    case 'True':
    case 'TRUE':
      return { v: true }
    case 'n':
    case 'N':
    case 'no':
    case 'No':
    case 'NO':
    case 'off':
    case 'Off':
    case 'OFF':
    case 'false':
    case 'False':
    case 'FALSE':
      return { v: false }
    case '.inf':
    case '.Inf':
    case '.INF':
    case '+.inf':
    case '+.Inf':
    case '+.INF':
      return { v: Infinity }
    case '-.inf':
    case '-.Inf':
    case '-.INF':
      return { v: -Infinity }
    case '.nan':
    case '.NaN':
    case '.NAN':
      return { v: NaN }
  }
  const c = s[0]
  if (!((c >= '0' && c <= '9') || c === '-' || c === '+' || c === '.')) return undefined
  const plain = s.replace(/_/g, '')
  const int = parseGoIntBase0(plain)
  if (int !== undefined) return { v: int }
  if (YAML_FLOAT.test(plain)) return { v: fromJsNumber(Number(plain)) }
  return undefined
}

/** strconv.ParseInt(s, 0, 64), falling back to ParseUint (as a float beyond int64). */
function parseGoIntBase0(s: string): number | bigint | GoFloat | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s)
  if (!m) return undefined
  const body = m[2]
  let big: bigint
  if (/^0[oO]/.test(body)) big = BigInt('0o' + body.slice(2))
  else if (/^0[0-7]+$/.test(body)) big = BigInt('0o' + body.slice(1))
  else big = BigInt(body)
  if (m[1] === '-') big = -big
  if (big < -(2n ** 63n) || big >= 2n ** 64n) return undefined
  if (big >= 2n ** 63n) return new GoFloat(Number(big)) // uint64 → JSON → float64
  const asNum = Number(big)
  return Number.isSafeInteger(asNum) ? asNum : big
}

function yamlSchema(): JsYamlNs.Schema {
  if (schema) return schema
  const y = jsYaml()
  const resolved = new y.Type('tag:yaml.org,2002:go-plain', {
    kind: 'scalar',
    resolve: (data: string | null) => resolvePlain(data ?? '') !== undefined,
    construct: (data: string | null) => resolvePlain(data ?? '')!.v,
  })
  const explicitInt = new y.Type('tag:yaml.org,2002:int', {
    kind: 'scalar',
    resolve: (data: string) => parseGoIntBase0(String(data).replace(/_/g, '')) !== undefined,
    construct: (data: string) => parseGoIntBase0(String(data).replace(/_/g, '')),
  })
  const explicitFloat = new y.Type('tag:yaml.org,2002:float', {
    kind: 'scalar',
    resolve: (data: string) => resolvePlain(String(data)) !== undefined,
    construct: (data: string) => {
      const r = resolvePlain(String(data))!.v
      return typeof r === 'number' || typeof r === 'bigint' || r instanceof GoFloat ? r : Number(data)
    },
  })
  const explicitBool = new y.Type('tag:yaml.org,2002:bool', {
    kind: 'scalar',
    resolve: (data: string) => typeof resolvePlain(String(data))?.v === 'boolean',
    construct: (data: string) => resolvePlain(String(data))!.v,
  })
  const explicitNull = new y.Type('tag:yaml.org,2002:null', {
    kind: 'scalar',
    resolve: (data: string | null) => resolvePlain(data ?? '')?.v === null,
    construct: () => null,
  })
  const types = (y as unknown as { types: Record<string, JsYamlNs.Type> }).types
  schema = y.FAILSAFE_SCHEMA.extend({
    implicit: [resolved, types.merge],
    explicit: [explicitInt, explicitFloat, explicitBool, explicitNull, types.binary],
  })
  return schema
}

/** The first YAML document of `text` (go-yaml's Unmarshal reads only the first one). */
function firstDocument(text: string): string {
  const lines = text.split(/\r?\n/)
  let i = 0
  while (i < lines.length && (/^\s*(#.*)?$/.test(lines[i]) || lines[i].startsWith('%'))) i++
  const out: string[] = lines.slice(0, i)
  if (i < lines.length && /^---(\s|$)/.test(lines[i])) {
    out.push(lines[i])
    i++
  }
  for (; i < lines.length; i++) {
    if (/^(---|\.\.\.)(\s|$)/.test(lines[i])) break
    out.push(lines[i])
  }
  return out.join('\n')
}

export class YamlSyntaxError extends Error {}

/** sigs.k8s.io/yaml YAMLToJSON + json decoding into the value model. */
export function parseGoYaml(text: string): unknown {
  const doc = firstDocument(text)
  try {
    const v = loadYaml(doc, { schema: yamlSchema() })
    return v === undefined ? null : normalizeYaml(v)
  } catch (e) {
    if (e instanceof YamlAliasingError) throw new YamlSyntaxError(e.message)
    const ex = e as { name?: string; reason?: string; mark?: { line: number } }
    if (ex.name !== 'YAMLException') throw e
    throw new YamlSyntaxError(`yaml: line ${goYamlLine(doc, ex)}: ${goYamlReason(doc, ex.reason ?? String(e))}`)
  }
}

function goYamlLine(doc: string, ex: { mark?: { line: number }; reason?: string }): number {
  const line = (ex.mark?.line ?? 0) + 1
  if (/end of the stream/.test(ex.reason ?? '')) {
    // go-yaml reports an unexpected end on the line of the last token, js-yaml one line later
    const lastLine = doc.trimEnd().split('\n').length
    return Math.min(line, lastLine)
  }
  return line
}

/** Best-effort translation of js-yaml reasons into go-yaml v2's texts for common mistakes. */
function goYamlReason(doc: string, reason: string): string {
  if (/end of the stream within a flow collection|missed comma between flow collection entries/.test(reason)) {
    const stack: string[] = []
    let quote = ''
    let last = ''
    for (const ch of doc) {
      if (quote) {
        if (ch === quote) quote = ''
        continue
      }
      if (ch === '"' || ch === "'") quote = ch
      else if (ch === '[' || ch === '{') stack.push(ch)
      else if (ch === ']' || ch === '}') stack.pop()
      if (!/\s/.test(ch)) last = ch
    }
    if (last === ',' || last === ':' || last === '[' || last === '{') return 'did not find expected node content'
    return stack[stack.length - 1] === '{' ? "did not find expected ',' or '}'" : "did not find expected ',' or ']'"
  }
  if (/bad indentation of a mapping entry/.test(reason)) return 'mapping values are not allowed in this context'
  if (/duplicated mapping key/.test(reason)) return reason
  return reason
}

/** YAML → JSON conversion: map keys become strings (sigs.k8s.io/yaml), numbers already modelled. */
function normalizeYaml(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalizeYaml)
  if (v instanceof GoFloat || v === null || typeof v !== 'object') {
    if (typeof v === 'number') return fromJsNumber(v)
    return v
  }
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64')
  const out: JsonObject = {}
  for (const [k, val] of Object.entries(v as JsonObject)) {
    const nv = normalizeYaml(val)
    if (k === '__proto__') Object.defineProperty(out, k, { value: nv, enumerable: true, writable: true, configurable: true })
    else out[k] = nv
  }
  return out
}
