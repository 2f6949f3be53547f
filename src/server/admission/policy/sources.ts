/**
 * The policies and their bindings as the dispatchers use them (the reference's generic
 * PolicySource): every stored policy that some binding names (`spec.policyName`), with its
 * bindings, its compiled evaluator (compiled once per generation of the policy) and its paramKind's
 * store; a paramKind nothing serves is the policy's configuration error
 * (`failed to find resource referenced by paramKind: '<group>/<version>, Kind=<kind>'`).
 * Read by a list kept for a short while, so that a change is in effect within a second without
 * an informer. Shared by ValidatingAdmissionPolicy and MutatingAdmissionPolicy.
 */
import { isPlainObject, type KubeObject } from '../../api/registry/object.js'
import type { PluginInitialization } from '../plugins.js'
import { type KindMapping, gvkString, mapKind, parseGroupVersion } from './kinds.js'

/** One policy with what a request needs of it (the reference's PolicyHook). */
export interface PolicyHook<E> {
  readonly policy: KubeObject
  /** Its bindings, by name. */
  readonly bindings: readonly KubeObject[]
  readonly evaluator: E
  /** The paramKind's store and scope, when the policy has one that is served. */
  readonly paramSource?: KindMapping
  /** Why the policy cannot be applied as configured. */
  readonly configurationError?: string
}

export interface PolicySourceOptions<E> {
  /** `admissionregistration.k8s.io` and the version the kinds are read in. */
  readonly group: string
  readonly version: string
  /** `validatingadmissionpolicies`, `mutatingadmissionpolicies`. */
  readonly policies: string
  /** `validatingadmissionpolicybindings`, ... */
  readonly bindings: string
  /** Compiles a policy's expressions (called once per policy uid and generation). */
  readonly compile: (policy: KubeObject) => E
}

/** How long a list stays in use: changes are in effect within a second. */
const CACHE_MS = 250

export const nameOf = (o: KubeObject): string => (typeof o.metadata.name === 'string' ? o.metadata.name : '')
export const specOf = (o: KubeObject): Record<string, unknown> => (isPlainObject(o.spec) ? o.spec : {})

const byName = (a: KubeObject, b: KubeObject) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0)

export class PolicySource<E> {
  private cached?: { at: number; hooks: PolicyHook<E>[] }
  private pending?: Promise<PolicyHook<E>[]>
  private readonly compiled = new Map<string, { version: string; evaluator: E }>()

  constructor(
    private readonly init: PluginInitialization,
    private readonly options: PolicySourceOptions<E>,
  ) {}

  /**
   * The hooks, read again when the last read is older than a quarter of a second; at once (no
   * Promise) while the last read is fresh, as on nearly every request.
   */
  hooks(): PolicyHook<E>[] | Promise<PolicyHook<E>[]> {
    if (this.cached && Date.now() - this.cached.at < CACHE_MS) return this.cached.hooks
    // Concurrent requests share one read.
    this.pending ??= this.read().finally(() => (this.pending = undefined))
    return this.pending
  }

  /** Forgets the last read, so that the next request reads the stores again. */
  invalidate(): void {
    this.cached = undefined
  }

  private async read(): Promise<PolicyHook<E>[]> {
    const at = Date.now()
    const stores = this.init.stores()
    const { group, version } = this.options
    const policyStore = stores?.lookup(group, version, this.options.policies)
    const bindingStore = stores?.lookup(group, version, this.options.bindings)
    if (!stores || !policyStore || !bindingStore) return []
    const [policies, bindings] = await Promise.all([policyStore.list(), bindingStore.list()])
    const bindingsByPolicy = new Map<string, KubeObject[]>()
    for (const binding of [...bindings.items].sort(byName)) {
      const policyName = specOf(binding).policyName
      if (typeof policyName !== 'string') continue
      const list = bindingsByPolicy.get(policyName) ?? []
      list.push(binding)
      bindingsByPolicy.set(policyName, list)
    }
    const hooks: PolicyHook<E>[] = []
    const seen = new Set<string>()
    for (const policy of [...policies.items].sort(byName)) {
      const policyBindings = bindingsByPolicy.get(nameOf(policy))
      if (!policyBindings) continue
      seen.add(String(policy.metadata.uid ?? nameOf(policy)))
      hooks.push({ policy, bindings: policyBindings, evaluator: this.evaluatorFor(policy), ...(await this.paramsFor(policy)) })
    }
    for (const key of this.compiled.keys()) if (!seen.has(key)) this.compiled.delete(key)
    this.cached = { at, hooks }
    return hooks
  }

  private evaluatorFor(policy: KubeObject): E {
    const key = String(policy.metadata.uid ?? nameOf(policy))
    // The generation changes with the spec only (a status write does not recompile); without one, any write does.
    const version = typeof policy.metadata.generation === 'number' ? `g${policy.metadata.generation}` : String(policy.metadata.resourceVersion ?? '')
    const found = this.compiled.get(key)
    if (found && found.version === version) return found.evaluator
    const evaluator = this.options.compile(policy)
    this.compiled.set(key, { version, evaluator })
    return evaluator
  }

  private async paramsFor(policy: KubeObject): Promise<{ paramSource?: KindMapping; configurationError?: string }> {
    const paramKind = specOf(policy).paramKind
    if (!isPlainObject(paramKind)) return {}
    let gv: { group: string; version: string }
    try {
      gv = parseGroupVersion(typeof paramKind.apiVersion === 'string' ? paramKind.apiVersion : '')
    } catch (err) {
      return { configurationError: `failed to parse paramKind APIVersion: ${(err as Error).message}` }
    }
    const gvk = { ...gv, kind: typeof paramKind.kind === 'string' ? paramKind.kind : '' }
    const stores = this.init.stores()
    const mapping = stores ? await mapKind(stores, gvk) : undefined
    if (!mapping) return { configurationError: `failed to find resource referenced by paramKind: '${gvkString(gvk)}'` }
    return { paramSource: mapping }
  }
}
