/**
 * The Kubernetes quantity library: quantity(), isQuantity() and the arithmetic and comparisons
 * of a resource.Quantity ("1.5Gi", "250m", "1e3"), computed exactly as fractions so that
 * comparisons and isInteger() never suffer from floating point.
 */
import type { Environment } from '@marcbachmann/cel-js'
import { EvaluationError } from '@marcbachmann/cel-js'

const BINARY: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 }
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 }
const FORMAT = /^([+-]?(?:\d+\.?\d*|\.\d+))((?:[KMGTPE]i)|[numkMGTPE]|[eE][-+]?\d+)?$/

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a
  b = b < 0n ? -b : b
  while (b) [a, b] = [b, a % b]
  return a || 1n
}

export class CelQuantity {
  readonly num: bigint
  readonly den: bigint
  constructor(num: bigint, den: bigint) {
    const g = gcd(num, den)
    this.num = num / g
    this.den = den / g
  }
  compare(other: CelQuantity): number {
    const a = this.num * other.den
    const b = other.num * this.den
    return a < b ? -1 : a > b ? 1 : 0
  }
  plus(other: CelQuantity, sign: 1n | -1n): CelQuantity {
    return new CelQuantity(this.num * other.den + sign * other.num * this.den, this.den * other.den)
  }
}

function parseQuantity(text: string): CelQuantity | undefined {
  const match = FORMAT.exec(text)
  if (!match) return undefined
  const [, number, suffix = ''] = match
  const [whole, fraction = ''] = number!.replace(/^[+]/, '').split('.')
  let num = BigInt(`${whole || '0'}${fraction}`.replace(/^-?$/, '0'))
  if (number!.startsWith('-')) num = -(num < 0n ? -num : num)
  let den = 10n ** BigInt(fraction.length)
  if (suffix in BINARY) num *= 1024n ** BigInt(BINARY[suffix]!)
  else {
    const exponent = suffix in DECIMAL ? DECIMAL[suffix]! : Number(suffix.slice(1))
    if (exponent >= 0) num *= 10n ** BigInt(exponent)
    else den *= 10n ** BigInt(-exponent)
  }
  return new CelQuantity(num, den)
}

function mustQuantity(text: string): CelQuantity {
  const quantity = parseQuantity(text)
  if (!quantity) throw new EvaluationError("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
  return quantity
}

const MAX_INT64 = 2n ** 63n - 1n
const MIN_INT64 = -(2n ** 63n)

export function registerQuantityLibrary(env: Environment): void {
  env.registerType('kubernetes.Quantity', CelQuantity as never)
  env.registerFunction('quantity(string): kubernetes.Quantity', mustQuantity)
  env.registerFunction('isQuantity(string): bool', (text: string) => parseQuantity(text) !== undefined)
  env.registerFunction('kubernetes.Quantity.isInteger(): bool', (q: CelQuantity) => q.den === 1n && q.num <= MAX_INT64 && q.num >= MIN_INT64)
  env.registerFunction('kubernetes.Quantity.asInteger(): int', (q: CelQuantity) => {
    if (q.den !== 1n || q.num > MAX_INT64 || q.num < MIN_INT64) throw new EvaluationError('cannot convert value to integer')
    return q.num
  })
  env.registerFunction('kubernetes.Quantity.asApproximateFloat(): double', (q: CelQuantity) => Number(q.num) / Number(q.den))
  env.registerFunction('kubernetes.Quantity.sign(): int', (q: CelQuantity) => (q.num > 0n ? 1n : q.num < 0n ? -1n : 0n))
  env.registerFunction('kubernetes.Quantity.add(kubernetes.Quantity): kubernetes.Quantity', (a: CelQuantity, b: CelQuantity) => a.plus(b, 1n))
  env.registerFunction('kubernetes.Quantity.add(int): kubernetes.Quantity', (a: CelQuantity, b: bigint) => a.plus(new CelQuantity(b, 1n), 1n))
  env.registerFunction('kubernetes.Quantity.sub(kubernetes.Quantity): kubernetes.Quantity', (a: CelQuantity, b: CelQuantity) => a.plus(b, -1n))
  env.registerFunction('kubernetes.Quantity.sub(int): kubernetes.Quantity', (a: CelQuantity, b: bigint) => a.plus(new CelQuantity(b, 1n), -1n))
  env.registerFunction('kubernetes.Quantity.isGreaterThan(kubernetes.Quantity): bool', (a: CelQuantity, b: CelQuantity) => a.compare(b) > 0)
  env.registerFunction('kubernetes.Quantity.isLessThan(kubernetes.Quantity): bool', (a: CelQuantity, b: CelQuantity) => a.compare(b) < 0)
  env.registerFunction('kubernetes.Quantity.compareTo(kubernetes.Quantity): int', (a: CelQuantity, b: CelQuantity) => BigInt(a.compare(b)))
}
