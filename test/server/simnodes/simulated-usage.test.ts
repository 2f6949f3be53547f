/**
 * The simulated usage rule the metrics API and the autoscaler read (docs/cluster.md): the pod's
 * `metrics.client.dev/*` annotations per container, else each container's requests; no metrics
 * for a pod that is not Running; amounts written as metrics-server writes them.
 */
import assert from 'node:assert/strict'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { cpuQuantity, memoryQuantity, simulatedContainerUsage } from '../../../src/server/simnodes/simulated-usage.js'

const pod = (phase: string, annotations: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default', annotations },
  spec: {
    containers: [
      { name: 'app', image: 'nginx', resources: { requests: { cpu: '250m', memory: '64Mi' } } },
      { name: 'sidecar', image: 'busybox' },
    ],
  },
  status: { phase },
})

describe('simnodes: simulated usage', () => {
  it('gives each container its requests, and nothing it does not request', () => {
    assert.deepEqual(simulatedContainerUsage(pod('Running')), [
      { name: 'app', cpuMilli: 250, memoryBytes: 64 * 1024 * 1024 },
      { name: 'sidecar', cpuMilli: 0, memoryBytes: 0 },
    ])
  })

  it("gives every container the pod's annotations when present", () => {
    const usage = simulatedContainerUsage(pod('Running', { 'metrics.client.dev/cpu': '1500m', 'metrics.client.dev/memory': '1Gi' }))
    assert.deepEqual(usage, [
      { name: 'app', cpuMilli: 1500, memoryBytes: 1024 ** 3 },
      { name: 'sidecar', cpuMilli: 1500, memoryBytes: 1024 ** 3 },
    ])
  })

  it('has no metrics for a pod that is not Running', () => {
    assert.equal(simulatedContainerUsage(pod('Pending')), undefined)
    assert.equal(simulatedContainerUsage(pod('Succeeded')), undefined)
  })

  it('writes CPU in nanocores and memory in Ki, as metrics-server', () => {
    assert.equal(cpuQuantity(250), '250000000n')
    assert.equal(cpuQuantity(0), '0')
    assert.equal(memoryQuantity(64 * 1024 * 1024), '65536Ki')
  })
})
