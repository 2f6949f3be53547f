/**
 * PodGroup and Workload validation (scheduling.k8s.io/v1alpha2), table-driven. Expected texts
 * are the reference's `pkg/apis/scheduling/validation/validation.go` (ValidatePodGroup,
 * ValidatePodGroupUpdate, ValidateWorkload, ValidateWorkloadUpdate; WorkloadMaxPodGroupTemplates
 * is 8), core validation's ValidatePositiveField and the DNS-1123 label and path segment
 * messages of apimachinery.
 */
import { type Json, kindTable, strategyOf, updateTable } from './groups-support.js'

const GROUP = 'scheduling.k8s.io'
const LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

describe('validation/scheduling: PodGroup', () => {
  const strategy = strategyOf(GROUP, 'podgroups', 'v1alpha2')
  const group = (): Json => ({
    metadata: { name: 'trainer-0' },
    spec: { podGroupTemplateRef: { workloadName: 'trainer', podGroupTemplateName: 'workers' }, schedulingPolicy: { gang: { minCount: 4 } } },
  })
  kindTable(strategy, group, [
    ['no scheduling policy', (o) => delete o.spec.schedulingPolicy, ['spec.schedulingPolicy: Invalid value: "": must specify one of: `basic`, `gang`']],
    ['both basic and gang', (o) => (o.spec.schedulingPolicy.basic = {}), ['spec.schedulingPolicy: Invalid value: "{`basic`, `gang`}": exactly one of `basic`, `gang` is required, but multiple fields are set']],
    ['a gang without minCount', (o) => (o.spec.schedulingPolicy.gang = {}), ['spec.schedulingPolicy.gang.minCount: Required value']],
    ['a negative minCount', (o) => (o.spec.schedulingPolicy.gang.minCount = -1), ['spec.schedulingPolicy.gang.minCount: Invalid value: -1: must be greater than zero']],
    ['a reference without workload name', (o) => (o.spec.podGroupTemplateRef.workloadName = ''), ['spec.podGroupTemplateRef.workloadName: Required value']],
    ['a reference without template name', (o) => delete o.spec.podGroupTemplateRef.podGroupTemplateName, ['spec.podGroupTemplateRef.podGroupTemplateName: Required value']],
    // IsDNS1123Label names a dot on its own.
    ['a workload name with a dot', (o) => (o.spec.podGroupTemplateRef.workloadName = 'a.b'), ['spec.podGroupTemplateRef.workloadName: Invalid value: "a.b": must not contain dots']],
    ['a template name in capitals', (o) => (o.spec.podGroupTemplateRef.podGroupTemplateName = 'Workers'), [`spec.podGroupTemplateRef.podGroupTemplateName: Invalid value: "Workers": ${LABEL}`]],
    ['a name that is not a label', (o) => (o.metadata.name = 'Trainer'), [`metadata.name: Invalid value: "Trainer": ${LABEL}`]],
    ['an empty reference and no policy', (o) => (o.spec = { podGroupTemplateRef: {} }), [
      'spec.podGroupTemplateRef.workloadName: Required value',
      'spec.podGroupTemplateRef.podGroupTemplateName: Required value',
      'spec.schedulingPolicy: Invalid value: "": must specify one of: `basic`, `gang`',
    ]],
    ['a basic policy without reference', (o) => (o.spec = { schedulingPolicy: { basic: {} } }), []],
  ], it)
  updateTable(strategy, group, [
    ['the policy is immutable', (o) => (o.spec.schedulingPolicy = { basic: {} }), ['spec.schedulingPolicy: Invalid value: {"Basic":{},"Gang":null}: field is immutable']],
    ['the reference is immutable', (o) => (o.spec.podGroupTemplateRef.workloadName = 'other'), ['spec.podGroupTemplateRef: Invalid value: {"WorkloadName":"other","PodGroupTemplateName":"workers"}: field is immutable']],
    ['labels may change', (o) => (o.metadata.labels = { a: 'b' }), []],
  ], it)
})

describe('validation/scheduling: Workload', () => {
  const strategy = strategyOf(GROUP, 'workloads', 'v1alpha2')
  const template = (name: string) => ({ name, schedulingPolicy: { gang: { minCount: 2 } } })
  const workload = (): Json => ({
    metadata: { name: 'trainer' },
    spec: { controllerRef: { apiGroup: 'batch', kind: 'Job', name: 'trainer' }, podGroupTemplates: [template('workers')] },
  })
  kindTable(strategy, workload, [
    ['no templates', (o) => (o.spec.podGroupTemplates = []), ['spec.podGroupTemplates: Required value: must have at least one item']],
    ['nine templates', (o) => (o.spec.podGroupTemplates = Array.from({ length: 9 }, (_, i) => template(`t${i}`))), ['spec.podGroupTemplates: Too many: 9: must have at most 8 items']],
    ['a template without name', (o) => (o.spec.podGroupTemplates[0].name = ''), ['spec.podGroupTemplates[0].name: Required value']],
    ['a template name that is not a label', (o) => (o.spec.podGroupTemplates[0].name = 'a_b'), [`spec.podGroupTemplates[0].name: Invalid value: "a_b": ${LABEL}`]],
    ['a template name twice', (o) => o.spec.podGroupTemplates.push(template('workers')), ['spec.podGroupTemplates[1]: Duplicate value: "workers"']],
    ['a template without policy', (o) => delete o.spec.podGroupTemplates[0].schedulingPolicy, ['spec.podGroupTemplates[0].schedulingPolicy: Invalid value: "": must specify one of: `basic`, `gang`']],
    ['a template with a zero minCount', (o) => (o.spec.podGroupTemplates[0].schedulingPolicy.gang.minCount = 0), ['spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: Required value']],
    ['a controller reference without kind', (o) => delete o.spec.controllerRef.kind, ['spec.controllerRef.kind: Required value']],
    ['a controller reference name with a slash', (o) => (o.spec.controllerRef.name = 'a/b'), ["spec.controllerRef.name: Invalid value: \"a/b\": may not contain '/'"]],
    ['a controller reference group that is not a subdomain', (o) => (o.spec.controllerRef.apiGroup = 'Batch'), [`spec.controllerRef.apiGroup: Invalid value: "Batch": ${SUBDOMAIN}`]],
    ['a controller reference without name', (o) => (o.spec.controllerRef.name = ''), ['spec.controllerRef.name: Required value']],
    ['a core controller and a basic template', (o) => Object.assign(o.spec, { controllerRef: { kind: 'Pod', name: 'p' }, podGroupTemplates: [{ name: 'one', schedulingPolicy: { basic: {} } }] }), []],
  ], it)
  updateTable(strategy, workload, [
    ['the templates are immutable', (o) => (o.spec.podGroupTemplates[0].schedulingPolicy.gang.minCount = 3), [
      'spec.podGroupTemplates: Invalid value: [{"Name":"workers","SchedulingPolicy":{"Basic":null,"Gang":{"MinCount":3}}}]: field is immutable',
    ]],
    ['the controller reference is immutable once set', (o) => (o.spec.controllerRef.name = 'other'), ['spec.controllerRef: Invalid value: {"APIGroup":"batch","Kind":"Job","Name":"other"}: field is immutable']],
    ['labels may change', (o) => (o.metadata.labels = { a: 'b' }), []],
  ], it)
})
