/**
 * The PodNodeSelector admission plugin (the reference's `plugin/pkg/admission/podnodeselector`):
 * a created pod's node selector takes in its namespace's (the
 * `scheduler.alpha.kubernetes.io/node-selector` annotation, else the configuration's
 * `clusterDefaultNodeSelector`), refusing a pod whose own selector conflicts with it, and must
 * keep to the namespace's allow list from the configuration. The configuration is
 * `podNodeSelectorPluginConfig: {clusterDefaultNodeSelector: <selector>, <namespace>: <selector>}`.
 */
import { isPlainObject, type KubeObject } from '../api/registry/object.js'
import { ApiError, errors } from '../api/status-errors.js'
import { type AdmissionAttributes, CREATE } from './attributes.js'
import { type MutationInterface, type ValidationInterface, handlesOnly } from './interfaces.js'
import { type LabelsMap, areLabelsInWhiteList, conflicts, convertSelectorToLabelsMap, merge } from './labels-map.js'
import { namespaceOf } from './namespace-of.js'
import { plainError } from './plain-error.js'
import { isPodProper, specOf } from './pod-of.js'
import type { PluginInitialization } from './plugins.js'

export const POD_NODE_SELECTOR = 'PodNodeSelector'

/** The namespace annotations holding a node selector, merged in order. */
export const NAMESPACE_NODE_SELECTORS = ['scheduler.alpha.kubernetes.io/node-selector']

export class PodNodeSelector implements MutationInterface, ValidationInterface {
  readonly handles = handlesOnly(CREATE)
  /** The cluster default (`clusterDefaultNodeSelector`) and each namespace's allow list. */
  readonly clusterNodeSelectors: Record<string, string>

  constructor(
    private readonly init: PluginInitialization,
    pluginConfig: unknown,
  ) {
    this.clusterNodeSelectors = readConfig(pluginConfig)
  }

  async admit(attributes: AdmissionAttributes): Promise<void> {
    if (shouldIgnore(attributes)) return
    const spec = specOf(attributes.object!)
    const namespaceNodeSelector = await this.namespaceNodeSelector(attributes)
    // The mutating phase runs before a generated name is made: the pod's name is the presented one.
    if (conflicts(namespaceNodeSelector, nodeSelectorOf(spec))) throw refuse(attributes, attributes.name, 'pod node label selector conflicts with its namespace node label selector')
    spec.nodeSelector = merge(namespaceNodeSelector, nodeSelectorOf(spec))
    await this.validate(attributes)
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    if (shouldIgnore(attributes)) return
    const pod = attributes.object!
    const name = pod.metadata.name ?? ''
    const podSelector = nodeSelectorOf(specOf(pod))
    const namespaceNodeSelector = await this.namespaceNodeSelector(attributes)
    if (conflicts(namespaceNodeSelector, podSelector)) throw refuse(attributes, name, 'pod node label selector conflicts with its namespace node label selector')
    const whitelist = parse(this.clusterNodeSelectors[attributes.namespace] ?? '')
    if (!areLabelsInWhiteList(podSelector, whitelist)) throw refuse(attributes, name, 'pod node label selector labels conflict with its namespace whitelist')
  }

  /** The namespace's annotations merged, else the cluster default. */
  private async namespaceNodeSelector(attributes: AdmissionAttributes): Promise<LabelsMap> {
    const namespace = await this.namespaceFor(attributes)
    const annotations = namespace.metadata.annotations ?? {}
    let selector: LabelsMap = {}
    let found = false
    for (const annotation of NAMESPACE_NODE_SELECTORS) {
      if (!(annotation in annotations)) continue
      const labels = parse(annotations[annotation]!)
      if (conflicts(selector, labels)) throw plainError(`${namespace.metadata.name} annotations' node label selectors conflict`)
      selector = merge(selector, labels)
      found = true
    }
    return found ? selector : parse(this.clusterNodeSelectors.clusterDefaultNodeSelector ?? '')
  }

  /** The reference reads the namespace from its cache, else the API; a miss there is an internal error. */
  private async namespaceFor(attributes: AdmissionAttributes): Promise<KubeObject> {
    try {
      return await namespaceOf(this.init, attributes)
    } catch (err) {
      if (err instanceof ApiError && err.status.reason === 'NotFound') throw errors.internal(`namespace ${attributes.namespace} does not exist`)
      throw err
    }
  }
}

function shouldIgnore(attributes: AdmissionAttributes): boolean {
  if (!isPodProper(attributes)) return true
  const pod = attributes.object
  // Not a pod: the reference logs it and lets it pass.
  return !pod || (pod.kind !== undefined && pod.kind !== 'Pod')
}

function nodeSelectorOf(spec: Record<string, unknown>): LabelsMap {
  return isPlainObject(spec.nodeSelector) ? (spec.nodeSelector as LabelsMap) : {}
}

/** A selector that does not parse is no Status: the client gets a 500 with its text. */
function parse(selector: string): LabelsMap {
  try {
    return convertSelectorToLabelsMap(selector)
  } catch (err) {
    throw plainError((err as Error).message)
  }
}

function refuse(attributes: AdmissionAttributes, name: string, why: string): ApiError {
  const { group, resource } = attributes.resource
  return errors.forbidden({ group, resource }, name, why)
}

/**
 * The configuration's `podNodeSelectorPluginConfig` map (the key matched without regard to
 * case, as the reference's YAML decoding matches the field); anything unreadable is ignored,
 * as the reference ignores it.
 */
export function readConfig(pluginConfig: unknown): Record<string, string> {
  if (!isPlainObject(pluginConfig)) return {}
  const key = Object.keys(pluginConfig).find((k) => k.toLowerCase() === 'podnodeselectorpluginconfig')
  const section = key === undefined ? undefined : pluginConfig[key]
  if (!isPlainObject(section)) return {}
  return Object.fromEntries(Object.entries(section).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
}
