import assert from 'node:assert/strict'
import { TaintNodesByCondition } from '../../../src/server/admission/node-taint.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { attributesFor, refusal } from './table-support.js'

// The reference's nodetaint/admission_test.go (Test_nodeTaints).
const notReadyTaint = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }
const node = (spec: Record<string, unknown> = {}, status: Record<string, unknown> = {}): KubeObject => ({ kind: 'Node', metadata: { name: 'mynode' }, spec, status })
const nodeAttributes = (object: KubeObject) => attributesFor({ kind: 'Node', resource: 'nodes', namespace: '', name: 'mynode', object })

const CASES = [
  { name: 'notReady taint is added on creation', node: node(), expectedTaints: [notReadyTaint] },
  { name: 'already tainted node is not tainted again', node: node({ taints: [notReadyTaint] }), expectedTaints: [notReadyTaint] },
  { name: 'NotReady taint is added to an unready node as well', node: node({}, { conditions: [{ type: 'Ready', status: 'False' }] }), expectedTaints: [notReadyTaint] },
]

describe('admission: TaintNodesByCondition', () => {
  for (const tc of CASES) {
    it(tc.name, async () => {
      await new TaintNodesByCondition().admit(nodeAttributes(tc.node))
      assert.deepEqual((tc.node.spec as { taints?: unknown }).taints, tc.expectedTaints)
    })
  }

  it('keeps the other taints, leaves other resources alone, and handles creates only', async () => {
    const tainted = node({ taints: [{ key: 'a', value: 'b', effect: 'NoExecute' }, { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }] })
    await new TaintNodesByCondition().admit(nodeAttributes(tainted))
    assert.deepEqual((tainted.spec as { taints?: unknown }).taints, [{ key: 'a', value: 'b', effect: 'NoExecute' }, { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }, notReadyTaint])
    const status = node()
    await new TaintNodesByCondition().admit({ ...nodeAttributes(status), subresource: 'status' })
    assert.deepEqual(status.spec, {})
    const plugin = new TaintNodesByCondition()
    assert.deepEqual((['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const).map((op) => plugin.handles(op)), [true, false, false, false])
    assert.deepEqual(await refusal(plugin.admit(nodeAttributes({ kind: 'Pod', metadata: { name: 'mynode' } }))), {
      code: 403,
      reason: 'Forbidden',
      message: 'nodes "mynode" is forbidden: unexpected type *core.Pod',
    })
  })
})
