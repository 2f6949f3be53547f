/**
 * The apps group's validation, table-driven per kind. Expected texts are the reference's:
 * the messages of `pkg/apis/apps/validation/validation.go` and of the apimachinery helpers it
 * calls (ValidateNonnegativeField, IsValidPercent, ValidateLabelSelector, field.* bodies), and
 * the selector rule of `pkg/registry/apps/deployment/strategy.go` (ValidateImmutableField).
 */
import assert from 'node:assert/strict'
import { type Json, createErrors, created, strategyOf, updateErrors } from './groups-support.js'
import { recordCases } from './case-registry.js'

const NEGATIVE = 'must be greater than or equal to 0'
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
const QUALIFIED =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
const PERCENT = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"

const template = (labels: Json = { app: 'web' }, spec: Json = {}): Json => ({ metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } })

type Case = [string, (o: Json) => void, string[]]

function table(group: string, resource: string, base: () => Json, cases: Case[]): void {
  const strategy = strategyOf(group, resource)
  recordCases(strategy, cases.filter(([, , expected]) => expected.length > 0).length, 1 + cases.filter(([, , expected]) => expected.length === 0).length)
  it('accepts the valid object unchanged (apart from the defaults)', () => {
    assert.deepEqual(createErrors(strategy, base()), [])
    const once = created(strategy, base())
    assert.deepEqual(created(strategy, once), once)
  })
  for (const [name, mutate, expected] of cases) {
    it(name, () => {
      const o = base()
      mutate(o)
      assert.deepEqual(createErrors(strategy, o), expected)
    })
  }
}

const deployment = (): Json => ({ spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: template() } })

describe('validation/apps: Deployment', () => {
  table('apps', 'deployments', deployment, [
    ['negative replicas', (o) => (o.spec.replicas = -1), [`spec.replicas: Invalid value: -1: ${NEGATIVE}`]],
    [
      'no selector: required, and the nil selector matches no template',
      (o) => delete o.spec.selector,
      ['spec.selector: Required value', 'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`'],
    ],
    ['an empty selector', (o) => (o.spec.selector = {}), ['spec.selector: Invalid value: {}: empty selector is invalid for deployment']],
    ['a selector that does not match the template', (o) => (o.spec.template.metadata.labels = { app: 'other' }), ['spec.template.metadata.labels: Invalid value: {"app":"other"}: `selector` does not match template `labels`']],
    [
      'an unknown selector operator',
      (o) => (o.spec.selector = { matchExpressions: [{ key: 'app', operator: 'Foo', values: ['web'] }] }),
      ['spec.selector.matchExpressions[0].operator: Invalid value: "Foo": not a valid selector operator', 'spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"Foo","values":["web"]}]}: invalid label selector'],
    ],
    ['an unknown strategy type', (o) => (o.spec.strategy = { type: 'Foo' }), ['spec.strategy: Unsupported value: {"Type":"Foo","RollingUpdate":null}: supported values: "Recreate", "RollingUpdate"']],
    ['Recreate with a rolling update', (o) => (o.spec.strategy = { type: 'Recreate', rollingUpdate: { maxSurge: 1 } }), ["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"]],
    ['maxUnavailable and maxSurge both 0', (o) => (o.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } }), ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0']],
    ['maxUnavailable over 100%', (o) => (o.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '110%' } }), ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "110%": must not be greater than 100%']],
    ['maxSurge not a percent', (o) => (o.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 'abc' } }), [`spec.strategy.rollingUpdate.maxSurge: Invalid value: "abc": ${PERCENT}`]],
    ['negative maxSurge', (o) => (o.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: -1 } }), [`spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: ${NEGATIVE}`]],
    ['negative minReadySeconds', (o) => (o.spec.minReadySeconds = -1), [`spec.minReadySeconds: Invalid value: -1: ${NEGATIVE}`]],
    ['negative revisionHistoryLimit', (o) => (o.spec.revisionHistoryLimit = -1), [`spec.revisionHistoryLimit: Invalid value: -1: ${NEGATIVE}`]],
    ['progressDeadlineSeconds not above minReadySeconds', (o) => Object.assign(o.spec, { minReadySeconds: 10, progressDeadlineSeconds: 10 }), ['spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds']],
    ['minReadySeconds above the defaulted progressDeadlineSeconds', (o) => (o.spec.minReadySeconds = 700), ['spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds']],
    ['a template restartPolicy other than Always', (o) => (o.spec.template.spec.restartPolicy = 'Never'), ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"']],
    ['a template activeDeadlineSeconds', (o) => (o.spec.template.spec.activeDeadlineSeconds = 5), ['spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported']],
    ['an In requirement without values', (o) => (o.spec.selector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In' }] }), [
      "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      'spec.selector: Invalid value: {"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In"}]}: invalid label selector',
    ]],
  ])

  const strategy = strategyOf('apps', 'deployments')
  it('update: the selector is immutable in apps/v1', () => {
    assert.deepEqual(
      updateErrors(strategy, deployment(), (o) => {
        o.spec.selector = { matchLabels: { app: 'web', tier: 'x' } }
        o.spec.template.metadata.labels = { app: 'web', tier: 'x' }
      }),
      ['spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"x"}}: field is immutable'],
    )
  })
  it('update: replicas and the template may change; the new spec is validated', () => {
    assert.deepEqual(updateErrors(strategy, deployment(), (o) => (o.spec.replicas = 5)), [])
    assert.deepEqual(updateErrors(strategy, deployment(), (o) => (o.spec.replicas = -1)), [`spec.replicas: Invalid value: -1: ${NEGATIVE}`])
  })
  it('status update: counts not negative, not above status.replicas, collisionCount not decremented', () => {
    assert.deepEqual(
      updateErrors(strategy, deployment(), (o) => (o.status = { replicas: 1, readyReplicas: 2, availableReplicas: -1 }), 'status'),
      [`status.availableReplicas: Invalid value: -1: ${NEGATIVE}`, 'status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas'],
    )
  })
})

