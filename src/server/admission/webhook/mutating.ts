/**
 * The MutatingAdmissionWebhook plugin (the reference's webhook/mutating): the matching
 * webhooks of the MutatingWebhookConfigurations are called one after the other, each seeing
 * the object as the ones before patched it; a JSONPatch answer is applied to the object. When
 * a webhook changes the object, the webhooks called before it whose reinvocationPolicy is
 * IfNeeded are called once more, in a second round (the reference's reinvocation).
 */
import { isDeepStrictEqual } from 'node:util'
import { applyJsonPatch } from '../../../core/patch/json-patch.js'
import type { JsonObject } from '../../../core/patch/values.js'
import type { KubeObject } from '../../api/registry/object.js'
import { errors } from '../../api/status-errors.js'
import { type AdmissionAttributes, addAnnotation } from '../attributes.js'
import type { MutationInterface } from '../interfaces.js'
import type { PluginInitialization } from '../plugins.js'
import { callWebhook } from './call.js'
import { type WebhookAccessor, WebhookConfigurations } from './configurations.js'
import { ErrCallingWebhook, toStatusErr } from './errors.js'
import { applyFailurePolicy } from './failure-policy.js'
import { type WebhookInvocation, convertBack } from './equivalents.js'
import { type HookCall, candidateWebhooks, shouldCallHook } from './matches.js'
import { observedCall } from './observed.js'
import { isExemptAdmissionConfigurationResource } from './rules.js'
import { stopNamespaceCache } from '../namespace-cache.js'

export const MUTATING_ADMISSION_WEBHOOK = 'MutatingAdmissionWebhook'

/** The audit annotations of each call: whether it mutated, and whether it failed open (the reference's prefixes). */
const MUTATION_PREFIX = 'mutation.webhook.admission.k8s.io/'
const FAILED_OPEN_PREFIX = `failed-open.${MUTATION_PREFIX}`

export class MutatingAdmissionWebhook implements MutationInterface {
  private readonly configurations: WebhookConfigurations

  constructor(private readonly init: PluginInitialization) {
    this.configurations = new WebhookConfigurations(init, 'mutatingwebhookconfigurations')
  }

  handles(): boolean {
    return true
  }

  /** Stops the namespace informer the selectors read. */
  stop(): void {
    stopNamespaceCache(this.init)
  }

  async admit(attributes: AdmissionAttributes): Promise<void> {
    if (isExemptAdmissionConfigurationResource(attributes)) return
    const read = this.configurations.webhooks()
    const all = read instanceof Promise ? await read : read
    const candidates = candidateWebhooks(all, attributes, this.init)
    const hooks = candidates instanceof Promise ? await candidates : candidates
    // The IfNeeded webhooks called so far, and those to call again because a later one changed the object.
    const invoked = new Set<string>()
    const toReinvoke = new Set<string>()
    let changedAny = false
    for (const round of [0, 1]) {
      if (round === 1 && (!changedAny || toReinvoke.size === 0)) return
      for (const hook of hooks) {
        if (round === 1 && !toReinvoke.has(hook.uid)) continue
        const call = await shouldCallHook(hook.webhook, attributes, this.init, 'admit')
        if (!call) continue
        let changed = false
        let failure: unknown
        try {
          changed = await observedCall(hook.webhook, attributes, 'admit', this.init, () => this.callAndPatch(hook, attributes, call))
        } catch (err) {
          failure = err
        }
        // The annotations name the webhook by its index among all of them, as the reference's.
        const at = `round_${round}_index_${all.indexOf(hook)}`
        this.annotate(attributes, `${MUTATION_PREFIX}${at}`, JSON.stringify({ configuration: hook.configurationName, webhook: String(hook.webhook.name), mutated: changed }))
        if (changed) {
          changedAny = true
          for (const uid of invoked) toReinvoke.add(uid)
        }
        if (hook.webhook.reinvocationPolicy === 'IfNeeded') invoked.add(hook.uid)
        if (failure !== undefined) applyFailurePolicy(hook.webhook, failure, this.init, attributes, `${FAILED_OPEN_PREFIX}${at}`, 'admit')
      }
    }
  }

  private annotate(attributes: AdmissionAttributes, key: string, value: string): void {
    try {
      addAnnotation(attributes, key, value)
    } catch (err) {
      this.init.log(2, `failed to set mutation annotation for mutating webhook key ${key} to ${value}: ${(err as Error).message}`)
    }
  }

  /**
   * Calls the webhook and applies its patch to the object in the webhook's version, then to the
   * request's object (converted back when they differ); whether the object changed.
   */
  private async callAndPatch(hook: WebhookAccessor, attributes: AdmissionAttributes, { invocation, versioned }: HookCall): Promise<boolean> {
    const changed = await this.patchVersioned(hook, versioned, invocation)
    if (changed && versioned !== attributes && versioned.object && attributes.object) {
      replaceContents(attributes.object, await convertBack(versioned.object, attributes, invocation, this.init))
    }
    return changed
  }

  private async patchVersioned(hook: WebhookAccessor, attributes: AdmissionAttributes, invocation: WebhookInvocation): Promise<boolean> {
    const name = String(hook.webhook.name)
    const result = await callWebhook(hook.webhook, attributes, true, this.init, invocation)
    if (!result.patch) return false
    let operations: unknown
    try {
      operations = JSON.parse(result.patch.toString('utf8'))
      if (!Array.isArray(operations)) throw new Error('json: cannot unmarshal object into Go value of type jsonpatch.Patch')
    } catch (err) {
      throw new ErrCallingWebhook(name, `received undecodable patch in webhook response: ${(err as Error).message}`, 503)
    }
    if (operations.length === 0) return false
    const object = attributes.object
    if (!object) throw errors.internal(`admission webhook ${JSON.stringify(name)} attempted to modify the object, which is not supported for this operation`)
    if (result.patchType !== 'JSONPatch') throw new ErrCallingWebhook(name, `unsupported patch type ${JSON.stringify(result.patchType ?? '')}`, toStatusErr(name, result.result).code)
    let patched: unknown
    try {
      patched = applyJsonPatch(object as JsonObject, operations)
    } catch (err) {
      throw errors.internal((err as Error).message)
    }
    if (isDeepStrictEqual(patched, object)) return false
    replaceContents(object, patched as KubeObject)
    return true
  }
}

/** The object the chain carries, given the patched contents (plugins change it in place). */
function replaceContents(object: KubeObject, patched: KubeObject): void {
  const target = object as Record<string, unknown>
  for (const key of Object.keys(target)) delete target[key]
  Object.assign(target, patched)
}
