/**
 * kwok's stage controller for the simulated nodes' objects: each Node of ours and each Pod bound
 * to one (spec.nodeName) is matched against the stages of its kind whenever it changes; the
 * first matching stage is applied after its delay (and a random part of its jitter): its event,
 * its finalizers, its deletion, or its status template rendered and merged into the status. A
 * write that changes the object starts the next match, so a heartbeat stage repeats itself.
 * A pod's container that exited and restarts (container-restarts.ts) is the kubelet's business
 * first: its back-off and its restart come before any stage.
 */
import { mergePatch } from '../../core/patch/merge.js'
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import { ApiError } from '../api/status-errors.js'
import type { EventRecorder } from '../controllers/event-recorder.js'
import type { FuncMap } from './go-template.js'
import { type Stage, chooseStage } from './stage.js'
import { stageSteps } from './stage-plan.js'
import { withRuntimeIds } from './runtime-ids.js'
import { type KubeletEvent, type RestartStep, applyRestartStep, kubeletExit, nextRestartStep } from './container-restarts.js'
import { READINESS_ANNOTATION, withReadiness } from './pod-readiness.js'

type Obj = Record<string, unknown>

/** setTimeout's longest delay (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1

export interface StageEngineOptions {
  readonly stages: readonly Stage[]
  /** Whether the object is ours (a node we simulate, or a pod bound to one). */
  owns(obj: KubeObject): boolean
  funcsFor(obj: KubeObject): FuncMap
  readonly events?: EventRecorder
  /** The cluster's clock (the templates' `Now`), which the kubelet's back-off is counted on; Date.now by default. */
  now?(): number
  log(level: number, message: string): void
}

export class StageEngine {
  /** kind/namespace/name → the stage waiting for its delay. */
  private readonly pending = new Map<string, { stage: string; timer: NodeJS.Timeout }>()
  private stopped = false

  constructor(
    private readonly registry: Registry,
    private readonly options: StageEngineOptions,
  ) {}

  private store(kind: string): GenericStore | undefined {
    return kind === 'Node' ? this.registry.lookup('', 'v1', 'nodes') : kind === 'Pod' ? this.registry.lookup('', 'v1', 'pods') : undefined
  }

  /** Looks at an object (after a change, or at start). */
  consider(obj: KubeObject, deleted = false): void {
    if (this.stopped) return
    const key = `${obj.kind}/${obj.metadata.namespace ?? ''}/${obj.metadata.name}`
    if (deleted || !this.options.owns(obj)) {
      this.cancel(key)
      return
    }
    const restart = obj.kind === 'Pod' ? nextRestartStep(obj, this.now()) : undefined
    if (restart) return this.schedule(key, `kubelet ${restart.kind} ${restart.container}`, restart.delayMs, () => this.restart(restart, obj))
    const stage = chooseStage(this.options.stages, obj as Obj)
    if (!stage) return this.cancel(key)
    const { delayMs, jitterMs } = stage.delayFor(obj as Obj)
    // kwok: a random time between the delay and the jitter duration.
    const delay = delayMs + (jitterMs > delayMs ? Math.random() * (jitterMs - delayMs) : 0)
    this.schedule(key, stage.name, delay, () => this.apply(stage, obj))
  }

  /** Runs `step` after the delay, unless the same step already waits for the object. */
  private schedule(key: string, name: string, delay: number, step: () => Promise<void>): void {
    const waiting = this.pending.get(key)
    if (waiting && waiting.stage === name) return
    this.cancel(key)
    const timer = setTimeout(() => {
      this.pending.delete(key)
      void step().catch((err: Error) => this.options.log(2, `${name} on ${key}: ${err.message}`))
    }, Math.min(delay, MAX_TIMER_MS))
    timer.unref()
    this.pending.set(key, { stage: name, timer })
  }

  /** The kubelet's back-off or restart of a pod's container, on the pod as it is now. */
  private async restart(step: RestartStep, seen: KubeObject): Promise<void> {
    const store = this.store('Pod')
    if (!store || this.stopped) return
    const { namespace } = seen.metadata
    const name = seen.metadata.name ?? ''
    let events: KubeletEvent[] = []
    let updated: KubeObject
    try {
      updated = await store.update(
        namespace,
        name,
        (cur) => {
          const next = applyRestartStep(cur, step, this.nowText())
          events = next?.events ?? []
          return next ? { ...cur, status: withRuntimeIds(next.status, cur.metadata.uid ?? '') } : cur
        },
        { subresource: 'status', retryOnConflict: true },
      )
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return
      throw err
    }
    for (const e of events) await this.options.events?.record(updated, e.type, e.reason, e.message, e.fieldPath)
  }

  stop(): void {
    this.stopped = true
    for (const { timer } of this.pending.values()) clearTimeout(timer)
    this.pending.clear()
  }

  private now(): number {
    return this.options.now?.() ?? Date.now()
  }

  /** metav1.Time's text: RFC 3339 to the second, as the kubelet writes it. */
  private nowText(): string {
    return new Date(this.now()).toISOString().replace(/\.\d+Z$/, 'Z')
  }

  private cancel(key: string): void {
    const waiting = this.pending.get(key)
    if (waiting) clearTimeout(waiting.timer)
    this.pending.delete(key)
  }

  /** The stage's steps on the object as it is now (it may have moved on meanwhile). */
  private async apply(stage: Stage, seen: KubeObject): Promise<void> {
    const store = this.store(String(seen.kind))
    if (!store || this.stopped) return
    const { namespace } = seen.metadata
    const name = seen.metadata.name ?? ''
    let current: KubeObject
    try {
      current = await store.get(namespace, name)
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return
      throw err
    }
    if (!stage.matches(current as Obj)) return this.consider(current)
    for (const step of stageSteps(stage, current as Obj, this.options.funcsFor(current))) {
      if (step.kind === 'event') await this.options.events?.record(current, step.event.type as 'Normal' | 'Warning', step.event.reason, step.event.message)
      else if (step.kind === 'delete') await deleteNow(store, namespace, name)
      else if (step.subresource === 'status') {
        const now = this.nowText()
        await store.update(namespace, name, (cur) => ({ ...cur, status: podStatus(cur, mergePatch((cur.status ?? {}) as never, (step.data as Obj).status) as Obj, now) }), { subresource: 'status', retryOnConflict: true })
      } else {
        await store.update(namespace, name, (cur) => mergePatch(cur as never, step.data) as KubeObject, { retryOnConflict: true })
      }
    }
  }
}

/**
 * A pod's status as its kubelet reports it: a container that exits restarts when the pod's
 * restartPolicy says so, a failing readiness probe keeps its container unready, and the runtime's
 * image and container IDs, which kwok's stages omit, are filled in.
 */
function podStatus(obj: KubeObject, status: Obj, now: string): Obj {
  if (obj.kind !== 'Pod') return status
  const exited = kubeletExit(obj, status, now)
  const probed = obj.metadata.annotations?.[READINESS_ANNOTATION] === 'false' ? withReadiness(obj, exited, now) : exited
  return withRuntimeIds(probed, obj.metadata.uid ?? '')
}

async function deleteNow(store: GenericStore, namespace: string | undefined, name: string): Promise<void> {
  try {
    await store.delete(namespace, name, { gracePeriodSeconds: 0 })
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 404)) throw err
  }
}
