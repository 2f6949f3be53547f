/**
 * policy/v1 validation, table-driven. Expected texts are the reference's:
 * `pkg/apis/policy/validation/validation.go` with apps validation's ValidatePositiveIntOrPercent
 * and IsNotMoreThan100Percent, and ValidateLabelSelector.
 */
import assert from 'node:assert/strict'
import { type Json, kindTable, strategyOf, updateErrors } from './groups-support.js'

const strategy = strategyOf('policy', 'poddisruptionbudgets')
const pdb = (): Json => ({ spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } } })
const NEGATIVE = 'must be greater than or equal to 0'
const PERCENT = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"

describe('validation/policy: PodDisruptionBudget', () => {
  kindTable(strategy, pdb, [
    [
      'minAvailable and maxUnavailable both set',
      (o) => (o.spec.maxUnavailable = '10%'),
      ['spec: Invalid value: {"MinAvailable":1,"Selector":{"matchLabels":{"app":"web"}},"MaxUnavailable":"10%","UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set'],
    ],
    ['a negative minAvailable', (o) => (o.spec.minAvailable = -1), [`spec.minAvailable: Invalid value: -1: ${NEGATIVE}`]],
    ['minAvailable not a percent', (o) => (o.spec.minAvailable = 'half'), [`spec.minAvailable: Invalid value: "half": ${PERCENT}`]],
    ['minAvailable over 100%', (o) => (o.spec.minAvailable = '150%'), ['spec.minAvailable: Invalid value: "150%": must not be greater than 100%']],
    ['a negative maxUnavailable', (o) => Object.assign(o.spec, { minAvailable: undefined, maxUnavailable: -3 }), [`spec.maxUnavailable: Invalid value: -3: ${NEGATIVE}`]],
    ['maxUnavailable over 100%', (o) => Object.assign(o.spec, { minAvailable: undefined, maxUnavailable: '101%' }), ['spec.maxUnavailable: Invalid value: "101%": must not be greater than 100%']],
    ['an unknown selector operator', (o) => (o.spec.selector = { matchExpressions: [{ key: 'app', operator: 'Like' }] }), ['spec.selector.matchExpressions[0].operator: Invalid value: "Like": not a valid selector operator']],
    [
      'a selector label key',
      (o) => (o.spec.selector = { matchLabels: { '-bad': 'x' } }),
      [
        "spec.selector.matchLabels: Invalid value: \"-bad\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    ],
    ['an unknown unhealthyPodEvictionPolicy', (o) => (o.spec.unhealthyPodEvictionPolicy = 'Never'), ['spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"']],
    ['NotIn without values', (o) => (o.spec.selector = { matchExpressions: [{ key: 'app', operator: 'NotIn' }] }), ["spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"]],
  ], it)

  it('update: the spec may change (policy/v1)', () => {
    assert.deepEqual(updateErrors(strategy, pdb(), (o) => (o.spec.minAvailable = 2)), [])
  })
  it('status update: counts not negative', () => {
    assert.deepEqual(updateErrors(strategy, pdb(), (o) => (o.status = { disruptionsAllowed: -1, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }), 'status'), [`status.disruptionsAllowed: Invalid value: -1: ${NEGATIVE}`])
  })
})
