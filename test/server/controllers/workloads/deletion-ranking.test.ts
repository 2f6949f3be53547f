/**
 * The order a ReplicaSet deletes pods in, by the rules of the reference's ActivePodsWithRanks
 * (pkg/controller/controller_utils.go, its test TestSortingActivePodsWithRanks): unassigned <
 * assigned, Pending < Unknown < Running, not ready < ready, more related pods on the node
 * first, ready more recently first (log2 buckets of age, uid within a bucket), more restarts
 * first, newer first.
 */
import assert from 'node:assert/strict'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import { rankForDeletion } from '../../../../src/server/controllers/workloads/deletion-ranking.js'

const NOW = Date.parse('2026-01-01T12:00:00Z')
const ago = (s: number) => new Date(NOW - s * 1000).toISOString().replace('.000Z', 'Z')

function pod(name: string, o: { node?: string; phase?: string; readySince?: number; restarts?: number; created?: number; uid?: string } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, uid: o.uid ?? name, creationTimestamp: ago(o.created ?? 1000) },
    spec: o.node ? { nodeName: o.node } : {},
    status: {
      phase: o.phase ?? 'Running',
      ...(o.readySince !== undefined ? { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: ago(o.readySince) }] } : {}),
      ...(o.restarts ? { containerStatuses: [{ restartCount: o.restarts }] } : {}),
    },
  }
}

describe('controllers: the ReplicaSet deletion order', () => {
  const order = (pods: KubeObject[], rank: (p: KubeObject) => number = () => 0) => rankForDeletion(pods, rank, NOW).map((p) => p.metadata.name)

  it('unassigned, then pending, unknown, running; not ready before ready', () => {
    const pods = [pod('ready', { node: 'n', readySince: 100 }), pod('running', { node: 'n' }), pod('unknown', { node: 'n', phase: 'Unknown' }), pod('pending', { node: 'n', phase: 'Pending' }), pod('unassigned', { phase: 'Pending' })]
    assert.deepEqual(order(pods), ['unassigned', 'pending', 'unknown', 'running', 'ready'])
  })

  it('more related pods on the node first', () => {
    const pods = [pod('alone', { node: 'a', readySince: 100 }), pod('crowded', { node: 'b', readySince: 100 })]
    assert.deepEqual(order(pods, (p) => ((p.spec as { nodeName: string }).nodeName === 'b' ? 3 : 1)), ['crowded', 'alone'])
  })

  it('ready more recently first across age buckets; within a bucket the lower uid; then restarts, then newer', () => {
    // 10 s and 1000 s are in different log2 buckets of nanoseconds; 1000 s and 1001 s share one.
    assert.deepEqual(order([pod('old', { node: 'n', readySince: 1000 }), pod('recent', { node: 'n', readySince: 10 })]), ['recent', 'old'])
    assert.deepEqual(order([pod('b', { node: 'n', readySince: 1000, uid: 'b' }), pod('a', { node: 'n', readySince: 1001, uid: 'a' })]), ['a', 'b'])
    assert.deepEqual(order([pod('calm', { node: 'n' }), pod('crashy', { node: 'n', restarts: 4 })]), ['crashy', 'calm'])
    assert.deepEqual(order([pod('older', { node: 'n', created: 5000 }), pod('newer', { node: 'n', created: 5 })]), ['newer', 'older'])
  })
})
