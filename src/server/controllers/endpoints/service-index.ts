/**
 * The Services of each namespace as the endpoints controllers follow them, so that a pod's
 * change marks the Services of its namespace without listing them each time.
 */
import type { KubeObject } from '../../api/registry/object.js'

export class ServiceIndex {
  private readonly byNamespace = new Map<string, Map<string, KubeObject>>()

  set(service: KubeObject): void {
    const namespace = service.metadata.namespace ?? ''
    let services = this.byNamespace.get(namespace)
    if (!services) this.byNamespace.set(namespace, (services = new Map()))
    services.set(service.metadata.name!, service)
  }

  delete(service: KubeObject): void {
    this.byNamespace.get(service.metadata.namespace ?? '')?.delete(service.metadata.name!)
  }

  inNamespace(namespace: string): KubeObject[] {
    return [...(this.byNamespace.get(namespace)?.values() ?? [])]
  }
}
