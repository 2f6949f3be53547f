/**
 * The Kubernetes IP and CIDR libraries: ip(), isIP(), cidr(), isCIDR() and their accessors,
 * with the reference's strictness (no IPv4-mapped IPv6, no zones, no leading zeros).
 */
import type { Environment } from '@marcbachmann/cel-js'
import { EvaluationError } from '@marcbachmann/cel-js'
import { isIPv4, isIPv6 } from 'node:net'

export class CelIp {
  constructor(readonly family: 4 | 6, readonly value: bigint) {}
  get bits(): number {
    return this.family === 4 ? 32 : 128
  }
  toString(): string {
    return formatIp(this.family, this.value)
  }
}

export class CelCidr {
  constructor(readonly ip: CelIp, readonly prefix: number) {}
  contains(ip: CelIp): boolean {
    if (ip.family !== this.ip.family) return false
    const shift = BigInt(this.ip.bits - this.prefix)
    return ip.value >> shift === this.ip.value >> shift
  }
  masked(): CelCidr {
    const shift = BigInt(this.ip.bits - this.prefix)
    return new CelCidr(new CelIp(this.ip.family, (this.ip.value >> shift) << shift), this.prefix)
  }
  toString(): string {
    return `${this.ip}/${this.prefix}`
  }
}

function parseIp(text: string): CelIp | undefined {
  if (isIPv4(text)) {
    if (text.split('.').some((part) => part.length > 1 && part.startsWith('0'))) return undefined
    return new CelIp(4, text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(part), 0n))
  }
  if (isIPv6(text) && !text.includes('%')) {
    if (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(text)) return undefined
    let head = text
    let tailV4: bigint | undefined
    const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
    if (v4) {
      tailV4 = parseIp(v4[1])?.value
      head = `${text.slice(0, -v4[1].length)}0:0`
    }
    const [left, right] = head.includes('::') ? head.split('::') : [head, undefined]
    const leftParts = left ? left.split(':') : []
    const rightParts = right === undefined ? [] : right ? right.split(':') : []
    const missing = 8 - leftParts.length - rightParts.length
    const groups = [...leftParts, ...Array(right === undefined ? 0 : missing).fill('0'), ...rightParts]
    let value = groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n)
    if (tailV4 !== undefined) value = (value & ~0xffffffffn) | tailV4
    return new CelIp(6, value)
  }
  return undefined
}

function formatIp(family: 4 | 6, value: bigint): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 0xffn)).join('.')
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - i * 16)) & 0xffffn))
  // RFC 5952: compress the longest run (of at least two) of zero groups.
  let best = -1
  let bestLength = 1
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++
      continue
    }
    let j = i
    while (j < 8 && groups[j] === 0) j++
    if (j - i > bestLength) {
      best = i
      bestLength = j - i
    }
    i = j
  }
  const hex = groups.map((g) => g.toString(16))
  if (best < 0) return hex.join(':')
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLength).join(':')}`
}

function parseCidr(text: string): CelCidr | undefined {
  const slash = text.indexOf('/')
  if (slash < 0) return undefined
  const ip = parseIp(text.slice(0, slash))
  const prefixText = text.slice(slash + 1)
  if (!ip || !/^\d{1,3}$/.test(prefixText) || (prefixText.length > 1 && prefixText.startsWith('0'))) return undefined
  const prefix = Number(prefixText)
  if (prefix > ip.bits) return undefined
  return new CelCidr(ip, prefix)
}

function mustIp(text: string): CelIp {
  const ip = parseIp(text)
  if (!ip) throw new EvaluationError(`IP Address ${JSON.stringify(text)} parse error during conversion from string: ParseAddr(${JSON.stringify(text)}): unable to parse IP`)
  return ip
}

function mustCidr(text: string): CelCidr {
  const cidr = parseCidr(text)
  if (!cidr) throw new EvaluationError(`network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(text)}): bad prefix`)
  return cidr
}

export function registerIpLibrary(env: Environment): void {
  env.registerType('net.IP', CelIp as never)
  env.registerType('net.CIDR', CelCidr as never)
  env.registerFunction('ip(string): net.IP', mustIp)
  env.registerFunction('isIP(string): bool', (text: string) => parseIp(text) !== undefined)
  env.registerFunction('string(net.IP): string', (ip: CelIp) => ip.toString())
  env.registerFunction('net.IP.family(): int', (ip: CelIp) => BigInt(ip.family))
  env.registerFunction('net.IP.isUnspecified(): bool', (ip: CelIp) => ip.value === 0n)
  env.registerFunction('net.IP.isLoopback(): bool', (ip: CelIp) => (ip.family === 4 ? ip.value >> 24n === 127n : ip.value === 1n))
  env.registerFunction('net.IP.isLinkLocalMulticast(): bool', (ip: CelIp) =>
    ip.family === 4 ? ip.value >> 8n === 0xe00000n : ip.value >> 112n === 0xff02n || (ip.value >> 112n & 0xff0fn) === 0xff02n)
  env.registerFunction('net.IP.isLinkLocalUnicast(): bool', (ip: CelIp) => (ip.family === 4 ? ip.value >> 16n === 0xa9fen : ip.value >> 118n === 0x3fan))
  env.registerFunction('net.IP.isGlobalUnicast(): bool', (ip: CelIp) => {
    if (ip.value === 0n) return false
    if (ip.family === 4) {
      const first = ip.value >> 24n
      return first !== 127n && !(first >= 224n) && ip.value >> 16n !== 0xa9fen
    }
    return ip.value !== 1n && ip.value >> 120n !== 0xffn && ip.value >> 118n !== 0x3fan
  })
  env.registerFunction('cidr(string): net.CIDR', mustCidr)
  env.registerFunction('isCIDR(string): bool', (text: string) => parseCidr(text) !== undefined)
  env.registerFunction('string(net.CIDR): string', (cidr: CelCidr) => cidr.toString())
  env.registerFunction('net.CIDR.containsIP(net.IP): bool', (cidr: CelCidr, ip: CelIp) => cidr.contains(ip))
  env.registerFunction('net.CIDR.containsIP(string): bool', (cidr: CelCidr, text: string) => cidr.contains(mustIp(text)))
  env.registerFunction('net.CIDR.containsCIDR(net.CIDR): bool', (cidr: CelCidr, other: CelCidr) => other.prefix >= cidr.prefix && cidr.contains(other.ip))
  env.registerFunction('net.CIDR.containsCIDR(string): bool', (cidr: CelCidr, text: string) => {
    const other = mustCidr(text)
    return other.prefix >= cidr.prefix && cidr.contains(other.ip)
  })
  env.registerFunction('net.CIDR.ip(): net.IP', (cidr: CelCidr) => cidr.ip)
  env.registerFunction('net.CIDR.masked(): net.CIDR', (cidr: CelCidr) => cidr.masked())
  env.registerFunction('net.CIDR.prefixLength(): int', (cidr: CelCidr) => BigInt(cidr.prefix))
}
