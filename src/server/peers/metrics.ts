/**
 * The mixed-version proxy's metric (staging/src/k8s.io/apiserver/pkg/util/peerproxy/metrics):
 * `apiserver_rerouted_request_total{code,group,version,resource}`, the requests sent to a peer
 * because this server could not serve them, by the peer's answer code.
 */
import { Counter, type Registry } from 'prom-client'

export type ReroutedRequest = (code: number, group: string, version: string, resource: string) => void

export function reroutedRequestCounter(registry: Registry): ReroutedRequest {
  const counter = new Counter({
    name: 'apiserver_rerouted_request_total',
    help: `[ALPHA] Total number of requests that were proxied to a peer kube-apiserver because the local apiserver was not capable of serving it, broken down by 'group', 'version', and 'resource' indicating the GVR of the request. If all three are empty (""), the request is a discovery request.`,
    labelNames: ['code', 'group', 'version', 'resource'],
    registers: [registry],
  })
  return (code, group, version, resource) => counter.inc({ code: String(code), group, version, resource })
}
