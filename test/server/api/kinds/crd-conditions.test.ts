import assert from 'node:assert/strict'
import { apiApprovalCondition, findCondition, reconcileStatus, setCondition } from '../../../../src/server/api/kinds/crd-conditions.js'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'

function crd(plural: string, kind: string, extra: { shortNames?: string[]; group?: string; annotations?: Record<string, string> } = {}): KubeObject {
  const group = extra.group ?? 'example.com'
  return {
    metadata: { name: `${plural}.${group}`, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec: { group, names: { plural, singular: plural.replace(/s$/, ''), kind, listKind: `${kind}List`, ...(extra.shortNames ? { shortNames: extra.shortNames } : {}) } },
    status: { storedVersions: ['v1'] },
  }
}

const summary = (o: KubeObject) => ((o.status as { conditions: Array<{ type: string; status: string; reason: string; message: string }> }).conditions ?? []).map((c) => [c.type, c.status, c.reason, c.message])

describe('controllers: CRD status conditions', () => {
  it('accepts fresh names and establishes the CRD', () => {
    const a = crd('widgets', 'Widget', { shortNames: ['wd'] })
    reconcileStatus(a, [])
    assert.deepEqual(summary(a), [
      ['NamesAccepted', 'True', 'NoConflicts', 'no conflicts found'],
      ['Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted'],
    ])
    assert.deepEqual((a.status as { acceptedNames: unknown }).acceptedNames, { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] })
  })

  it('refuses names another CRD of the group holds, with the reference reason and message', () => {
    const a = crd('widgets', 'Widget', { shortNames: ['wd'] })
    reconcileStatus(a, [])
    const kindClash = crd('gadgets', 'Widget')
    reconcileStatus(kindClash, [a])
    // ListKind is checked last and also clashes: the last conflict is the one reported.
    assert.deepEqual(summary(kindClash), [
      ['NamesAccepted', 'False', 'ListKindConflict', '"WidgetList" is already in use'],
      ['Established', 'False', 'NotAccepted', 'not all names are accepted'],
    ])
    assert.equal((kindClash.status as { acceptedNames: { kind?: string; plural?: string } }).acceptedNames.kind, undefined)
    assert.equal((kindClash.status as { acceptedNames: { plural?: string } }).acceptedNames.plural, 'gadgets')
    const shortClash = crd('things', 'Thing', { shortNames: ['wd', 'th'] })
    reconcileStatus(shortClash, [a])
    assert.deepEqual(summary(shortClash)[0], ['NamesAccepted', 'False', 'ShortNamesConflict', '"wd" is already in use'])
    // Another group may reuse every name.
    const elsewhere = crd('widgets', 'Widget', { shortNames: ['wd'], group: 'other.org' })
    reconcileStatus(elsewhere, [a])
    assert.equal(findCondition(elsewhere, 'Established')?.status, 'True')
  })

  it('keeps an established CRD established and its old names when a rename conflicts', () => {
    const a = crd('widgets', 'Widget')
    const b = crd('gadgets', 'Gadget')
    reconcileStatus(a, [])
    reconcileStatus(b, [a])
    ;(b.spec as { names: { kind: string } }).names.kind = 'Widget'
    reconcileStatus(b, [a])
    assert.equal(findCondition(b, 'NamesAccepted')?.reason, 'KindConflict')
    assert.equal(findCondition(b, 'Established')?.status, 'True')
    assert.equal((b.status as { acceptedNames: { kind: string } }).acceptedNames.kind, 'Gadget')
  })

  it('sets KubernetesAPIApprovalPolicyConformant for the protected groups only', () => {
    assert.equal(apiApprovalCondition(crd('widgets', 'Widget')), undefined)
    const cases: Array<[string | undefined, string, string, string]> = [
      [undefined, 'False', 'MissingAnnotation', 'protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111'],
      ['unapproved, experimental', 'False', 'UnapprovedAnnotation', 'not approved: "unapproved, experimental"'],
      ['https://github.com/kubernetes/kubernetes/pull/78458', 'True', 'ApprovedAnnotation', 'approved in https://github.com/kubernetes/kubernetes/pull/78458'],
      [
        'yes',
        'False',
        'InvalidAnnotation',
        'protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111',
      ],
    ]
    for (const [annotation, status, reason, message] of cases) {
      const o = crd('gateways', 'Gateway', { group: 'gateway.networking.k8s.io', ...(annotation ? { annotations: { 'api-approved.kubernetes.io': annotation } } : {}) })
      reconcileStatus(o, [])
      const c = findCondition(o, 'KubernetesAPIApprovalPolicyConformant')
      assert.deepEqual([c?.status, c?.reason, c?.message], [status, reason, message], String(annotation))
    }
  })

  it('moves lastTransitionTime only when the status changes', () => {
    const o = crd('widgets', 'Widget')
    setCondition(o, { type: 'Terminating', status: 'True', reason: 'A', message: 'a' })
    const c = findCondition(o, 'Terminating')!
    c.lastTransitionTime = '2020-01-01T00:00:00Z'
    setCondition(o, { type: 'Terminating', status: 'True', reason: 'B', message: 'b' })
    assert.equal(findCondition(o, 'Terminating')!.lastTransitionTime, '2020-01-01T00:00:00Z')
    assert.equal(findCondition(o, 'Terminating')!.reason, 'B')
    setCondition(o, { type: 'Terminating', status: 'False', reason: 'C', message: 'c' })
    assert.notEqual(findCondition(o, 'Terminating')!.lastTransitionTime, '2020-01-01T00:00:00Z')
  })
})
