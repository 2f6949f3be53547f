import assert from 'node:assert/strict'
import { DefaultTolerationSeconds } from '../../../src/server/admission/default-toleration-seconds.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { attributesFor, refusal } from './table-support.js'

// The reference's defaulttolerationseconds/admission_test.go (TestForgivenessAdmission, TestHandles).
const notReady = (seconds: number, effect: string | undefined = 'NoExecute') => ({ key: 'node.kubernetes.io/not-ready', operator: 'Exists', ...(effect ? { effect } : {}), tolerationSeconds: seconds })
const unreachable = (seconds: number, effect: string | undefined = 'NoExecute') => ({ key: 'node.kubernetes.io/unreachable', operator: 'Exists', ...(effect ? { effect } : {}), tolerationSeconds: seconds })
const foo = { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule', tolerationSeconds: 700 }

const CASES: Array<{ description: string; requested: unknown[] | undefined; expected: unknown[] }> = [
  {
    description: 'pod has no tolerations, expect add tolerations for `notread:NoExecute` and `unreachable:NoExecute`',
    requested: undefined,
    expected: [notReady(300), unreachable(300)],
  },
  {
    description: 'pod has tolerations, but none is for taint `notread:NoExecute` or `unreachable:NoExecute`, expect add tolerations for `notread:NoExecute` and `unreachable:NoExecute`',
    requested: [foo],
    expected: [foo, notReady(300), unreachable(300)],
  },
  {
    description: 'pod specified a toleration for taint `notReady:NoExecute`, expect add toleration for `unreachable:NoExecute`',
    requested: [notReady(700)],
    expected: [notReady(700), unreachable(300)],
  },
  {
    description: 'pod specified a toleration for taint `unreachable:NoExecute`, expect add toleration for `notReady:NoExecute`',
    requested: [unreachable(700)],
    expected: [unreachable(700), notReady(300)],
  },
  {
    description: 'pod specified tolerations for both `notread:NoExecute` and `unreachable:NoExecute`, expect no change',
    requested: [notReady(700), unreachable(700)],
    expected: [notReady(700), unreachable(700)],
  },
  {
    description: 'pod specified toleration for taint `unreachable`, expect add toleration for `notReady:NoExecute`',
    requested: [unreachable(700, undefined)],
    expected: [unreachable(700, undefined), notReady(300)],
  },
  {
    description: 'pod has wildcard toleration for all kind of taints, expect no change',
    requested: [{ operator: 'Exists', tolerationSeconds: 700 }],
    expected: [{ operator: 'Exists', tolerationSeconds: 700 }],
  },
]

const pod = (tolerations: unknown[] | undefined): KubeObject => ({ kind: 'Pod', metadata: { name: 'name', namespace: 'foo' }, spec: tolerations ? { tolerations: structuredClone(tolerations) } : {} })

describe('admission: DefaultTolerationSeconds', () => {
  for (const tc of CASES) {
    it(tc.description, async () => {
      const p = pod(tc.requested)
      await new DefaultTolerationSeconds({ config: {} }).admit(attributesFor({ object: p, namespace: 'foo' }))
      assert.deepEqual((p.spec as { tolerations?: unknown }).tolerations, tc.expected)
    })
  }

  it('takes its seconds from --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds', async () => {
    const p = pod(undefined)
    await new DefaultTolerationSeconds({ config: { defaultNotReadyTolerationSeconds: 60, defaultUnreachableTolerationSeconds: 0 } }).admit(attributesFor({ object: p }))
    assert.deepEqual((p.spec as { tolerations?: unknown }).tolerations, [notReady(60), unreachable(0)])
  })

  it('leaves other resources and subresources alone, and refuses a non-pod marked as a pod', async () => {
    const plugin = new DefaultTolerationSeconds({ config: {} })
    const p = pod(undefined)
    await plugin.admit(attributesFor({ object: p, subresource: 'status' }))
    await plugin.admit(attributesFor({ object: p, kind: 'Foo', resource: 'foos' }))
    assert.deepEqual(p.spec, {})
    assert.deepEqual(await refusal(plugin.admit(attributesFor({ object: { kind: 'Service', metadata: {} } }))), {
      code: 400,
      reason: 'BadRequest',
      message: 'expected *api.Pod but got *core.Service',
    })
  })

  it('TestHandles: creates and updates only', () => {
    const plugin = new DefaultTolerationSeconds({ config: {} })
    assert.deepEqual((['UPDATE', 'CREATE', 'DELETE', 'CONNECT'] as const).map((op) => plugin.handles(op)), [true, true, false, false])
  })
})
