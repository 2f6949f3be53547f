/**
 * Pod IPs from each node's pod CIDR (spec.podCIDR, a /24 of --cluster-cidr per node, as
 * kube-controller-manager's node IPAM gives them): the next free address from .2 on, kept per
 * pod uid so that a pod keeps its IP, and released when the pod is gone.
 */
export class PodIPs {
  private readonly byPod = new Map<string, string>()
  private readonly used = new Set<string>()

  constructor(private readonly cidrOf: (nodeName: string) => string | undefined) {}

  ipFor(nodeName: string, podKey: string): string {
    const known = this.byPod.get(podKey)
    if (known) return known
    const cidr = this.cidrOf(nodeName)
    if (!cidr) return ''
    const base = cidr.split('/')[0]!.split('.').slice(0, 3).join('.')
    for (let host = 2; host < 255; host++) {
      const ip = `${base}.${host}`
      if (this.used.has(ip)) continue
      this.used.add(ip)
      this.byPod.set(podKey, ip)
      return ip
    }
    return ''
  }

  release(podKey: string): void {
    const ip = this.byPod.get(podKey)
    if (ip) this.used.delete(ip)
    this.byPod.delete(podKey)
  }
}

/** The pod CIDR of node number `index` in `clusterCidr`: the index-th /24. */
export function nodePodCidr(clusterCidr: string, index: number): string {
  const [a, b, c] = clusterCidr.split('/')[0]!.split('.').map(Number) as [number, number, number]
  const n = c + index
  return `${a}.${b + Math.floor(n / 256)}.${n % 256}.0/24`
}
