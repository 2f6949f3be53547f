/**
 * Ends pods' graceful deletion. In the reference the nodeagent (kubelet) stops the containers
 * and then deletes the pod with grace period 0; there is no nodeagent in this server, so a pod
 * in graceful deletion is deleted (grace period 0) once its deletionTimestamp is reached, so
 * that `kubectl delete pod` finishes and namespaces can go. It follows the registry's pod writes.
 * The reference has no such controller (its name here says what it does).
 */
import { isPods } from '../api/registry/deletion.js'
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import { toApiError } from '../api/status-errors.js'
import type { Controller, ControllerContext } from './controller.js'
import { RetryTimer } from './retry-timer.js'

export class PodGraceReaper implements Controller {
  readonly name = 'pod-grace-reaper'
  /** uid → the pod being deleted gracefully. */
  private readonly deleting = new Map<string, { namespace: string; name: string; at: number }>()
  private readonly timer = new RetryTimer(
    () => this.reap(),
    (err) => this.log(2, `pod grace reaper: ${(err as Error).message}`),
  )
  private resync = true
  private registry: Registry | undefined
  private log: ControllerContext['log'] = () => {}
  private unsubscribe: (() => void) | undefined

  start(ctx: ControllerContext): void {
    if (!ctx.registry.lookup('', 'v1', 'pods')) return
    this.registry = ctx.registry
    this.log = ctx.log
    this.unsubscribe = ctx.registry.onChange((change) => {
      if (isPods(change.strategy) && change.type !== 'deleted') this.observe(change.object)
    })
    this.resync = true
    this.timer.schedule(0)
  }

  stop(): void {
    this.unsubscribe?.()
    this.unsubscribe = undefined
    this.timer.stop()
  }

  private pods(): GenericStore {
    return this.registry!.lookup('', 'v1', 'pods')!
  }

  /** A pod was written: one whose grace period runs is remembered. */
  private observe(pod: KubeObject): void {
    const { deletionTimestamp, deletionGracePeriodSeconds, uid, namespace, name } = pod.metadata
    if (!deletionTimestamp || typeof deletionGracePeriodSeconds !== 'number' || deletionGracePeriodSeconds <= 0 || !uid) return
    const at = Date.parse(deletionTimestamp)
    this.deleting.set(uid, { namespace: namespace ?? '', name: name ?? '', at })
    this.timer.schedule(Math.max(0, at - Date.now()))
  }

  private async reap(): Promise<void> {
    if (this.resync) {
      this.resync = false
      for (const pod of (await this.pods().list()).items) this.observe(pod)
    }
    let next = Infinity
    for (const [uid, pod] of [...this.deleting]) {
      if (pod.at > Date.now()) {
        next = Math.min(next, pod.at)
        continue
      }
      try {
        await this.pods().deleteObject(pod.namespace, pod.name, { gracePeriodSeconds: 0, preconditions: { uid } })
      } catch (err) {
        const code = toApiError(err).code
        if (code !== 404 && code !== 409) throw err
      }
      this.deleting.delete(uid)
    }
    if (next !== Infinity) this.timer.schedule(Math.max(0, next - Date.now()))
  }
}
