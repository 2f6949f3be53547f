/**
 * flowcontrol.apiserver.k8s.io validation, table-driven: FlowSchema and
 * PriorityLevelConfiguration. Expected texts are the reference's
 * (`pkg/apis/flowcontrol/validation/validation.go` and its `validation_test.go`); a mandatory
 * object's changed spec is printed as the reference prints its internal struct (Go field
 * names, declaration order).
 */
import { type Json, kindTable, strategyOf, updateTable } from './groups-support.js'

const SUB =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
const LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
const VERBS = '"create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"'

describe('validation/flowcontrol: FlowSchema', () => {
  const strategy = strategyOf('flowcontrol.apiserver.k8s.io', 'flowschemas')
  const schema = (): Json => ({
    metadata: { name: 'mine' },
    spec: {
      priorityLevelConfiguration: { name: 'workload-low' },
      matchingPrecedence: 500,
      distinguisherMethod: { type: 'ByUser' },
      rules: [
        {
          subjects: [{ kind: 'Group', group: { name: 'developers' } }],
          resourceRules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], namespaces: ['default'] }],
          nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
        },
      ],
    },
  })
  const rule = (o: Json) => o.spec.rules[0]
  const catchAll = {
    priorityLevelConfiguration: { name: 'catch-all' },
    matchingPrecedence: 10000,
    distinguisherMethod: { type: 'ByUser' },
    rules: [
      {
        subjects: [{ kind: 'Group', group: { name: 'system:unauthenticated' } }, { kind: 'Group', group: { name: 'system:authenticated' } }],
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      },
    ],
  }
  kindTable(strategy, schema, [
    ['a negative matching precedence', (o) => (o.spec.matchingPrecedence = -1), ['spec.matchingPrecedence: Invalid value: -1: must be a positive value']],
    ['a matching precedence over 10000', (o) => (o.spec.matchingPrecedence = 10001), ['spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000']],
    ['matching precedence 1 for another schema than exempt', (o) => (o.spec.matchingPrecedence = 1), ["spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1"]],
    ['an unknown distinguisher method (the whole method is printed)', (o) => (o.spec.distinguisherMethod.type = 'ByIP'), ['spec.distinguisherMethod.type: Unsupported value: {"Type":"ByIP"}: supported values: "ByNamespace", "ByUser"']],
    ['no priority level', (o) => delete o.spec.priorityLevelConfiguration, ['spec.priorityLevelConfiguration.name: Required value: must reference a priority level']],
    ['a priority level name that is not a DNS subdomain', (o) => (o.spec.priorityLevelConfiguration.name = 'Workload'), [`spec.priorityLevelConfiguration.name: Invalid value: "Workload": ${SUB}`]],
    ['a rule without subjects', (o) => (rule(o).subjects = []), ['spec.rules[0].subjects: Required value: subjects must contain at least one value']],
    ['a rule without resource and non-resource rules', (o) => (delete rule(o).resourceRules, delete rule(o).nonResourceRules), ['spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty']],
    ['an unknown subject kind', (o) => (rule(o).subjects[0].kind = 'Team'), ['spec.rules[0].subjects[0].kind: Unsupported value: "Team": supported values: "Group", "ServiceAccount", "User"']],
    ['a Group subject without group', (o) => (rule(o).subjects[0] = { kind: 'Group' }), ["spec.rules[0].subjects[0].group: Required value: group is required when subject kind is 'Group'"]],
    ['a User subject with a group', (o) => (rule(o).subjects[0] = { kind: 'User', user: { name: 'alice' }, group: { name: 'g' } }), ["spec.rules[0].subjects[0].group: Forbidden: group is forbidden when subject kind is not 'Group'"]],
    ['a User subject without a name', (o) => (rule(o).subjects[0] = { kind: 'User', user: {} }), ['spec.rules[0].subjects[0].user.name: Required value']],
    ['a service account without namespace', (o) => (rule(o).subjects[0] = { kind: 'ServiceAccount', serviceAccount: { name: '*' } }), ['spec.rules[0].subjects[0].serviceAccount.namespace: Required value: must specify namespace for service account']],
    ['a service account name that is not a DNS subdomain', (o) => (rule(o).subjects[0] = { kind: 'ServiceAccount', serviceAccount: { namespace: 'ci', name: 'Builder' } }), [`spec.rules[0].subjects[0].serviceAccount.name: Invalid value: "Builder": ${SUB}`]],
    ['an unknown verb', (o) => (rule(o).resourceRules[0].verbs = ['get', 'fetch']), [`spec.rules[0].resourceRules[0].verbs: Unsupported value: ["get","fetch"]: supported values: ${VERBS}`]],
    ['* with another verb', (o) => (rule(o).nonResourceRules[0].verbs = ['*', 'get']), ["spec.rules[0].nonResourceRules[0].verbs: Invalid value: [\"*\",\"get\"]: if '*' is present, must not specify other verbs"]],
    ['a resource rule without API groups', (o) => (rule(o).resourceRules[0].apiGroups = []), ['spec.rules[0].resourceRules[0].apiGroups: Required value: resource rules must supply at least one api group']],
    ['* with another resource', (o) => (rule(o).resourceRules[0].resources = ['*', 'pods']), ["spec.rules[0].resourceRules[0].resources: Invalid value: [\"*\",\"pods\"]: if '*' is present, must not specify other resources"]],
    ['a namespaced rule without namespaces', (o) => (rule(o).resourceRules[0].namespaces = []), ['spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace']],
    ['a namespace that is not a DNS label', (o) => (rule(o).resourceRules[0].namespaces = ['Default']), [
      `spec.rules[0].resourceRules[0].namespaces[0]: Invalid value: "Default": each member of this list must be '*' or a DNS-1123 label; ${LABEL}`,
    ]],
    ['a non-resource URL without a leading slash', (o) => (rule(o).nonResourceRules[0].nonResourceURLs = ['healthz']), ['spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "healthz": must start with slash']],
    ['a non-resource URL with a wildcard inside', (o) => (rule(o).nonResourceRules[0].nonResourceURLs = ['/apis/*/v1']), ['spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "/apis/*/v1": wildcard can only do suffix matching']],
    ['a non-resource URL with a double slash', (o) => (rule(o).nonResourceRules[0].nonResourceURLs = ['/a//b']), ['spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "/a//b": must not contain double slash']],
    ['a changed mandatory catch-all schema', (o) => Object.assign(o, { metadata: { name: 'catch-all' }, spec: { ...structuredClone(catchAll), rules: [{ subjects: [{ kind: 'Group', group: { name: 'system:authenticated' } }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }] } }), [
      'spec: Invalid value: {"PriorityLevelConfiguration":{"Name":"catch-all"},"MatchingPrecedence":10000,"DistinguisherMethod":{"Type":"ByUser"},"Rules":[{"Subjects":[{"Kind":"Group","User":null,"Group":{"Name":"system:authenticated"},"ServiceAccount":null}],"ResourceRules":null,"NonResourceRules":[{"Verbs":["*"],"NonResourceURLs":["*"]}]}]}: spec of \'catch-all\' must equal the fixed value',
    ]],
    ['the mandatory catch-all schema as fixed', (o) => Object.assign(o, { metadata: { name: 'catch-all' }, spec: structuredClone(catchAll) }), []],
    ['a service account wildcard and a cluster-scoped rule', (o) => Object.assign(rule(o), { subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'ci', name: '*' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['nodes'], clusterScope: true }] }), []],
  ], it)
  updateTable(strategy, schema, [
    ['two conditions of one type', (o) => (o.status = { conditions: [{ type: 'Dangling', status: 'False' }, { type: 'Dangling', status: 'True' }] }), ['status.conditions[1].type: Duplicate value: "Dangling"']],
    ['a condition without type', (o) => (o.status = { conditions: [{ status: 'True' }] }), ['status.conditions[0].type: Required value: must not be empty']],
    ['a Dangling condition', (o) => (o.status = { conditions: [{ type: 'Dangling', status: 'False', reason: 'Found' }] }), []],
  ], it, 'status')
  updateTable(strategy, schema, [
    ['the spec is validated on update', (o) => (o.spec.matchingPrecedence = 20000), ['spec.matchingPrecedence: Invalid value: 20000: must not be greater than 10000']],
    ['the precedence may change', (o) => (o.spec.matchingPrecedence = 700), []],
  ], it)
})

