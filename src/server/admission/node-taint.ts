/**
 * The TaintNodesByCondition admission plugin (the reference's `plugin/pkg/admission/nodetaint`):
 * a node is created with the `node.kubernetes.io/not-ready:NoSchedule` taint, so nothing is
 * scheduled on it before the node controller has seen it ready and removed the taint.
 */
import { isPlainObject } from '../api/registry/object.js'
import { type AdmissionAttributes, CREATE } from './attributes.js'
import { TAINT_NODE_NOT_READY } from './default-toleration-seconds.js'
import { forbidden } from './forbidden.js'
import { type MutationInterface, actsOnOnly, handlesOnly } from './interfaces.js'

export const TAINT_NODES_BY_CONDITION = 'TaintNodesByCondition'

export class TaintNodesByCondition implements MutationInterface {
  readonly handles = handlesOnly(CREATE)
  readonly actsOn = actsOnOnly('nodes')

  async admit(attributes: AdmissionAttributes): Promise<void> {
    // Its job is just to taint nodes.
    if (attributes.resource.group !== '' || attributes.resource.resource !== 'nodes' || attributes.subresource !== '') return
    const node = attributes.object
    if (!node || (node.kind !== undefined && node.kind !== 'Node')) throw forbidden(attributes, `unexpected type ${node ? `*core.${node.kind}` : '<nil>'}`)
    const spec = isPlainObject(node.spec) ? node.spec : (node.spec = {})
    const taints: unknown[] = Array.isArray(spec.taints) ? spec.taints : []
    // Taint.MatchTaint: the same key and effect.
    if (taints.some((t) => isPlainObject(t) && t.key === TAINT_NODE_NOT_READY && t.effect === 'NoSchedule')) return
    spec.taints = [...taints, { key: TAINT_NODE_NOT_READY, effect: 'NoSchedule' }]
  }
}
