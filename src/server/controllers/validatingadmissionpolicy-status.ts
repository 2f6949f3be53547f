/**
 * The reference's ValidatingAdmissionPolicy status controller (pkg/controller/
 * validatingadmissionpolicystatus): each policy written with a generation its status has not
 * observed is type-checked (admission/policy/validating/typechecking.ts) and its status gets
 * `observedGeneration` and `typeChecking` (`expressionWarnings`, absent when there are none),
 * its other status fields (conditions) kept. It follows the registry's policy writes; at start
 * it looks at every policy. Policies are checked one at a time, in the order they were written.
 */
import type { KubeObject } from '../api/registry/object.js'
import { isPlainObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import { ApiError } from '../api/status-errors.js'
import { checkPolicy } from '../admission/policy/validating/typechecking.js'
import type { Controller, ControllerContext } from './controller.js'

const GROUP = 'admissionregistration.k8s.io'
const RESOURCE = 'validatingadmissionpolicies'

/** After a failed write, when the policy is looked at again. */
const RETRY_MS = 1000

export class ValidatingAdmissionPolicyStatusController implements Controller {
  readonly name = 'validatingadmissionpolicy-status-controller'
  private unsubscribe: (() => void) | undefined
  private readonly queue = new Set<string>()
  private running: Promise<void> | undefined
  private stopped = false
  private readonly timers = new Set<NodeJS.Timeout>()

  start(ctx: ControllerContext): void {
    const { registry } = ctx
    this.stopped = false
    this.unsubscribe = registry.onChange((change) => {
      const { group, resource } = change.strategy
      if (group !== GROUP || resource !== RESOURCE || change.type === 'deleted') return
      this.enqueue(ctx, String(change.object.metadata.name ?? ''))
    })
    const store = registry.lookup(GROUP, 'v1', RESOURCE)
    void store
      ?.list()
      .then(({ items }) => items.forEach((p) => this.enqueue(ctx, String(p.metadata.name ?? ''))))
      .catch((err: unknown) => ctx.log(2, `validatingadmissionpolicy status: ${(err as Error).message}`))
  }

  stop(): void {
    this.stopped = true
    this.unsubscribe?.()
    this.unsubscribe = undefined
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
    this.queue.clear()
  }

  /** Resolves once nothing is queued (for tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running
  }

  private enqueue(ctx: ControllerContext, name: string): void {
    if (name === '' || this.stopped) return
    this.queue.add(name)
    this.running ??= this.work(ctx).finally(() => (this.running = undefined))
  }

  private async work(ctx: ControllerContext): Promise<void> {
    while (this.queue.size > 0 && !this.stopped) {
      const name = this.queue.values().next().value as string
      this.queue.delete(name)
      try {
        await reconcile(ctx.registry, name)
      } catch (err) {
        ctx.log(2, `validatingadmissionpolicy status ${name}: ${(err as Error).message}`)
        const timer = setTimeout(() => {
          this.timers.delete(timer)
          this.enqueue(ctx, name)
        }, RETRY_MS)
        timer.unref()
        this.timers.add(timer)
      }
    }
  }
}

const generationOf = (o: KubeObject): number => (typeof o.metadata.generation === 'number' ? o.metadata.generation : 0)
const observedOf = (o: KubeObject): number => {
  const status = isPlainObject(o.status) ? o.status : {}
  return typeof status.observedGeneration === 'number' ? status.observedGeneration : 0
}

/** The reference's reconcile: nothing to do once the generation is observed. */
async function reconcile(registry: Registry, name: string): Promise<void> {
  const store = registry.lookup(GROUP, 'v1', RESOURCE)
  if (!store) return
  let policy: KubeObject
  try {
    policy = await store.get(undefined, name)
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return
    throw err
  }
  if (generationOf(policy) <= observedOf(policy)) return
  const warnings = await checkPolicy(policy, registry)
  const generation = generationOf(policy)
  const typeChecking = warnings.length > 0 ? { expressionWarnings: warnings.map((w) => ({ fieldRef: w.fieldRef, warning: w.warning })) } : {}
  await store.update(
    undefined,
    name,
    (current) => {
      // A newer generation is checked when its own write comes through the queue.
      if (generationOf(current) !== generation) return current
      const status = isPlainObject(current.status) ? current.status : {}
      return { ...current, status: { ...status, observedGeneration: generation, typeChecking } }
    },
    { subresource: 'status', admission: false },
  )
}
