/** Service networking: cluster IP ranges, the API service's node port, address families. */
import { createRequire } from 'node:module'
import { networkInterfaces } from 'node:os'
import { ENDPOINT_RECONCILER_TYPES } from '../../options/enums.js'
import { formatPortRange } from '../../options/values.js'
import type { PortRange } from '../../options/types.js'
import type { ValidationContext } from '../context.js'
import type { Rule } from '../rule.js'

// Node's IPv4 syntax (node:net's isIPv4), here so that the usual command line does not load
// node:net, whose stream modules are a fifth of `client flags validate`'s start-up.
const IPV4_SEGMENT = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])'
const IPV4 = new RegExp(`^(?:${IPV4_SEGMENT}\\.){3}${IPV4_SEGMENT}$`)

/** node:net's isIP: 4, 6 or 0; node:net is only loaded for a text that may be IPv6. */
function isIP(text: string): 0 | 4 | 6 {
  if (IPV4.test(text)) return 4
  if (!text.includes(':')) return 0
  return (createRequire(import.meta.url)('node:net') as typeof import('node:net')).isIP(text) as 0 | 4 | 6
}

interface Cidr {
  text: string
  family: 4 | 6
  prefix: number
}

/** Go's net.ParseCIDR: an address, a slash and a prefix length within the family's bits. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/')
  if (slash === -1) return undefined
  const family = isIP(text.slice(0, slash))
  const prefixText = text.slice(slash + 1)
  if (family === 0 || !/^\d{1,3}$/.test(prefixText)) return undefined
  const prefix = Number(prefixText)
  if (prefix > (family === 4 ? 32 : 128)) return undefined
  return { text, family: family as 4 | 6, prefix }
}

const DEFAULT_SERVICE_RANGE = '10.0.0.0/24'

/** The host's first external IPv4 address, as the reference would advertise it. */
function hostAddress(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    const found = addresses?.find((a) => a.family === 'IPv4' && !a.internal)
    if (found) return found.address
  }
  return '127.0.0.1'
}

/** The option is one string of comma-separated CIDRs, as in the reference. */
function serviceRanges(ctx: ValidationContext): string[] {
  const text = ctx.value<string>('service-cluster-ip-range') ?? ''
  return text === '' ? [] : text.split(',').map((s) => s.trim())
}

/** Linux's default ephemeral port range, which node ports should stay out of. */
const EPHEMERAL = { base: 32768, size: 60999 - 32768 + 1 }

export const serviceRangeCompleteRules: Rule[] = [
  {
    id: 'NET-1',
    phase: 'complete',
    check(ctx, report) {
      const option = '--service-cluster-ip-range'
      const ranges = serviceRanges(ctx)
      if (ranges.length === 0 || ranges[0] === '') {
        const say = ctx.forReference ? report.warning : report.notice
        say(`no --service-cluster-ip-range given: ${DEFAULT_SERVICE_RANGE} is used; this default is deprecated`, {
          option,
          remedy: 'give the range explicitly, e.g. --service-cluster-ip-range=10.96.0.0/12',
        })
        return
      }
      const primary = parseCidr(ranges[0])
      if (!primary) {
        report.error('service-cluster-ip-range[0] is not a valid cidr', { option, value: ranges[0], remedy: 'write a CIDR such as 10.96.0.0/12' })
        return
      }
      if (ranges.length > 1 && !parseCidr(ranges[1])) {
        report.error('service-cluster-ip-range[1] is not an ip net', { option, value: ranges[1] })
        return
      }
      const hostBits = (primary.family === 4 ? 32 : 128) - primary.prefix
      if (hostBits < 3) {
        report.error(
          'error determining service IP ranges for primary service cidr: the service cluster IP range must be at least 8 IP addresses',
          { option, value: ranges[0] },
        )
      }
    },
  },
]

