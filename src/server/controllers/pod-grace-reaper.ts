/**
 * Ends pods' graceful deletion. In the reference the nodeagent (kubelet) stops the containers
 * and then deletes the pod with grace period 0; there is no nodeagent in this server, so a pod
 * in graceful deletion is deleted (grace period 0) once its deletionTimestamp is reached, so
 * that `kubectl delete pod` finishes and namespaces can go.
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import { toApiError } from '../api/status-errors.js'
import { RetryTimer } from './retry-timer.js'

export class PodGraceReaper {
  /** uid → the pod being deleted gracefully. */
  private readonly deleting = new Map<string, { namespace: string; name: string; at: number }>()
  private readonly timer: RetryTimer
  private resync = true

  constructor(
    private readonly pods: () => GenericStore,
    log: (level: number, msg: string) => void,
  ) {
    this.timer = new RetryTimer(
      () => this.reap(),
      (err) => log(2, `pod grace reaper: ${(err as Error).message}`),
    )
  }

  start(): void {
    this.resync = true
    this.timer.schedule(0)
  }

  stop(): void {
    this.timer.stop()
  }

  /** A pod was written: one whose grace period runs is remembered. */
  observe(pod: KubeObject): void {
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
