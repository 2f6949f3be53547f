/**
 * Label and field selectors as the reference parses and matches them
 * (apimachinery pkg/labels and pkg/fields).
 *
 * Labels: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, `k>n`, `k<n`,
 * comma-separated (every requirement must hold). Fields: `f=v`, `f==v`, `f!=v`.
 */

export class SelectorError extends Error {}

export type LabelOperator = 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt' | '=' | '!='

export interface LabelRequirement {
  key: string
  operator: LabelOperator
  values: string[]
}

export type Labels = Readonly<Record<string, string>>

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/

function checkKey(key: string): void {
  const slash = key.indexOf('/')
  const [prefix, name] = slash < 0 ? [undefined, key] : [key.slice(0, slash), key.slice(slash + 1)]
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    throw new SelectorError(`invalid label key "${key}": prefix part must be a lowercase RFC 1123 subdomain`)
  }
  if (name.length === 0 || name.length > 63 || !QUALIFIED_NAME.test(name)) {
    throw new SelectorError(
      `invalid label key "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    )
  }
}

function checkValue(value: string): void {
  if (value.length > 63 || !LABEL_VALUE.test(value)) {
    throw new SelectorError(
      `invalid label value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    )
  }
}

/** Splits on commas outside parentheses. */
function splitTerms(text: string): string[] {
  const out: string[] = []
  let depth = 0
  let cur = ''
  for (const ch of text) {
    if (ch === '(') depth++
    if (ch === ')') depth--
    if (ch === ',' && depth === 0) {
      out.push(cur)
      cur = ''
    } else cur += ch
  }
  if (depth !== 0) throw new SelectorError(`unable to parse requirement: unbalanced parentheses in "${text}"`)
  out.push(cur)
  return out
}

export function parseLabelSelector(text: string | null | undefined): LabelRequirement[] {
  if (text === null || text === undefined || text.trim() === '') return []
  const reqs: LabelRequirement[] = []
  for (const raw of splitTerms(text)) {
    const term = raw.trim()
    if (term === '') throw new SelectorError(`unable to parse requirement: found '', expected: identifier`)
    let m: RegExpMatchArray | null
    if ((m = term.match(/^!\s*([^\s!=<>(),]+)$/))) {
      checkKey(m[1]!)
      reqs.push({ key: m[1]!, operator: '!', values: [] })
    } else if ((m = term.match(/^([^\s!=<>(),]+)\s+(in|notin)\s*\(([^()]*)\)$/))) {
      checkKey(m[1]!)
      const values = m[3]!.split(',').map((v) => v.trim())
      if (m[3]!.trim() === '') throw new SelectorError(`unable to parse requirement: for 'in', 'notin' operators, values set can't be empty`)
      values.forEach(checkValue)
      reqs.push({ key: m[1]!, operator: m[2] as 'in' | 'notin', values })
    } else if ((m = term.match(/^([^\s!=<>(),]+)\s*(==|=|!=|>|<)\s*([^\s!=<>(),]*)$/))) {
      checkKey(m[1]!)
      const op = m[2]!
      const value = m[3]!
      if (op === '>' || op === '<') {
        if (!/^-?\d+$/.test(value)) throw new SelectorError(`unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer`)
        reqs.push({ key: m[1]!, operator: op === '>' ? 'gt' : 'lt', values: [value] })
      } else {
        checkValue(value)
        reqs.push({ key: m[1]!, operator: op === '!=' ? '!=' : '=', values: [value] })
      }
    } else if ((m = term.match(/^([^\s!=<>(),]+)$/))) {
      checkKey(m[1]!)
      reqs.push({ key: m[1]!, operator: 'exists', values: [] })
    } else {
      throw new SelectorError(`unable to parse requirement: invalid label selector term "${term}"`)
    }
  }
  return reqs
}

export function matchesLabels(reqs: readonly LabelRequirement[], labels: Labels | undefined): boolean {
  const l = labels ?? {}
  return reqs.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(l, r.key)
    const v = has ? l[r.key]! : undefined
    switch (r.operator) {
      case '=':
        return has && v === r.values[0]
      case 'in':
        return has && r.values.includes(v!)
      case '!=':
      case 'notin':
        return !has || !r.values.includes(v!)
      case 'exists':
        return has
      case '!':
        return !has
      case 'gt':
      case 'lt': {
        if (!has || !/^-?\d+$/.test(v!)) return false
        const n = BigInt(v!)
        const bound = BigInt(r.values[0]!)
        return r.operator === 'gt' ? n > bound : n < bound
      }
    }
  })
}

export interface FieldRequirement {
  field: string
  operator: '=' | '!='
  value: string
}

/** Parses a field selector; `supported` lists the fields the resource can be selected by. */
export function parseFieldSelector(text: string | null | undefined, supported: readonly string[]): FieldRequirement[] {
  if (text === null || text === undefined || text.trim() === '') return []
  const reqs: FieldRequirement[] = []
  for (const raw of text.split(',')) {
    const term = raw.trim()
    const m = term.match(/^([^=!]+?)\s*(==|=|!=)\s*(.*)$/)
    if (!m) throw new SelectorError(`invalid selector: '${text}'; can't understand '${term}'`)
    const field = m[1]!.trim()
    if (!supported.includes(field)) throw new SelectorError(`field label not supported: ${field}`)
    reqs.push({ field, operator: m[2] === '!=' ? '!=' : '=', value: m[3]! })
  }
  return reqs
}

