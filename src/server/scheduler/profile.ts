/**
 * The default profile (`default-scheduler`, pkg/scheduler/apis/config/v1/default_plugins.go):
 * the Filter plugins in the reference's order (the first that rejects a node decides its
 * reason) and the Score plugins with their default weights. NodeVolumeLimits, VolumeZone and
 * DynamicResources' filters are not run (see docs/scheduler.md).
 */
import type { FilterPlugin, ScorePlugin } from './framework.js'
import { imageLocalityScore } from './plugins/image-locality.js'
import { interPodAffinityFilter, interPodAffinityScore } from './plugins/inter-pod-affinity.js'
import { nodeAffinityFilter, nodeAffinityScore } from './plugins/node-affinity.js'
import { nodeName } from './plugins/node-name.js'
import { nodePorts } from './plugins/node-ports.js'
import { balancedAllocationScore, nodeResourcesFitFilter, nodeResourcesFitScore } from './plugins/node-resources-fit.js'
import { nodeUnschedulable } from './plugins/node-unschedulable.js'
import { podTopologySpreadFilter, podTopologySpreadScore } from './plugins/pod-topology-spread.js'
import { taintTolerationFilter, taintTolerationScore } from './plugins/taint-toleration.js'
import { volumeBinding } from './plugins/volume-binding.js'
import { volumeRestrictions } from './plugins/volume-restrictions.js'

export const DEFAULT_SCHEDULER_NAME = 'default-scheduler'

export const FILTER_PLUGINS: readonly FilterPlugin[] = [
  nodeUnschedulable,
  nodeName,
  taintTolerationFilter,
  nodeAffinityFilter,
  nodePorts,
  nodeResourcesFitFilter,
  volumeRestrictions,
  volumeBinding,
  podTopologySpreadFilter,
  interPodAffinityFilter,
]

export const SCORE_PLUGINS: readonly ScorePlugin[] = [
  taintTolerationScore,
  nodeAffinityScore,
  nodeResourcesFitScore,
  podTopologySpreadScore,
  interPodAffinityScore,
  balancedAllocationScore,
  imageLocalityScore,
]
