/**
 * FitError.Error (pkg/scheduler/framework/types.go): "0/N nodes are available:", the PreFilter
 * message when a PreFilter plugin rejected the pod, else each reason counted over the nodes as
 * "<count> <reason>", sorted with sort.Strings (byte order: "10 ..." before "9 ...") and joined
 * by ", ", a period; then the PostFilter message after a space.
 */
import assert from 'node:assert/strict'
import { fitErrorMessage, unresolvable, unschedulable } from '../../../src/server/scheduler/status.js'

describe('scheduler: the FitError message', () => {
  it('counts, sorts as strings, and appends the PostFilter message', () => {
    const nodeToStatus = new Map([
      ...Array.from({ length: 10 }, (_, i) => [`a${i}`, unschedulable('Insufficient memory')] as const),
      ...Array.from({ length: 9 }, (_, i) => [`b${i}`, unresolvable("node(s) didn't match Pod's node affinity/selector")] as const),
      ['c', unschedulable('Insufficient cpu', 'Insufficient memory')] as const,
    ])
    assert.equal(
      fitErrorMessage(20, { nodeToStatus, postFilterMsg: 'no new claims to deallocate, preemption: x.' }),
      "0/20 nodes are available: 1 Insufficient cpu, 11 Insufficient memory, 9 node(s) didn't match Pod's node affinity/selector. no new claims to deallocate, preemption: x.",
    )
  })

  it('a PreFilter rejection replaces the per-node reasons', () => {
    assert.equal(fitErrorMessage(2, { nodeToStatus: new Map([['a', unschedulable('ignored')]]), preFilterMsg: 'pod has unbound immediate PersistentVolumeClaims' }), '0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims.')
  })
})
