/**
 * internal.apiserver.k8s.io StorageVersion (alpha) validation, table-driven. Expected texts
 * are the reference's (`pkg/apis/apiserverinternal/validation/validation.go`).
 */
import { type Json, kindTable, strategyOf, updateTable } from './groups-support.js'

const SUB =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
const server = (id: string, encoding = 'apps/v1', decodable = ['apps/v1'], served = ['apps/v1']) => ({ apiServerID: id, encodingVersion: encoding, decodableVersions: decodable, servedVersions: served })
const condition = (type: string) => ({ type, status: 'True', reason: 'CommonEncodingVersionSet', message: 'all servers agree' })

describe('validation/apiserverinternal: StorageVersion (alpha)', () => {
  const strategy = strategyOf('internal.apiserver.k8s.io', 'storageversions', 'v1alpha1')
  const sv = (): Json => ({ metadata: { name: 'apps.deployments' }, spec: {} })
  kindTable(strategy, sv, [
    ['a name without a dot', (o) => (o.metadata.name = 'deployments'), ['metadata.name: Invalid value: "deployments": name must be in the form of <group>.<resource>']],
    ['an upper-case group segment', (o) => (o.metadata.name = 'Apps.deployments'), [`metadata.name: Invalid value: "Apps.deployments": the group segment ${SUB}`]],
    ['an upper-case resource segment', (o) => (o.metadata.name = 'apps.Deployments'), [`metadata.name: Invalid value: "apps.Deployments": the resource segment ${DNS1035}`]],
    ['a resource segment starting with a digit', (o) => (o.metadata.name = 'apps.1deployments'), [`metadata.name: Invalid value: "apps.1deployments": the resource segment ${DNS1035}`]],
    ['an empty group segment', (o) => (o.metadata.name = '.deployments'), [`metadata.name: Invalid value: ".deployments": the group segment ${SUB}`]],
    ['both segments wrong', (o) => (o.metadata.name = 'a_b.c_d'), [`metadata.name: Invalid value: "a_b.c_d": the group segment ${SUB}`, `metadata.name: Invalid value: "a_b.c_d": the resource segment ${DNS1035}`]],
    ['a dotted group', (o) => (o.metadata.name = 'storage.k8s.io.csidrivers'), []],
  ], it)
  updateTable(strategy, sv, [
    ['a server twice', (o) => (o.status = { storageVersions: [server('kube-apiserver-1'), server('kube-apiserver-1')], commonEncodingVersion: 'apps/v1' }), ['status.storageVersions[1].apiServerID: Duplicate value: "kube-apiserver-1"']],
    ['a server ID that is not a DNS subdomain', (o) => (o.status = { storageVersions: [server('Server_1')], commonEncodingVersion: 'apps/v1' }), [`status.storageVersions[0].apiServerID: Invalid value: "Server_1": ${SUB}`]],
    ['an upper-case encoding version, not decodable', (o) => (o.status = { storageVersions: [server('s1', 'apps/V1')], commonEncodingVersion: 'apps/V1' }), [
      `status.storageVersions[0].encodingVersion: Invalid value: "apps/V1": version part: ${DNS1035}`,
      'status.storageVersions[0].decodableVersions: Invalid value: ["apps/v1"]: decodableVersions must include encodingVersion apps/V1',
    ]],
    ['an encoding version of three parts', (o) => (o.status = { storageVersions: [server('s1', 'a/b/c', ['a/b/c'], [])], commonEncodingVersion: 'a/b/c' }), [
      "status.storageVersions[0].encodingVersion: Invalid value: \"a/b/c\": an apiVersion is a DNS-1035 label, which must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyVersion')",
      "status.storageVersions[0].decodableVersions[0]: Invalid value: \"a/b/c\": an apiVersion is a DNS-1035 label, which must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyVersion')",
    ]],
    ['an empty group part', (o) => (o.status = { storageVersions: [server('s1', '/v1', ['/v1'], [])], commonEncodingVersion: '/v1' }), [
      'status.storageVersions[0].encodingVersion: Invalid value: "/v1": group part: must be non-empty',
      'status.storageVersions[0].decodableVersions[0]: Invalid value: "/v1": group part: must be non-empty',
    ]],
    ['decodable versions without the encoding version', (o) => (o.status = { storageVersions: [server('s1', 'apps/v1', ['apps/v2'], [])], commonEncodingVersion: 'apps/v1' }), [
      'status.storageVersions[0].decodableVersions: Invalid value: ["apps/v2"]: decodableVersions must include encodingVersion apps/v1',
    ]],
    ['a served version that is not decodable', (o) => (o.status = { storageVersions: [server('s1', 'apps/v1', ['apps/v1'], ['apps/v2'])], commonEncodingVersion: 'apps/v1' }), [
      'status.storageVersions[0].servedVersions[0]: Invalid value: "apps/v2": individual served version : apps/v2 must be included in decodableVersions : [apps/v1]',
    ]],
    ['no common encoding version though the servers agree', (o) => (o.status = { storageVersions: [server('s1'), server('s2')] }), ['status.commonEncodingVersion: Invalid value: null: the common encoding version is apps/v1']],
    ['a common encoding version the servers do not have', (o) => (o.status = { storageVersions: [server('s1')], commonEncodingVersion: 'apps/v2' }), ['status.commonEncodingVersion: Invalid value: "apps/v2": the actual common encoding version is apps/v1']],
    ['a common encoding version without servers', (o) => (o.status = { commonEncodingVersion: 'apps/v1' }), [
      'status.commonEncodingVersion: Invalid value: "apps/v1": should be nil if servers do not agree on the same encoding version, or if there is no server reporting the supported versions yet',
    ]],
    ['a condition without reason and message (the reference indexes status itself)', (o) => (o.status = { conditions: [{ type: 'AllEncodingVersionsEqual', status: 'True' }] }), [
      'status[0].reason: Required value: reason cannot be empty',
      'status[0].message: Required value: message cannot be empty',
    ]],
    ['a condition type twice', (o) => (o.status = { conditions: [condition('AllEncodingVersionsEqual'), condition('AllEncodingVersionsEqual')] }), [
      'status[1].type: Invalid value: "AllEncodingVersionsEqual": the type of the condition is not unique, it also appears in conditions[0]',
    ]],
    ['servers that agree, and a condition', (o) => (o.status = { storageVersions: [server('s1'), server('s2')], commonEncodingVersion: 'apps/v1', conditions: [condition('AllEncodingVersionsEqual')] }), []],
  ], it, 'status')
})
