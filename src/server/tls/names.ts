/** Host names and IP addresses as certificates and SNI see them. */
import net from 'node:net'

/**
 * The canonical text of an IP address (IPv6 compressed and lower case, IPv4-mapped IPv6 as
 * dotted IPv4, like Go's `net.IP.String()`), or undefined when `text` is not an IP address.
 * Brackets and an IPv6 zone are accepted and dropped.
 */
export function canonicalIp(text: string): string | undefined {
  let s = text.trim()
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1)
  const zone = s.indexOf('%')
  if (zone >= 0 && net.isIPv6(s)) s = s.slice(0, zone)
  // Without a colon a text is no IPv6 address: Node's IPv6 test is a large regular expression
  // whose first uses (compiling it, then running it interpreted) are a measurable part of the
  // server's start-up. `::1` (a name of every generated serving certificate) and `::` are
  // canonical as they are written, so they do not need it either.
  if (s === '::1' || s === '::') return s
  const kind = s.includes(':') ? net.isIP(s) : net.isIPv4(s) ? 4 : 0
  if (kind === 4) return s
  if (kind !== 6) return undefined
  // The WHATWG URL serializer implements RFC 5952 (compression, lower case).
  const host = new URL(`http://[${s}]/`).hostname.slice(1, -1)
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host)
  if (mapped) {
    const hi = parseInt(mapped[1]!, 16)
    const lo = parseInt(mapped[2]!, 16)
    return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`
  }
  return host
}

/** `0.0.0.0`, `::` (and blank): listen on all interfaces; not a name a certificate can carry. */
export function isUnspecifiedAddress(text: string | undefined): boolean {
  if (text === undefined || text.trim() === '') return true
  const ip = canonicalIp(text)
  return ip === '0.0.0.0' || ip === '::'
}

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?'
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_LABEL}(\\.${DNS1123_LABEL})*$`)

/** Kubernetes' `IsDNS1123Subdomain`: lower-case labels of letters, digits and inner dashes, 253 characters at most. */
export function isDns1123Subdomain(name: string): boolean {
  return name.length > 0 && name.length <= 253 && DNS1123_SUBDOMAIN.test(name)
}

/**
 * A host or SNI name as a lookup key: lower case, without trailing dots, IP addresses canonical.
 * Returns '' for names that cannot match anything.
 */
export function nameKey(name: string): string {
  const ip = canonicalIp(name)
  if (ip !== undefined) return ip
  return name.trim().toLowerCase().replace(/\.+$/, '')
}

/** The names the generated serving certificate must carry. */
export interface NeededNames {
  dns: string[]
  ips: string[]
}

/** The names kube-apiserver gives its self-signed certificate so that pods reach it as the `kubernetes` service. */
const KUBERNETES_SERVICE_NAMES = ['kubernetes.default.svc', 'kubernetes.default', 'kubernetes']

/**
 * The names of the generated serving certificate: the advertise address (if any), the bind
 * address when it is a specific address (the reference adds it too), `localhost`, `127.0.0.1`,
 * `::1`, the host name, and the `kubernetes` service's names and cluster IP (the reference's
 * MaybeDefaultWithSelfSignedCerts alternates: peers and pods verify the server by them).
 */
export function neededNames(input: { advertiseAddress?: string; bindAddress?: string; hostname?: string; serviceIp?: string }): NeededNames {
  const dns = new Set<string>()
  const ips = new Set<string>()
  const add = (value: string | undefined): void => {
    if (value === undefined || isUnspecifiedAddress(value)) return
    const ip = canonicalIp(value)
    if (ip !== undefined) {
      ips.add(ip)
      return
    }
    const name = nameKey(value)
    // Anything that is not a plausible DNS name (spaces, colons...) cannot be a dNSName.
    if (/^[a-z0-9_]([-a-z0-9_.]*[a-z0-9_])?$/.test(name)) dns.add(name)
  }
  add(input.advertiseAddress)
  add(input.bindAddress)
  add('localhost')
  add('127.0.0.1')
  add('::1')
  add(input.hostname)
  for (const name of KUBERNETES_SERVICE_NAMES) add(name)
  add(input.serviceIp)
  return { dns: [...dns], ips: [...ips] }
}
