/**
 * The DefaultTolerationSeconds admission plugin (the reference's
 * `plugin/pkg/admission/defaulttolerationseconds`): a pod created or updated without a
 * toleration for the node controller's `not-ready` and `unreachable` NoExecute taints gets one
 * for each, for --default-not-ready-toleration-seconds and
 * --default-unreachable-toleration-seconds (300 each), so it is evicted from a failed node
 * only after that long. A toleration with no key or no effect counts, as it tolerates them.
 */
import { isPlainObject } from '../api/registry/object.js'
import { errors } from '../api/status-errors.js'
import { type AdmissionAttributes, CREATE, UPDATE } from './attributes.js'
import { type MutationInterface, actsOnOnly, handlesOnly } from './interfaces.js'
import type { PluginInitialization } from './plugins.js'

export const DEFAULT_TOLERATION_SECONDS = 'DefaultTolerationSeconds'

/** The node controller's taints (v1.TaintNodeNotReady, v1.TaintNodeUnreachable). */
export const TAINT_NODE_NOT_READY = 'node.kubernetes.io/not-ready'
export const TAINT_NODE_UNREACHABLE = 'node.kubernetes.io/unreachable'

export class DefaultTolerationSeconds implements MutationInterface {
  readonly handles = handlesOnly(CREATE, UPDATE)
  readonly actsOn = actsOnOnly('pods')
  private readonly notReadySeconds: number
  private readonly unreachableSeconds: number

  constructor(init: Pick<PluginInitialization, 'config'>) {
    this.notReadySeconds = init.config.defaultNotReadyTolerationSeconds ?? 300
    this.unreachableSeconds = init.config.defaultUnreachableTolerationSeconds ?? 300
  }

  async admit(attributes: AdmissionAttributes): Promise<void> {
    if (attributes.resource.group !== '' || attributes.resource.resource !== 'pods') return
    // Only pods proper, not their subresources.
    if (attributes.subresource !== '') return
    const pod = attributes.object
    if (!pod || (pod.kind !== undefined && pod.kind !== 'Pod')) throw errors.badRequest(`expected *api.Pod but got ${pod ? `*core.${pod.kind}` : '<nil>'}`)
    const spec = isPlainObject(pod.spec) ? pod.spec : (pod.spec = {})
    const tolerations: unknown[] = Array.isArray(spec.tolerations) ? spec.tolerations : []
    const tolerates = (key: string) => tolerations.some((t) => isPlainObject(t) && (t.key === key || !t.key) && (t.effect === 'NoExecute' || !t.effect))
    const added: unknown[] = []
    if (!tolerates(TAINT_NODE_NOT_READY)) added.push(toleration(TAINT_NODE_NOT_READY, this.notReadySeconds))
    if (!tolerates(TAINT_NODE_UNREACHABLE)) added.push(toleration(TAINT_NODE_UNREACHABLE, this.unreachableSeconds))
    if (added.length > 0) spec.tolerations = [...tolerations, ...added]
  }
}

function toleration(key: string, seconds: number): Record<string, unknown> {
  return { key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds }
}