const replicaSet = (): Json => ({ spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: template() } })

describe('validation/apps: ReplicaSet', () => {
  table('apps', 'replicasets', replicaSet, [
    ['negative replicas', (o) => (o.spec.replicas = -3), [`spec.replicas: Invalid value: -3: ${NEGATIVE}`]],
    ['negative minReadySeconds', (o) => (o.spec.minReadySeconds = -1), [`spec.minReadySeconds: Invalid value: -1: ${NEGATIVE}`]],
    ['no selector', (o) => delete o.spec.selector, ['spec.selector: Required value', 'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`']],
    ['an empty selector (the reference says deployment)', (o) => (o.spec.selector = {}), ['spec.selector: Invalid value: {}: empty selector is invalid for deployment']],
    ['a selector that does not match', (o) => (o.spec.selector = { matchLabels: { app: 'db' } }), ['spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`']],
    ['a NotIn expression excluding the template', (o) => (o.spec.selector = { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }] }), ['spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`']],
    ['Exists with values', (o) => (o.spec.selector = { matchExpressions: [{ key: 'app', operator: 'Exists', values: ['x'] }] }), [
      "spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"Exists","values":["x"]}]}: invalid label selector',
    ]],
    ['a bad selector label value', (o) => (o.spec.selector = { matchLabels: { app: 'a b' } }), [
      "spec.selector.matchLabels: Invalid value: \"a b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      'spec.selector: Invalid value: {"matchLabels":{"app":"a b"}}: invalid label selector',
    ]],
    ['restartPolicy OnFailure', (o) => (o.spec.template.spec.restartPolicy = 'OnFailure'), ['spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"']],
    ['activeDeadlineSeconds', (o) => (o.spec.template.spec.activeDeadlineSeconds = 1), ['spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported']],
  ])
  it('update: the selector is immutable', () => {
    assert.deepEqual(
      updateErrors(strategyOf('apps', 'replicasets'), replicaSet(), (o) => (o.spec.selector = { matchExpressions: [{ key: 'app', operator: 'Exists' }] })),
      ['spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"Exists"}]}: field is immutable'],
    )
  })
})

const statefulSet = (): Json => ({ spec: { serviceName: 'web', replicas: 1, selector: { matchLabels: { app: 'web' } }, template: template() } })