describe('validation/flowcontrol: PriorityLevelConfiguration', () => {
  const strategy = strategyOf('flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations')
  const level = (): Json => ({ metadata: { name: 'team' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 10, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } } } } })
  const queuing = (o: Json) => o.spec.limited.limitResponse.queuing
  kindTable(strategy, level, [
    ['type Exempt for another level than exempt', (o) => (o.spec.type = 'Exempt'), [
      "spec.type: Invalid value: \"Exempt\": type must be 'Exempt' if and only if name is 'exempt'",
      'spec.limited: Forbidden: must be nil if the type is not Limited',
    ]],
    ['an unknown type', (o) => (o.spec.type = 'Unlimited'), ['spec.type: Unsupported value: "Unlimited": supported values: "Exempt", "Limited"']],
    ['Limited with exempt settings', (o) => (o.spec.exempt = { nominalConcurrencyShares: 1 }), ['spec.exempt: Forbidden: must be nil if the type is Limited']],
    ['negative nominal concurrency shares', (o) => (o.spec.limited.nominalConcurrencyShares = -1), ['spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer']],
    ['a lendable percent over 100', (o) => (o.spec.limited.lendablePercent = 101), ['spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive']],
    ['a negative borrowing limit', (o) => (o.spec.limited.borrowingLimitPercent = -1), ['spec.limited.borrowingLimitPercent: Invalid value: -1: if specified, must be a non-negative integer']],
    ['an unknown limit response', (o) => (o.spec.limited.limitResponse = { type: 'Drop' }), ['spec.limited.limitResponse.type: Unsupported value: "Drop": supported values: "Queue", "Reject"']],
    ['Reject with queuing', (o) => (o.spec.limited.limitResponse.type = 'Reject'), ['spec.limited.limitResponse.queuing: Forbidden: must be nil if limited.limitResponse.type is not Limited']],
    ['a negative queue length limit', (o) => (queuing(o).queueLengthLimit = -1), ['spec.limited.limitResponse.queuing.queueLengthLimit: Invalid value: -1: must be positive']],
    ['more than 10^7 queues (and the entropy then too high)', (o) => (queuing(o).queues = 10000001), [
      'spec.limited.limitResponse.queuing.queues: Invalid value: 10000001: must not be greater than 10000000',
      'spec.limited.limitResponse.queuing.handSize: Invalid value: 8: required entropy bits of deckSize 10000001 and handSize 8 should not be greater than 60',
    ]],
    ['a hand larger than the deck', (o) => (queuing(o).handSize = 65), ['spec.limited.limitResponse.queuing.handSize: Invalid value: 65: should not be greater than queues (64)']],
    ['a negative hand size', (o) => (queuing(o).handSize = -1), ['spec.limited.limitResponse.queuing.handSize: Invalid value: -1: must be positive']],
    ['128 queues and a hand of 9: 63 bits of entropy', (o) => Object.assign(queuing(o), { queues: 128, handSize: 9 }), [
      'spec.limited.limitResponse.queuing.handSize: Invalid value: 9: required entropy bits of deckSize 128 and handSize 9 should not be greater than 60',
    ]],
    ['a name that is not a DNS subdomain', (o) => (o.metadata.name = 'Team'), [`metadata.name: Invalid value: "Team": ${SUB}`]],
    ['a changed mandatory catch-all level', (o) => Object.assign(o, { metadata: { name: 'catch-all' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 10, lendablePercent: 0, limitResponse: { type: 'Reject' } } } }), [
      'spec: Invalid value: {"Type":"Limited","Limited":{"NominalConcurrencyShares":10,"LimitResponse":{"Type":"Reject","Queuing":null},"LendablePercent":0,"BorrowingLimitPercent":null},"Exempt":null}: spec of \'catch-all\' must equal the fixed value',
    ]],
    ['negative exempt shares on the exempt level', (o) => Object.assign(o, { metadata: { name: 'exempt' }, spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: -1 } } }), [
      'spec.exempt.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer',
    ]],
    ['the exempt level with its exempt settings changed', (o) => Object.assign(o, { metadata: { name: 'exempt' }, spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 5, lendablePercent: 10 } } }), []],
    ['128 queues and a hand of 8: 56 bits', (o) => Object.assign(queuing(o), { queues: 128, handSize: 8 }), []],
  ], it)
  updateTable(strategy, level, [
    ['a condition without type', (o) => (o.status = { conditions: [{ status: 'True' }] }), ['status.conditions[0].type: Required value: must not be empty']],
    ['two conditions of one type', (o) => (o.status = { conditions: [{ type: 'ConcurrencyShared', status: 'True' }, { type: 'ConcurrencyShared', status: 'False' }] }), ['status.conditions[1].type: Duplicate value: "ConcurrencyShared"']],
  ], it, 'status')
  updateTable(strategy, level, [
    ['the spec is validated on update', (o) => (queuing(o).handSize = 100), ['spec.limited.limitResponse.queuing.handSize: Invalid value: 100: should not be greater than queues (64)']],
    ['the shares may change', (o) => (o.spec.limited.nominalConcurrencyShares = 0), []],
  ], it)
})
