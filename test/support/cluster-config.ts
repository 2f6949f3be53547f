/**
 * The cluster configuration unit tests give the simulated nodes and controllers: two nodes and
 * `cluster start`'s defaults, with what a test changes on top. One place, so that a new cluster
 * option reaches every such test (a test that built its own once missed one and failed to start).
 */
import type { ClusterConfig } from '../../src/server/config.js'

export function testClusterConfig(overrides: Partial<ClusterConfig> = {}): ClusterConfig {
  return {
    nodeNames: ['sim-0', 'sim-1'],
    nodeCapacity: { cpu: '4', memory: '8Gi', pods: '110' },
    nodeLabels: {},
    registerWithTaints: [],
    clusterCidr: '10.244.0.0/16',
    nodeStages: [],
    nodePortForwards: [],
    nodeStatusUpdateFrequencyMs: 10_000,
    controllers: ['*'],
    leaderElect: false,
    nodeMonitorGracePeriodMs: 50_000,
    hpaSyncPeriodMs: 15_000,
    hpaDownscaleStabilizationMs: 300_000,
    hpaTolerance: 0.1,
    ...overrides,
  }
}
