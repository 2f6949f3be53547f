/**
 * The PodTopologyLabels admission plugin (the reference's plugin/pkg/admission/podtopologylabels,
 * behind PodTopologyLabelsAdmission, beta and on): a pod bound to a Node gets that Node's
 * `topology.k8s.io/zone` and `topology.k8s.io/region` labels — through the Binding's labels,
 * which the binding copies onto the pod, or directly on a pod created with spec.nodeName — so
 * that a workload can read its zone through the downward API. Labels the pod or Binding already
 * has are kept; a Node that does not exist gives nothing.
 */
import { featureGate } from '../../core/options/feature-gates.js'
import type { ApiError } from '../api/status-errors.js'
import type { KubeObject } from '../api/registry/object.js'
import { obj, str } from '../api/validation/helpers.js'
import { type AdmissionAttributes, CREATE } from './attributes.js'
import { type MutationInterface, actsOnOnly, handlesOnly } from './interfaces.js'
import type { PluginInitialization } from './plugins.js'

export const POD_TOPOLOGY_LABELS = 'PodTopologyLabels'

const GATE = 'PodTopologyLabelsAdmission'

/** The labels kube-apiserver's instance copies (the reference's defaultConfig). */
const TOPOLOGY_LABELS = new Set(['topology.k8s.io/zone', 'topology.k8s.io/region'])

export class PodTopologyLabels implements MutationInterface {
  readonly handles = handlesOnly(CREATE)
  readonly actsOn = actsOnOnly('pods')
  private readonly enabled: boolean

  constructor(private readonly init: PluginInitialization) {
    this.enabled = init.config.featureGates?.get(GATE) ?? featureGate(GATE)?.default ?? false
  }

  async admit(a: AdmissionAttributes): Promise<void> {
    if (!this.enabled || a.resource.group !== '' || a.resource.resource !== 'pods' || !a.object) return
    if (a.subresource === '') return this.admitPod(a.object)
    if (a.subresource === 'binding') return this.admitBinding(a.object)
  }

  /** Into the Binding's labels, which the binding copies onto the pod. */
  private async admitBinding(binding: KubeObject): Promise<void> {
    // The scheduler sets no other field of the target: the kind alone says it is a Node.
    const target = obj(binding.target)
    if (str(target.kind) !== 'Node') return
    mergeLabels(binding, await this.topologyLabelsOf(str(target.name)))
  }

  /** A pod created already bound. */
  private async admitPod(pod: KubeObject): Promise<void> {
    const nodeName = str(obj(pod.spec).nodeName)
    if (nodeName === '') return
    mergeLabels(pod, await this.topologyLabelsOf(nodeName))
  }

  private async topologyLabelsOf(nodeName: string): Promise<Record<string, string>> {
    const nodes = this.init.stores()?.lookup('', 'v1', 'nodes')
    if (!nodes) return {}
    let node: KubeObject
    try {
      node = await nodes.get(undefined, nodeName)
    } catch (err) {
      // A missing Node gives nothing, so as not to break binding to it.
      if ((err as ApiError).code === 404) return {}
      throw err
    }
    return Object.fromEntries(Object.entries(node.metadata.labels ?? {}).filter(([key]) => TOPOLOGY_LABELS.has(key)))
  }
}

/** Adds the labels the object does not have yet. */
function mergeLabels(object: KubeObject, labels: Record<string, string>): void {
  if (Object.keys(labels).length === 0) return
  const existing = (object.metadata.labels ??= {})
  for (const [key, value] of Object.entries(labels)) if (!Object.hasOwn(existing, key)) existing[key] = value
}
