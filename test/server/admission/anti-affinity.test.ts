import assert from 'node:assert/strict'
import { LimitPodHardAntiAffinityTopology } from '../../../src/server/admission/anti-affinity.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { attributesFor, refusal } from './table-support.js'

// The reference's antiaffinity/admission_test.go.
const selector = { matchExpressions: [{ key: 'security', operator: 'In', values: ['S2'] }] }
const term = (topologyKey: string) => ({ labelSelector: selector, topologyKey })
const preferred = [{ weight: 5, podAffinityTerm: term('az') }]

const CASES: Array<{ name: string; affinity: unknown; errorExpected: string | undefined }> = [
  { name: 'empty affinity its success', affinity: {}, errorExpected: undefined },
  { name: 'what ever topologyKey in preferredDuringSchedulingIgnoredDuringExecution, the admission should success', affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: preferred } }, errorExpected: undefined },
  {
    name: 'valid topologyKey in requiredDuringSchedulingIgnoredDuringExecution, plus any topologyKey in preferredDuringSchedulingIgnoredDuringExecution, then admission success',
    affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: preferred, requiredDuringSchedulingIgnoredDuringExecution: [term('kubernetes.io/hostname')] } },
    errorExpected: undefined,
  },
  { name: 'valid topologyKey in requiredDuringSchedulingIgnoredDuringExecution then admission success', affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('kubernetes.io/hostname')] } }, errorExpected: undefined },
  {
    name: 'invalid topologyKey in requiredDuringSchedulingIgnoredDuringExecution then admission fails',
    affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(' zone ')] } },
    errorExpected: 'pods "name" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey  zone  but only key kubernetes.io/hostname is allowed',
  },
  {
    name: 'list of requiredDuringSchedulingIgnoredDuringExecution middle element topologyKey is not valid',
    affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('kubernetes.io/hostname'), term(' zone '), term('kubernetes.io/hostname')] } },
    errorExpected: 'pods "name" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey  zone  but only key kubernetes.io/hostname is allowed',
  },
]

const pod = (affinity: unknown): KubeObject => ({ kind: 'Pod', metadata: { name: 'name', namespace: 'foo' }, spec: { affinity } })

describe('admission: LimitPodHardAntiAffinityTopology', () => {
  for (const tc of CASES) {
    it(tc.name, async () => {
      const got = await refusal(new LimitPodHardAntiAffinityTopology().validate(attributesFor({ object: pod(tc.affinity), namespace: 'foo' })))
      assert.deepEqual(got, tc.errorExpected === undefined ? undefined : { code: 403, reason: 'Forbidden', message: tc.errorExpected })
    })
  }

  it('TestHandles: creates and updates', () => {
    const plugin = new LimitPodHardAntiAffinityTopology()
    assert.deepEqual((['UPDATE', 'CREATE', 'DELETE', 'CONNECT'] as const).map((op) => plugin.handles(op)), [true, true, false, false])
  })

  it('TestOtherResources: other resources and subresources pass; a non-pod marked as a pod is a BadRequest', async () => {
    const plugin = new LimitPodHardAntiAffinityTopology()
    const bad = pod({ podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('zone')] } })
    assert.equal(await refusal(plugin.validate(attributesFor({ kind: 'Foo', resource: 'foos', object: bad }))), undefined)
    assert.equal(await refusal(plugin.validate(attributesFor({ subresource: 'eviction', object: bad }))), undefined)
    assert.equal((await refusal(plugin.validate(attributesFor({ object: { kind: 'Service', metadata: {} } }))))?.code, 400)
  })
})
