/**
 * The options of `client cluster start` beyond the server's: the simulated nodes (kwok's and
 * the kubelet's names where they have one), the controllers (kube-controller-manager's
 * `--controllers`, `--leader-elect`, `--node-monitor-grace-period`) and the cluster's clock.
 * `server start` does not accept them.
 */
import type { OptionSpec } from '../types.js'

export const CLUSTER_OPTIONS: readonly OptionSpec[] = [
  { name: 'nodes', type: 'int', default: '1', help: 'Number of simulated nodes registered at start (named <node-name-prefix>0, 1, ...), unless --node-names names them.', section: 'cluster', productOnly: true, constraints: { min: 0 } },
  { name: 'node-name-prefix', type: 'string', default: 'node-', help: 'Prefix of the simulated nodes\' names.', section: 'cluster', productOnly: true },
  { name: 'node-names', type: 'strings', help: 'The simulated nodes\' names (then --nodes is their number).', section: 'cluster', productOnly: true, repeatable: true },
  {
    name: 'node-capacity',
    type: 'stringToString',
    default: 'cpu=32,memory=256Gi,pods=110',
    help: 'Each simulated node\'s status.capacity and status.allocatable (resource=quantity pairs).',
    section: 'cluster',
    productOnly: true,
  },
  { name: 'node-labels', type: 'stringToString', help: 'Labels added to each simulated node, as the kubelet\'s --node-labels.', section: 'cluster', productOnly: true },
  {
    name: 'register-with-taints',
    type: 'strings',
    help: 'Taints each simulated node registers with (<key>=<value>:<effect>), as the kubelet\'s option.',
    section: 'cluster',
    repeatable: true,
  },
  { name: 'cluster-cidr', type: 'string', default: '10.244.0.0/16', help: 'CIDR range of the pods: node N gets the Nth /24 as spec.podCIDR, and its pods\' IPs from it.', section: 'cluster' },
  {
    name: 'node-stages',
    type: 'strings',
    help: 'Files of kwok Stage objects (kwok.x-k8s.io/v1alpha1) replacing the default lifecycle of the simulated nodes and their pods.',
    section: 'cluster',
    productOnly: true,
    repeatable: true,
  },
  {
    name: 'node-port-forwards',
    type: 'strings',
    help: 'Files of kwok PortForward and ClusterPortForward objects (kwok.x-k8s.io/v1alpha1) answering port-forward to the simulated nodes\' pods.',
    section: 'cluster',
    productOnly: true,
    repeatable: true,
  },
  { name: 'node-status-update-frequency', type: 'duration', default: '10s', help: 'How often each simulated node renews its Lease in kube-node-lease, as the kubelet\'s nodeStatusUpdateFrequency.', section: 'cluster' },
  {
    name: 'controllers',
    type: 'strings',
    default: '*',
    help: "A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'.",
    section: 'cluster',
    repeatable: true,
  },
  { name: 'leader-elect', type: 'bool', default: 'true', help: 'Start a leader election client and gain leadership before running the controllers (Lease kube-system/kube-controller-manager).', section: 'cluster' },
  { name: 'node-monitor-grace-period', type: 'duration', default: '50s', help: 'Amount of time a running node may be unresponsive before it is marked unhealthy.', section: 'cluster' },
  { name: 'horizontal-pod-autoscaler-sync-period', type: 'duration', default: '15s', help: 'The period for syncing the number of pods in horizontal pod autoscaler.', section: 'cluster' },
  {
    name: 'horizontal-pod-autoscaler-downscale-stabilization',
    type: 'duration',
    default: '5m0s',
    help: 'The period for which autoscaler will look backwards and not scale down below any recommendation it made during that period.',
    section: 'cluster',
  },
  {
    name: 'horizontal-pod-autoscaler-tolerance',
    type: 'float',
    default: '0.1',
    help: 'The minimum change (from 1.0) in the desired-to-actual metrics ratio for the horizontal pod autoscaler to consider scaling.',
    section: 'cluster',
  },
  {
    name: 'clock',
    type: 'string',
    help: 'The cluster\'s time at start (RFC 3339, e.g. 2030-01-01T00:00:00Z): controllers, simulated nodes and CronJobs read a clock that starts there and runs at the real pace.',
    section: 'cluster',
    productOnly: true,
    valueName: 'time',
  },
]
