/**
 * The NodeDeclaredFeatureValidator admission plugin (the reference's
 * plugin/pkg/admission/nodedeclaredfeatures, behind NodeDeclaredFeatures, alpha and off): an
 * update of a pod already on a Node (its spec, or its `resize` subresource) that needs a node
 * feature — as the reference's k8s.io/component-helpers/nodedeclaredfeatures registry infers
 * from the old and new pod — is refused unless the Node lists that feature in
 * `status.declaredFeatures`. The Node objects are read as stored: a kubelet (or whoever
 * writes the Node's status) declares the features; nothing here discovers them.
 */
import { featureGate } from '../../core/options/feature-gates.js'
import { BINARY_VERSION } from '../../core/flags/context.js'
import type { ApiError } from '../api/status-errors.js'
import type { KubeObject } from '../api/registry/object.js'
import { type Quantity, ZERO_QUANTITY, compareQuantity, parseQuantity } from '../api/validation/quantity.js'
import { arr, obj, str } from '../api/validation/helpers.js'
import { type AdmissionAttributes, CREATE, UPDATE } from './attributes.js'
import { forbidden } from './forbidden.js'
import { type ValidationInterface, actsOnOnly, handlesOnly } from './interfaces.js'
import type { PluginInitialization } from './plugins.js'

export const NODE_DECLARED_FEATURE_VALIDATOR = 'NodeDeclaredFeatureValidator'

const GATE = 'NodeDeclaredFeatures'

/** A version as the registry compares them: major, minor, patch. */
export type Version = readonly [number, number, number]

/** One declared feature of the registry (the reference's nodedeclaredfeatures.Feature), as far as admission uses it. */
export interface DeclaredFeature {
  readonly name: string
  /** Past this version every node has the feature: no pod requires it. */
  readonly maxVersion?: Version
  /** Whether updating `oldPod` to `newPod` needs the feature on the pod's node. */
  inferForUpdate(oldPod: KubeObject, newPod: KubeObject): boolean
}

function cpuRequest(container: unknown): Quantity {
  return parseQuantity(obj(obj(obj(container).resources).requests).cpu) ?? ZERO_QUANTITY
}

/**
 * GuaranteedQoSPodCPUResize (features/inplacepodresize): changing a container's CPU request
 * of a Guaranteed pod needs a node that can resize exclusive CPUs.
 */
const GUARANTEED_QOS_POD_CPU_RESIZE: DeclaredFeature = {
  name: 'GuaranteedQoSPodCPUResize',
  inferForUpdate(oldPod, newPod) {
    // An update keeps the QoS class: the old pod's says it.
    if (str(obj(oldPod.status).qosClass) !== 'Guaranteed') return false
    const newContainers = arr(obj(newPod.spec).containers)
    return arr(obj(oldPod.spec).containers).some((c, i) => i < newContainers.length && compareQuantity(cpuRequest(c), cpuRequest(newContainers[i])) !== 0)
  },
}

/** The reference's features.AllFeatures in 1.35, sorted by name as its framework sorts them. */
export const DECLARED_FEATURES: readonly DeclaredFeature[] = [GUARANTEED_QOS_POD_CPU_RESIZE]

function greaterThan(a: Version, b: Version): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! > b[i]!
  return false
}

export class NodeDeclaredFeatureValidator implements ValidationInterface {
  readonly handles = handlesOnly(CREATE, UPDATE)
  readonly actsOn = actsOnOnly('pods')
  private readonly enabled: boolean
  private readonly features: readonly DeclaredFeature[]

  /** `features` and `version` (the server's) as the reference's tests give its framework. */
  constructor(
    private readonly init: PluginInitialization,
    features: readonly DeclaredFeature[] = DECLARED_FEATURES,
    private readonly version: Version = [BINARY_VERSION.major, BINARY_VERSION.minor, 0],
  ) {
    this.enabled = init.config.featureGates?.get(GATE) ?? featureGate(GATE)?.default ?? false
    this.features = [...features].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    if (!this.enabled || a.resource.group !== '' || a.resource.resource !== 'pods' || a.operation !== 'UPDATE') return
    // The pod's spec, directly or through `resize`; not its status or other subresources.
    if (a.subresource !== '' && a.subresource !== 'resize') return
    const pod = a.object
    const oldPod = a.oldObject
    if (!pod || !oldPod) return
    const nodeName = str(obj(pod.spec).nodeName)
    // Only pods already bound to a node.
    if (nodeName === '') return
    // The generation moves only when the spec changes.
    if (oldPod.metadata.generation === pod.metadata.generation) return
    const required = this.features.filter((f) => !(f.maxVersion && greaterThan(this.version, f.maxVersion)) && f.inferForUpdate(oldPod, pod)).map((f) => f.name)
    if (required.length === 0) return
    const node = await this.node(a, nodeName)
    const declared = arr(obj(node.status).declaredFeatures).map((f) => str(f))
    const missing = required.filter((name) => !declared.includes(name))
    if (missing.length > 0) throw forbidden(a, `pod update requires features ${missing.join(', ')} which are not available on node ${JSON.stringify(nodeName)}`)
  }

  private async node(a: AdmissionAttributes, name: string): Promise<KubeObject> {
    const nodes = this.init.stores()?.lookup('', 'v1', 'nodes')
    if (!nodes) throw forbidden(a, `node ${JSON.stringify(name)} not found`)
    try {
      return await nodes.get(undefined, name)
    } catch (err) {
      if ((err as ApiError).code === 404) throw forbidden(a, `node ${JSON.stringify(name)} not found`)
      throw forbidden(a, `failed to get node ${JSON.stringify(name)}: ${(err as Error).message}`)
    }
  }
}