describe('validation/apps: StatefulSet', () => {
  table('apps', 'statefulsets', statefulSet, [
    ['an unknown podManagementPolicy', (o) => (o.spec.podManagementPolicy = 'Random'), ['spec.podManagementPolicy: Invalid value: "Random": must be \'OrderedReady\' or \'Parallel\'']],
    ['an unknown updateStrategy', (o) => (o.spec.updateStrategy = { type: 'Sometimes' }), ['spec.updateStrategy: Invalid value: {"Type":"Sometimes","RollingUpdate":null}: must be \'RollingUpdate\' or \'OnDelete\'']],
    ['OnDelete with a rolling update', (o) => (o.spec.updateStrategy = { type: 'OnDelete', rollingUpdate: { partition: 1 } }), ['spec.updateStrategy.rollingUpdate: Invalid value: {"Partition":1,"MaxUnavailable":null}: only allowed for updateStrategy \'RollingUpdate\'']],
    ['a negative partition', (o) => (o.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: -1 } }), [`spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: ${NEGATIVE}`]],
    ['maxUnavailable 0', (o) => (o.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: 0 } }), ['spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: cannot be 0']],
    ['a retention policy value', (o) => (o.spec.persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Keep', whenScaled: 'Delete' }), ['spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: "Retain", "Delete"']],
    ['negative replicas', (o) => (o.spec.replicas = -1), [`spec.replicas: Invalid value: -1: ${NEGATIVE}`]],
    ['a negative ordinals start', (o) => (o.spec.ordinals = { start: -1 }), [`spec.ordinals.start: Invalid value: -1: ${NEGATIVE}`]],
    ['an empty selector', (o) => (o.spec.selector = {}), ['spec.selector: Invalid value: {}: empty selector is invalid for statefulset']],
    ['a selector that does not match', (o) => (o.spec.template.metadata.labels = { app: 'x' }), ['spec.template.metadata.labels: Invalid value: {"app":"x"}: `selector` does not match template `labels`']],
    ['restartPolicy Never', (o) => (o.spec.template.spec.restartPolicy = 'Never'), ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"']],
    ['activeDeadlineSeconds', (o) => (o.spec.template.spec.activeDeadlineSeconds = 3), ['spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in StatefulSet is not Supported']],
    // ValidatePodTemplateSpecForStatefulSet leaves the pod spec out: a mount of a claim template's volume is valid.
    [
      'a volumeMount naming a volumeClaimTemplate',
      (o) => {
        o.spec.template.spec.containers[0].volumeMounts = [{ name: 'data', mountPath: '/data' }]
        o.spec.volumeClaimTemplates = [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }]
      },
      [],
    ],
    [
      'a name that is not a DNS label',
      (o) => (o.metadata = { name: 'a.b' }),
      // IsDNS1123Label: a valid subdomain that is not a label has dots.
      ['metadata.name: Invalid value: "a.b": must not contain dots'],
    ],
  ])
  it('update: only replicas, ordinals, template, updateStrategy, retention and minReadySeconds may change', () => {
    const strategy = strategyOf('apps', 'statefulsets')
    assert.deepEqual(updateErrors(strategy, statefulSet(), (o) => (o.spec.replicas = 3)), [])
    assert.deepEqual(updateErrors(strategy, statefulSet(), (o) => (o.spec.serviceName = 'other')), [
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ])
  })
})

const daemonSet = (): Json => ({ spec: { selector: { matchLabels: { app: 'web' } }, template: template() } })

