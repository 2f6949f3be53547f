/**
 * resource.Quantity as validation needs it (k8s.io/apimachinery/pkg/api/resource): parsing
 * into an exact decimal, comparison, and String()'s canonical form (`1000` is `1k`,
 * `1024Mi` is `1Gi`, `0.5` is `500m`), which the reference prints in its messages.
 */

export interface Quantity {
  /** The value is sign × digits × 10^exp10 (digits without trailing zeros). */
  readonly digits: bigint
  readonly exp10: number
  readonly negative: boolean
  readonly format: 'DecimalSI' | 'BinarySI' | 'DecimalExponent'
}

const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 }
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 }

const QUANTITY_RE = /^([+-]?)(\d+\.?\d*|\.\d+)(.*)$/
const EXPONENT_RE = /^[eE][+-]?\d+$/

/**
 * Parsed texts, frozen and shared: a cluster's manifests repeat a few dozen quantities ('100m',
 * '128Mi', '1'), and parsing one (a match, a split, bigint arithmetic) costs more than a lookup.
 * Emptied when full and only short texts kept, so odd inputs cannot grow it without bound.
 */
const PARSED = new Map<string, Quantity | null>()
const PARSED_MAX = 1024
const PARSED_KEY_MAX = 64

/** ParseQuantity: undefined when the text is not a quantity. */
export function parseQuantity(input: unknown): Quantity | undefined {
  if (typeof input === 'number') return Number.isFinite(input) ? parseQuantity(String(input)) : undefined
  if (typeof input !== 'string') return undefined
  if (input.length > PARSED_KEY_MAX) return parseQuantityText(input)
  const known = PARSED.get(input)
  if (known !== undefined) return known ?? undefined
  const q = parseQuantityText(input)
  if (PARSED.size >= PARSED_MAX) PARSED.clear()
  PARSED.set(input, q ? Object.freeze(q) : null)
  return q
}

function parseQuantityText(input: string): Quantity | undefined {
  const m = QUANTITY_RE.exec(input.trim())
  if (!m || input.trim() !== input) return undefined
  const negative = m[1] === '-'
  const [intPart, fracPart = ''] = m[2]!.split('.') as [string, string?]
  let digits = BigInt(`${intPart}${fracPart}` || '0')
  let exp10 = -fracPart.length
  const suffix = m[3]!
  let format: Quantity['format']
  if (suffix in BINARY) {
    format = 'BinarySI'
    digits *= 1n << BigInt(BINARY[suffix]!)
  } else if (suffix in DECIMAL) {
    format = 'DecimalSI'
    exp10 += DECIMAL[suffix]!
  } else if (EXPONENT_RE.test(suffix)) {
    format = 'DecimalExponent'
    exp10 += Number(suffix.slice(1))
  } else return undefined
  return normalize({ digits, exp10, negative: negative && digits !== 0n, format })
}

function normalize(q: Quantity): Quantity {
  let { digits, exp10 } = q
  if (digits === 0n) return { ...q, digits: 0n, exp10: 0, negative: false }
  while (digits % 10n === 0n) {
    digits /= 10n
    exp10++
  }
  return { ...q, digits, exp10 }
}

/** Powers of ten a double holds exactly, by exponent. */
const EXACT_POW10 = Array.from({ length: 16 }, (_, i) => 10 ** i)
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)

/** Cmp: -1, 0 or 1. */
export function compareQuantity(a: Quantity, b: Quantity): number {
  const exp = Math.min(a.exp10, b.exp10)
  // Requests and limits are small numbers: compared as doubles when both scaled values are
  // exact integers there (below 2^53), as bigints otherwise.
  const sa = EXACT_POW10[a.exp10 - exp]
  const sb = EXACT_POW10[b.exp10 - exp]
  if (sa !== undefined && sb !== undefined && a.digits <= MAX_SAFE && b.digits <= MAX_SAFE) {
    const am = Number(a.digits) * sa
    const bm = Number(b.digits) * sb
    if (am <= Number.MAX_SAFE_INTEGER && bm <= Number.MAX_SAFE_INTEGER) {
      const av = a.negative ? -am : am
      const bv = b.negative ? -bm : bm
      return av < bv ? -1 : av > bv ? 1 : 0
    }
  }
  const av = (a.negative ? -1n : 1n) * a.digits * 10n ** BigInt(a.exp10 - exp)
  const bv = (b.negative ? -1n : 1n) * b.digits * 10n ** BigInt(b.exp10 - exp)
  return av < bv ? -1 : av > bv ? 1 : 0
}

export const ZERO_QUANTITY: Quantity = { digits: 0n, exp10: 0, negative: false, format: 'DecimalSI' }

/** The value in thousandths, rounded up (MilliValue), as a bigint. */
export function milliValue(q: Quantity): bigint {
  const e = q.exp10 + 3
  const v = e >= 0 ? q.digits * 10n ** BigInt(e) : (q.digits + 10n ** BigInt(-e) - 1n) / 10n ** BigInt(-e)
  return q.negative ? -v : v
}

const DECIMAL_SUFFIX: Record<number, string> = { [-9]: 'n', [-6]: 'u', [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' }

/** Quantity.String(): the canonical form in the quantity's own format. */
export function quantityString(q: Quantity): string {
  if (q.digits === 0n) return '0'
  const sign = q.negative ? '-' : ''
  if (q.format === 'BinarySI' && q.exp10 >= 0) {
    const value = q.digits * 10n ** BigInt(q.exp10)
    if (value >= 1024n) {
      const units = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei']
      let n = value
      let i = 0
      while (i < units.length - 1 && n % 1024n === 0n) {
        n /= 1024n
        i++
      }
      return `${sign}${n}${units[i]}`
    }
  }
  // Rounded up to nano units, as the reference's canonical bytes.
  let digits = q.digits
  let exp10 = q.exp10
  if (exp10 < -9) {
    const div = 10n ** BigInt(-9 - exp10)
    digits = (digits + div - 1n) / div
    exp10 = -9
  }
  let e = exp10 >= 0 ? Math.floor(exp10 / 3) * 3 : -3 * Math.ceil(-exp10 / 3)
  if (q.format !== 'DecimalExponent') e = Math.min(e, 18)
  const mantissa = digits * 10n ** BigInt(exp10 - e)
  if (q.format === 'DecimalExponent') return `${sign}${mantissa}${e === 0 ? '' : `e${e}`}`
  return `${sign}${mantissa}${DECIMAL_SUFFIX[e] ?? ''}`
}

/** The canonical text of a decoded quantity field (the text itself when it does not parse). */
export function canonicalQuantity(input: unknown): string {
  const q = parseQuantity(input)
  return q ? quantityString(q) : String(input)
}
