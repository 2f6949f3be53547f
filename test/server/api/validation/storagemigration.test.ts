/**
 * storagemigration.k8s.io StorageVersionMigration (beta) validation, table-driven. Expected
 * texts are the reference's (`pkg/apis/storagemigration/validation/validation.go`).
 */
import { type Json, kindTable, strategyOf, updateTable } from './groups-support.js'

const SUB =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
const T = '2026-01-01T00:00:00Z'
const condition = (type: string, status: string) => ({ type, status, lastTransitionTime: T, reason: 'R', message: 'm' })

describe('validation/storagemigration: StorageVersionMigration (beta)', () => {
  const strategy = strategyOf('storagemigration.k8s.io', 'storageversionmigrations', 'v1beta1')
  const migration = (): Json => ({ metadata: { name: 'migrate-deployments' }, spec: { resource: { group: 'apps', resource: 'deployments' } } })
  kindTable(strategy, migration, [
    ['no resource', (o) => delete o.spec.resource.resource, ['spec.resource.resource: Required value: resource is required to be set']],
    ['an upper-case resource', (o) => (o.spec.resource.resource = 'Deployments'), [`spec.resource.resource: Invalid value: "Deployments": ${DNS1035}`]],
    ['a resource starting with a digit', (o) => (o.spec.resource.resource = '1pods'), [`spec.resource.resource: Invalid value: "1pods": ${DNS1035}`]],
    ['a resource with its group', (o) => (o.spec.resource.resource = 'deployments.apps'), [`spec.resource.resource: Invalid value: "deployments.apps": ${DNS1035}`]],
    ['a resource of 64 characters', (o) => (o.spec.resource.resource = 'r'.repeat(64)), [`spec.resource.resource: Invalid value: "${'r'.repeat(64)}": must be no more than 63 characters`]],
    ['an upper-case group', (o) => (o.spec.resource.group = 'Apps'), [`spec.resource.group: Invalid value: "Apps": ${SUB}`]],
    ['a group with an underscore', (o) => (o.spec.resource.group = 'apps_v1'), [`spec.resource.group: Invalid value: "apps_v1": ${SUB}`]],
    ['resource and group wrong', (o) => (o.spec.resource = { group: 'Apps', resource: 'Deployments' }), [`spec.resource.resource: Invalid value: "Deployments": ${DNS1035}`, `spec.resource.group: Invalid value: "Apps": ${SUB}`]],
    ['a name that is not a DNS subdomain', (o) => (o.metadata.name = 'Migrate'), [`metadata.name: Invalid value: "Migrate": ${SUB}`]],
    ['a name of 254 characters', (o) => (o.metadata.name = 'm'.repeat(254)), [`metadata.name: Invalid value: "${'m'.repeat(254)}": must be no more than 253 characters`]],
    ['a core resource', (o) => (o.spec.resource = { resource: 'secrets' }), []],
  ], it)
  updateTable(strategy, migration, [
    ['the spec is immutable (printed as the internal struct)', (o) => (o.spec.resource.resource = 'statefulsets'), ['spec: Invalid value: {"Resource":{"group":"apps","resource":"statefulsets"}}: field is immutable']],
    ['labels may change', (o) => (o.metadata.labels = { a: 'b' }), []],
  ], it)
  updateTable(strategy, migration, [
    ['succeeded and failed', (o) => (o.status = { conditions: [condition('Succeeded', 'True'), condition('Failed', 'True')] }), [
      `status.conditions: Invalid value: [{"type":"Succeeded","status":"True","lastTransitionTime":"${T}","reason":"R","message":"m"},{"type":"Failed","status":"True","lastTransitionTime":"${T}","reason":"R","message":"m"}]: Both success and failed conditions cannot be true at the same time`,
    ]],
    ['running after failing', (o) => (o.status = { conditions: [condition('Failed', 'True'), condition('Running', 'True')] }), [
      `status.conditions: Invalid value: [{"type":"Failed","status":"True","lastTransitionTime":"${T}","reason":"R","message":"m"},{"type":"Running","status":"True","lastTransitionTime":"${T}","reason":"R","message":"m"}]: Running condition cannot be true when failed condition is true`,
    ]],
    ['running, with the resource version reached', (o) => (o.status = { resourceVersion: '42', conditions: [condition('Running', 'True')] }), []],
  ], it, 'status')
})