/**
 * fields.ParseSelector, as the reference reads a request's `fieldSelector` before it knows the
 * kind (the request-info resolver decodes ListOptions with it): terms split on commas not
 * escaped by `\`, each split at its first `!=`, `==` or `=` (nothing trimmed), its value
 * unescaped (`\\`, `\,`, `\=`; a bare `,` or `=` or another escape is an error), the terms
 * sorted as Go sorts them. Throws SelectorError with the reference's messages.
 */
export function parseFieldSelectorTerms(text: string): FieldRequirement[] {
  const reqs: FieldRequirement[] = []
  for (const part of splitFieldTerms(text).sort()) {
    if (part === '') continue
    const term = splitFieldTerm(part)
    if (!term) throw new SelectorError(`invalid selector: '${text}'; can't understand '${part}'`)
    reqs.push({ field: term.field, operator: term.operator, value: unescapeFieldValue(term.value) })
  }
  return reqs
}

/** The value of the first `<field>=` or `<field>==` term (Selector.RequiresExactMatch); undefined when there is none. */
export function exactFieldMatch(reqs: readonly FieldRequirement[], field: string): string | undefined {
  return reqs.find((r) => r.field === field && r.operator === '=')?.value
}

function splitFieldTerms(text: string): string[] {
  if (text === '') return []
  const terms: string[] = []
  let start = 0
  let inSlash = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (inSlash) inSlash = false
    else if (c === '\\') inSlash = true
    else if (c === ',') {
      terms.push(text.slice(start, i))
      start = i + 1
    }
  }
  terms.push(text.slice(start))
  return terms
}

function splitFieldTerm(term: string): { field: string; operator: '=' | '!='; value: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    const rest = term.slice(i)
    if (rest.startsWith('!=')) return { field: term.slice(0, i), operator: '!=', value: term.slice(i + 2) }
    if (rest.startsWith('==')) return { field: term.slice(0, i), operator: '=', value: term.slice(i + 2) }
    if (rest.startsWith('=')) return { field: term.slice(0, i), operator: '=', value: term.slice(i + 1) }
  }
  return undefined
}

/** fields.UnescapeValue; a rune is printed as its number, as Go's %v prints one. */
function unescapeFieldValue(value: string): string {
  if (!/[\\,=]/.test(value)) return value
  let out = ''
  let inSlash = false
  for (const c of value) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') throw new SelectorError(`invalid field selector: invalid escape sequence: \\${c}`)
      out += c
      inSlash = false
    } else if (c === '\\') inSlash = true
    else if (c === ',' || c === '=') throw new SelectorError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`)
    else out += c
  }
  if (inSlash) throw new SelectorError('invalid field selector: invalid escape sequence: \\')
  return out
}

export function matchesFields(reqs: readonly FieldRequirement[], fields: Readonly<Record<string, string>>): boolean {
  return reqs.every((r) => ((fields[r.field] ?? '') === r.value) === (r.operator === '='))
}

/**
 * Whether a metav1.LabelSelector (matchLabels and matchExpressions) selects `labels`; an empty
 * selector selects everything, as LabelSelectorAsSelector's.
 */
export function matchesLabelSelector(selector: Readonly<Record<string, unknown>>, labels: Labels | undefined): boolean {
  const l = labels ?? {}
  const matchLabels = selector.matchLabels !== null && typeof selector.matchLabels === 'object' ? (selector.matchLabels as Record<string, unknown>) : {}
  for (const [k, v] of Object.entries(matchLabels)) if (l[k] !== v) return false
  for (const e of Array.isArray(selector.matchExpressions) ? selector.matchExpressions : []) {
    const expr = (e ?? {}) as { key?: unknown; operator?: unknown; values?: unknown }
    const key = String(expr.key ?? '')
    const values = Array.isArray(expr.values) ? expr.values.map(String) : []
    const has = Object.prototype.hasOwnProperty.call(l, key)
    switch (expr.operator) {
      case 'In':
        if (!has || !values.includes(l[key]!)) return false
        break
      case 'NotIn':
        if (has && values.includes(l[key]!)) return false
        break
      case 'Exists':
        if (!has) return false
        break
      case 'DoesNotExist':
        if (has) return false
        break
      default:
        return false
    }
  }
  return true
}

/**
 * A metav1.LabelSelector object (matchLabels, matchExpressions) as requirements, as
 * LabelSelectorAsSelector converts it; an empty selector matches everything.
 */
export function labelSelectorRequirements(selector: { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> }): LabelRequirement[] {
  const reqs: LabelRequirement[] = []
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) reqs.push({ key, operator: '=', values: [value] })
  for (const e of selector.matchExpressions ?? []) {
    const operator = ({ In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' } as const)[e.operator as 'In']
    if (!operator) throw new SelectorError(`${JSON.stringify(e.operator)} is not a valid label selector operator`)
    reqs.push({ key: e.key, operator, values: [...(e.values ?? [])] })
  }
  return reqs
}