describe('validation/apps: DaemonSet', () => {
  table('apps', 'daemonsets', daemonSet, [
    ['no selector: the template does not match', (o) => delete o.spec.selector, ['spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`']],
    ['an empty selector', (o) => (o.spec.selector = {}), ['spec.selector: Invalid value: {}: empty selector is invalid for daemonset']],
    ['a mismatching selector', (o) => (o.spec.selector = { matchLabels: { app: 'x' } }), ['spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`']],
    ['restartPolicy Never', (o) => (o.spec.template.spec.restartPolicy = 'Never'), ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"']],
    ['activeDeadlineSeconds', (o) => (o.spec.template.spec.activeDeadlineSeconds = 3), ['spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in DaemonSet is not Supported']],
    ['negative minReadySeconds', (o) => (o.spec.minReadySeconds = -2), [`spec.minReadySeconds: Invalid value: -2: ${NEGATIVE}`]],
    ['negative templateGeneration', (o) => (o.spec.templateGeneration = -1), [`spec.templateGeneration: Invalid value: -1: ${NEGATIVE}`]],
    ['an unknown update strategy', (o) => (o.spec.updateStrategy = { type: 'Foo' }), ['spec.updateStrategy: Unsupported value: {"Type":"Foo","RollingUpdate":null}: supported values: "RollingUpdate", "OnDelete"']],
    ['maxUnavailable and maxSurge both 0', (o) => (o.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } }), ['spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0']],
    ['maxSurge with maxUnavailable', (o) => (o.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: '10%' } }), ['spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "10%": may not be set when maxUnavailable is non-zero']],
    ['maxSurge over 100%', (o) => (o.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: '200%' } }), ['spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "200%": must not be greater than 100%']],
    ['negative revisionHistoryLimit', (o) => (o.spec.revisionHistoryLimit = -1), [`spec.revisionHistoryLimit: Invalid value: -1: ${NEGATIVE}`]],
  ])
  it('update: the selector is immutable', () => {
    assert.deepEqual(
      updateErrors(strategyOf('apps', 'daemonsets'), daemonSet(), (o) => {
        o.spec.selector = { matchLabels: { app: 'web', b: 'c' } }
        o.spec.template.metadata.labels.b = 'c'
      }),
      ['spec.selector: Invalid value: {"matchLabels":{"app":"web","b":"c"}}: field is immutable'],
    )
  })
})

const revision = (): Json => ({ data: { spec: {} }, revision: 1 })

describe('validation/apps: ControllerRevision', () => {
  table('apps', 'controllerrevisions', revision, [
    ['no data', (o) => delete o.data, ['data: Required value: data is mandatory']],
    ['a negative revision', (o) => (o.revision = -1), [`revision: Invalid value: -1: ${NEGATIVE}`]],
    ['both', (o) => Object.assign(o, { data: null, revision: -5 }), ['data: Required value: data is mandatory', `revision: Invalid value: -5: ${NEGATIVE}`]],
    ['a name that is not a DNS subdomain', (o) => (o.metadata = { name: 'Web_1' }), [`metadata.name: Invalid value: "Web_1": ${SUBDOMAIN}`]],
    ['a name of 254 characters', (o) => (o.metadata = { name: 'r'.repeat(254) }), [`metadata.name: Invalid value: "${'r'.repeat(254)}": must be no more than 253 characters`]],
    ['a label value with a space', (o) => (o.metadata = { name: 'web-1', labels: { app: 'a b' } }), [`metadata.labels: Invalid value: "a b": ${LABEL_VALUE}`]],
    ['a label key with two slashes', (o) => (o.metadata = { name: 'web-1', labels: { 'a/b/c': 'x' } }), [
      "metadata.labels: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]],
    ['an annotation key that is not a qualified name', (o) => (o.metadata = { name: 'web-1', annotations: { 'bad key': 'x' } }), [`metadata.annotations: Invalid value: "bad key": ${QUALIFIED}`]],
    ['a finalizer that is not a qualified name (apimachinery on the list, the core group on the item)', (o) => (o.metadata = { name: 'web-1', finalizers: ['bad finalizer'] }), [
      `metadata.finalizers: Invalid value: "bad finalizer": ${QUALIFIED}`,
      'metadata.finalizers[0]: Invalid value: "bad finalizer": name is neither a standard finalizer name nor is it fully qualified',
    ]],
    ['a negative revision and no data, twice wrong metadata', (o) => Object.assign(o, { metadata: { name: 'Web_1' }, data: null, revision: -1 }), [
      `metadata.name: Invalid value: "Web_1": ${SUBDOMAIN}`,
      'data: Required value: data is mandatory',
      `revision: Invalid value: -1: ${NEGATIVE}`,
    ]],
    ['the largest revision', (o) => (o.revision = Number.MAX_SAFE_INTEGER), []],
  ])
  it('update: data is immutable', () => {
    assert.deepEqual(updateErrors(strategyOf('apps', 'controllerrevisions'), revision(), (o) => (o.data = { spec: { a: 1 } })), ['data: Invalid value: {"spec":{"a":1}}: field is immutable'])
  })
})
