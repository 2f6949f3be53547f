/**
 * kwok's stage controller for the simulated nodes' objects: each Node of ours and each Pod bound
 * to one (spec.nodeName) is matched against the stages of its kind whenever it changes; the
 * first matching stage is applied after its delay (and a random part of its jitter): its event,
 * its finalizers, its deletion, or its status template rendered and merged into the status. A
 * write that changes the object starts the next match, so a heartbeat stage repeats itself.
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

type Obj = Record<string, unknown>

export interface StageEngineOptions {
  readonly stages: readonly Stage[]
  /** Whether the object is ours (a node we simulate, or a pod bound to one). */
  owns(obj: KubeObject): boolean
  funcsFor(obj: KubeObject): FuncMap
  readonly events?: EventRecorder
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
    const stage = chooseStage(this.options.stages, obj as Obj)
    const waiting = this.pending.get(key)
    if (waiting && waiting.stage === stage?.name) return
    this.cancel(key)
    if (!stage) return
    const { delayMs, jitterMs } = stage.delayFor(obj as Obj)
    // kwok: a random time between the delay and the jitter duration.
    const delay = delayMs + (jitterMs > delayMs ? Math.random() * (jitterMs - delayMs) : 0)
    const timer = setTimeout(() => {
      this.pending.delete(key)
      void this.apply(stage, obj).catch((err: Error) => this.options.log(2, `stage ${stage.name} on ${key}: ${err.message}`))
    }, delay)
    timer.unref()
    this.pending.set(key, { stage: stage.name, timer })
  }

  stop(): void {
    this.stopped = true
    for (const { timer } of this.pending.values()) clearTimeout(timer)
    this.pending.clear()
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
        await store.update(namespace, name, (cur) => ({ ...cur, status: podStatus(cur, mergePatch((cur.status ?? {}) as never, (step.data as Obj).status) as Obj) }), { subresource: 'status', retryOnConflict: true })
      } else {
        await store.update(namespace, name, (cur) => mergePatch(cur as never, step.data) as KubeObject, { retryOnConflict: true })
      }
    }
  }
}

/** A pod's status also gets the runtime's image and container IDs, which kwok's stages omit. */
function podStatus(obj: KubeObject, status: Obj): Obj {
  return obj.kind === 'Pod' ? withRuntimeIds(status, obj.metadata.uid ?? '') : status
}

async function deleteNow(store: GenericStore, namespace: string | undefined, name: string): Promise<void> {
  try {
    await store.delete(namespace, name, { gracePeriodSeconds: 0 })
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 404)) throw err
  }
}
