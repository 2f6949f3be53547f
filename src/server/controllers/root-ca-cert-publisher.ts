/**
 * The root CA publisher (the reference's pkg/controller/certificates/rootcacertpublisher, the
 * controller manager's `root-ca-cert-publisher`): every namespace holds a ConfigMap
 * `kube-root-ca.crt` with the CA that verifies this server (`ca.crt`), which the projected
 * token volume the ServiceAccount admission plugin adds to each pod mounts. A namespace is
 * synced when it is created or updated while active, again when its ConfigMap is changed or
 * deleted, and every namespace once at start. A sync creates the ConfigMap, or puts back its
 * data and the one annotation describing its use, as the reference does.
 */
import { isNamespaces } from '../api/registry/deletion.js'
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import { toApiError } from '../api/status-errors.js'
import type { Controller, ControllerContext } from './controller.js'
import { RetryTimer } from './retry-timer.js'

export const ROOT_CA_CONFIG_MAP = 'kube-root-ca.crt'
export const DESCRIPTION_ANNOTATION = 'kubernetes.io/description'
export const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. ' +
  'No other usage is guaranteed across distributions of Kubernetes clusters.'

export class RootCACertPublisher implements Controller {
  readonly name = 'root-ca-cert-publisher'
  private registry: Registry | undefined
  private log: ControllerContext['log'] = () => {}
  private unsubscribe: (() => void) | undefined
  /** The namespaces to sync; `undefined` stands for all of them. */
  private readonly dirty = new Set<string | undefined>()
  private readonly timer = new RetryTimer(
    () => this.sync(),
    (err) => this.log(2, `root CA cert publisher: ${(err as Error).message}`),
  )

  /** `rootCa`: the PEM bundle published as `ca.crt`. */
  constructor(private readonly rootCa: string) {}

  start(ctx: ControllerContext): void {
    if (!ctx.registry.lookup('', 'v1', 'configmaps') || !ctx.registry.lookup('', 'v1', 'namespaces')) return
    this.registry = ctx.registry
    this.log = ctx.log
    this.unsubscribe = ctx.registry.onChange(({ type, object, strategy }) => {
      if (isNamespaces(strategy)) {
        const active = type === 'created' || (type === 'updated' && phaseOf(object) === 'Active')
        if (active && object.metadata.name) this.mark(object.metadata.name)
      } else if (strategy.group === '' && strategy.resource === 'configmaps' && object.metadata.name === ROOT_CA_CONFIG_MAP && type !== 'created') {
        if (object.metadata.namespace) this.mark(object.metadata.namespace)
      }
    })
    this.mark(undefined)
  }

  stop(): void {
    this.unsubscribe?.()
    this.unsubscribe = undefined
    this.timer.stop()
  }

  private mark(namespace: string | undefined): void {
    this.dirty.add(namespace)
    this.timer.schedule(0)
  }

  private async sync(): Promise<void> {
    const marked = [...this.dirty]
    this.dirty.clear()
    const namespaces = marked.includes(undefined)
      ? (await this.store('namespaces').list()).items.filter((ns) => !ns.metadata.deletionTimestamp).map((ns) => ns.metadata.name!)
      : (marked as string[])
    let failed: unknown
    for (const namespace of namespaces) {
      try {
        await this.syncNamespace(namespace)
      } catch (err) {
        this.dirty.add(namespace)
        failed = err
      }
    }
    // The failed namespaces run again after the timer's back-off.
    if (failed) throw failed
  }

  /** syncNamespace: the ConfigMap created, or its data and description put back. */
  private async syncNamespace(namespace: string): Promise<void> {
    const configMaps = this.store('configmaps')
    const data = { 'ca.crt': this.rootCa }
    let current: KubeObject
    try {
      current = await configMaps.get(namespace, ROOT_CA_CONFIG_MAP)
    } catch (err) {
      if (toApiError(err).status.code !== 404) throw err
      try {
        await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIG_MAP, namespace, annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION } }, data })
      } catch (createErr) {
        // No retry when the namespace is gone or terminating, nor when another writer was first.
        const status = toApiError(createErr).status
        if (status.code === 404 || status.code === 409 || status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) return
        throw createErr
      }
      return
    }
    if (sameData(current.data, data) && (current.metadata.annotations?.[DESCRIPTION_ANNOTATION] ?? '') !== '') return
    await configMaps.update(namespace, ROOT_CA_CONFIG_MAP, (latest) => ({
      ...latest,
      metadata: { ...latest.metadata, resourceVersion: current.metadata.resourceVersion, annotations: { ...latest.metadata.annotations, [DESCRIPTION_ANNOTATION]: DESCRIPTION } },
      data,
    }))
  }

  private store(resource: 'configmaps' | 'namespaces'): GenericStore {
    return this.registry!.lookup('', 'v1', resource)!
  }
}

function phaseOf(namespace: KubeObject): unknown {
  return (namespace.status as { phase?: unknown } | undefined)?.phase
}

function sameData(actual: unknown, wanted: Record<string, string>): boolean {
  if (typeof actual !== 'object' || actual === null) return false
  const keys = Object.keys(actual)
  return keys.length === Object.keys(wanted).length && keys.every((key) => (actual as Record<string, unknown>)[key] === wanted[key])
}
