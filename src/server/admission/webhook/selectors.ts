/**
 * A webhook's namespaceSelector and objectSelector (the reference's predicates/namespace and
 * predicates/object matchers). An empty selector matches everything; a cluster-scoped object
 * other than a namespace always matches the namespace selector; a namespace is matched on its
 * own labels; the object selector matches the new or the old object's labels.
 */
import { matchesLabelSelector } from '../../http/selectors.js'
import type { GenericStore } from '../../api/registry/generic-store.js'
import type { KubeObject } from '../../api/registry/object.js'
import { isPlainObject } from '../../api/registry/object.js'
import { errors } from '../../api/status-errors.js'
import type { AdmissionAttributes } from '../attributes.js'
import { cachedNamespace } from '../namespace-cache.js'
import type { PluginInitialization } from '../plugins.js'
import type { Obj } from './configurations.js'

type Labels = Record<string, string>

const labelsOf = (o: KubeObject | undefined): Labels | undefined => {
  const metadata = o && isPlainObject(o.metadata) ? o.metadata : undefined
  return metadata && isPlainObject(metadata.labels) ? (metadata.labels as Labels) : undefined
}

const selectorOf = (v: unknown): Obj | undefined => (isPlainObject(v) ? v : undefined)

function isEmpty(selector: Obj | undefined): boolean {
  if (!selector) return true
  if (Array.isArray(selector.matchExpressions) && selector.matchExpressions.length > 0) return false
  return !isPlainObject(selector.matchLabels) || !hasKeys(selector.matchLabels)
}

/** Whether an object has an own key, without listing them (asked per webhook and binding per request). */
export function hasKeys(o: object): boolean {
  for (const key in o) if (Object.hasOwn(o, key)) return true
  return false
}

/** Whether the namespace selector matches: at once when the request's namespace was read already. */
export function namespaceSelectorMatches(webhook: Obj, attributes: AdmissionAttributes, init: PluginInitialization): boolean | Promise<boolean> {
  const selector = selectorOf(webhook.namespaceSelector)
  if (isEmpty(selector)) return true
  const isNamespace = attributes.resource.group === '' && attributes.resource.resource === 'namespaces'
  if (isNamespace) return matchesLabelSelector(selector!, labelsOf(attributes.object ?? attributes.oldObject) ?? {})
  if (attributes.namespace === '') return true
  const cached = cachedNamespace(init, attributes.namespace)
  if (cached) return selectorMatchesNamespace(selector!, cached)
  const namespaces = init.stores()?.lookup('', 'v1', 'namespaces')
  if (!namespaces) return true
  const namespace = namespaceOf(attributes, namespaces)
  if (namespace instanceof Promise) return namespace.then((read) => matchesLabelSelector(selector!, labelsOf(read) ?? {}))
  return matchesLabelSelector(selector!, labelsOf(namespace.read) ?? {})
}

/**
 * Each selector's answer for each namespace object of the informer (the same object until the
 * namespace changes): every request to a namespace asks each webhook and binding the same.
 */
const answers = new WeakMap<Obj, WeakMap<KubeObject, boolean>>()

function selectorMatchesNamespace(selector: Obj, namespace: KubeObject): boolean {
  let bySelector = answers.get(selector)
  if (!bySelector) answers.set(selector, (bySelector = new WeakMap()))
  let answer = bySelector.get(namespace)
  if (answer === undefined) bySelector.set(namespace, (answer = matchesLabelSelector(selector, labelsOf(namespace) ?? {})))
  return answer
}

/**
 * The request's namespace when the informer has not seen it, read once per request: every webhook and policy binding with a
 * namespace selector asks for it, and a read from the watch cache decodes the stored object.
 * Once read it is kept as it is, so that the later selectors match without waiting.
 */
const namespaceReads = new WeakMap<AdmissionAttributes, Promise<KubeObject> | { read: KubeObject }>()

function namespaceOf(attributes: AdmissionAttributes, namespaces: GenericStore): Promise<KubeObject> | { read: KubeObject } {
  let found = namespaceReads.get(attributes)
  if (!found) {
    const reading = readNamespace(attributes.namespace, namespaces)
    namespaceReads.set(attributes, (found = reading))
    reading.then(
      (read) => namespaceReads.set(attributes, { read }),
      () => undefined,
    )
  }
  return found
}

async function readNamespace(name: string, namespaces: GenericStore): Promise<KubeObject> {
  try {
    // The watch cache first, as the reference reads its namespace lister; one it has not seen
    // yet is read from the store (the reference's live GET).
    return await namespaces.get(undefined, name, '0').catch((err: { code?: unknown }) => {
      if (err.code === 404) return namespaces.get(undefined, name)
      throw err
    })
  } catch (err) {
    if ((err as { code?: unknown }).code === 404) throw errors.internal(`namespaces "${name}" not found`)
    throw err
  }
}

export function objectSelectorMatches(webhook: Obj, attributes: AdmissionAttributes): boolean {
  const selector = selectorOf(webhook.objectSelector)
  if (isEmpty(selector)) return true
  const matches = (o: KubeObject | undefined) => o !== undefined && matchesLabelSelector(selector!, labelsOf(o) ?? {})
  return matches(attributes.object) || matches(attributes.oldObject)
}