export const networkingRules: Rule[] = [
  {
    id: 'NET-4',
    phase: 'validate',
    check(ctx, report) {
      const option = '--service-cluster-ip-range'
      const ranges = serviceRanges(ctx)
      if (ranges.length > 2) {
        report.error('--service-cluster-ip-range must not contain more than two entries', { option, value: ranges.join(','), remedy: 'give one range, or one IPv4 and one IPv6 range' })
        return
      }
      const [first, second] = ranges.map(parseCidr)
      if (first && second && first.family === second.family) {
        report.error('--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family', {
          option,
          value: ranges.join(','),
        })
      }
    },
  },
  {
    id: 'NET-9',
    phase: 'validate',
    check(ctx, report) {
      if ((ctx.text('endpoint-reconciler-type') ?? 'lease') === 'none') return
      const primary = parseCidr(serviceRanges(ctx)[0] ?? DEFAULT_SERVICE_RANGE)
      if (!primary) return
      const given = ctx.text('advertise-address') || ctx.text('bind-address') || ''
      const unspecified = given === '' || given === '0.0.0.0' || given === '::'
      // Without an address the host's default interface is used; it is taken to be IPv4 here.
      const advertise = unspecified ? hostAddress() : given
      const family = unspecified ? 4 : isIP(advertise)
      if (family !== 0 && family !== primary.family) {
        report.error(`service IP family ${JSON.stringify(primary.text)} must match public address family ${JSON.stringify(advertise)}`, {
          option: '--advertise-address',
          value: advertise,
          remedy: 'give a service range of the advertise address\'s family first, or --endpoint-reconciler-type=none',
        })
      }
    },
  },
  {
    id: 'NET-10',
    phase: 'validate',
    check(ctx, report) {
      const port = ctx.value<number>('core-service-node-port') ?? 0
      const option = '--core-service-node-port'
      if (port < 0 || port > 65535) {
        report.error(`${option} ${port} must be between 0 and 65535, inclusive. If 0, the core master service will be of type ClusterIP`, {
          option,
          value: String(port),
        })
      }
      const range = ctx.value<PortRange>('service-node-port-range') ?? { base: 30000, size: 2768 }
      if (port > 0 && !(port >= range.base && port < range.base + range.size)) {
        report.error(`core service node port range ${formatPortRange(range)} doesn't contain ${port}`, {
          option,
          value: String(port),
          remedy: `choose a port within --service-node-port-range (${formatPortRange(range)})`,
        })
      }
    },
  },
  {
    id: 'NET-13',
    phase: 'validate',
    check(ctx, report) {
      const type = ctx.text('endpoint-reconciler-type')
      if (type === undefined || type === '') return
      if (!(ENDPOINT_RECONCILER_TYPES as readonly string[]).includes(type)) {
        report.error(`Reconciler not implemented: ${type}`, {
          option: '--endpoint-reconciler-type',
          value: type,
          remedy: `one of ${ENDPOINT_RECONCILER_TYPES.join(', ')} (the reference fails only at run time)`,
        })
      } else if (type === 'master-count') {
        report.warning('--endpoint-reconciler-type=master-count is deprecated; use lease', { option: '--endpoint-reconciler-type', value: type })
      }
    },
  },
  {
    id: 'NET-PORTS',
    phase: 'validate',
    check(ctx, report) {
      if (!ctx.has('service-node-port-range')) return
      const range = ctx.value<PortRange>('service-node-port-range')!
      const end = range.base + range.size
      if (range.base < EPHEMERAL.base + EPHEMERAL.size && EPHEMERAL.base < end) {
        report.warning(
          `--service-node-port-range ${formatPortRange(range)} overlaps the usual ephemeral port range of nodes (${formatPortRange(EPHEMERAL)})`,
          { option: '--service-node-port-range', value: ctx.text('service-node-port-range'), remedy: 'keep node ports below 32768, or narrow the nodes\' ephemeral range' },
        )
      }
    },
  },
]
