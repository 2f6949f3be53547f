/**
 * ConfigMaps and Secrets (pkg/apis/core/validation ValidateConfigMap, ValidateSecret and their
 * updates): keys, sizes, secret types' keys, immutability; strings from the reference source.
 */
import assert from 'node:assert/strict'
import { type Case, invalidCreates, strategyOf, updateAnswer, validCreates } from './support.js'

const KEY_MSG = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
const configmaps = () => strategyOf('', 'v1', 'configmaps')
const secrets = () => strategyOf('', 'v1', 'secrets')
const cm = (fields: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({ metadata: { name: 'cfg', ...metadata }, ...fields })
const secret = (fields: Record<string, unknown>) => ({ metadata: { name: 's' }, ...fields })
const b64 = (s: string) => Buffer.from(s).toString('base64')

const configMapCases: Case[] = [
  { name: 'a key with a space', object: cm({ data: { 'a b': '1' } }), message: `ConfigMap "cfg" is invalid: data[a b]: Invalid value: "a b": ${KEY_MSG}`, causes: [['data[a b]', 'FieldValueInvalid', `Invalid value: "a b": ${KEY_MSG}`]] },
  { name: "the key '..'", object: cm({ data: { '..': '1' } }), message: `ConfigMap "cfg" is invalid: data[..]: Invalid value: "..": must not be '..'` },
  { name: "a key starting with '..'", object: cm({ data: { '..a': '1' } }), message: `ConfigMap "cfg" is invalid: data[..a]: Invalid value: "..a": must not start with '..'` },
  { name: 'a key in data and binaryData', object: cm({ data: { k: '1' }, binaryData: { k: b64('1') } }), message: 'ConfigMap "cfg" is invalid: data[k]: Invalid value: "k": duplicate of key present in binaryData' },
  { name: 'a bad binaryData key', object: cm({ binaryData: { 'a/b': b64('1') } }), message: `ConfigMap "cfg" is invalid: binaryData[a/b]: Invalid value: "a/b": ${KEY_MSG}` },
  {
    name: 'more than 1 MiB (reported on the whole object, field "[]")',
    object: cm({ data: { big: 'x'.repeat(1024 * 1024 + 1) } }),
    message: 'ConfigMap "cfg" is invalid: []: Too long: may not be more than 1048576 bytes',
    causes: [['[]', 'FieldValueTooLong', 'Too long: may not be more than 1048576 bytes']],
  },
  {
    name: 'a name that is not a DNS subdomain',
    object: cm({}, { name: 'Cfg' }),
    message:
      "ConfigMap \"Cfg\" is invalid: metadata.name: Invalid value: \"Cfg\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  },
  {
    name: 'a finalizer that is neither standard nor qualified',
    object: cm({}, { finalizers: ['custom'] }),
    message: 'ConfigMap "cfg" is invalid: metadata.finalizers[0]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
  },
  {
    name: 'an owner reference without uid',
    object: cm({}, { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: '' }] }),
    message: 'ConfigMap "cfg" is invalid: metadata.ownerReferences.uid: Invalid value: "": must not be empty',
  },
  {
    name: 'annotations over 256 KiB',
    object: cm({}, { annotations: { a: 'x'.repeat(256 * 1024) } }),
    message: 'ConfigMap "cfg" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes',
  },
  {
    name: 'an annotation key with two slashes',
    object: cm({}, { annotations: { 'a/b/c': 'x' } }),
    message:
      "ConfigMap \"cfg\" is invalid: metadata.annotations: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
  },
  {
    name: 'a managedFields entry with an unknown operation',
    object: cm({}, { managedFields: [{ manager: 'm', operation: 'Patch', fieldsType: 'FieldsV1' }] }),
    message: 'ConfigMap "cfg" is invalid: metadata.managedFields[0].operation: Invalid value: "Patch": must be `Apply` or `Update`',
  },
  {
    name: 'two controller owner references (the list printed as JSON)',
    object: cm({}, { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'a', uid: '1', controller: true }, { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'b', uid: '2', controller: true }] }),
    message:
      'ConfigMap "cfg" is invalid: metadata.ownerReferences: Invalid value: [{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"a","uid":"1","controller":true},{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"b","uid":"2","controller":true}]: Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/a and ReplicaSet/b',
  },
]

const secretCases: Case[] = [
  { name: 'a TLS secret without its keys', object: secret({ type: 'kubernetes.io/tls', data: {} }), message: 'Secret "s" is invalid: [data[tls.crt]: Required value, data[tls.key]: Required value]' },
  { name: 'a docker config JSON secret without its key', object: secret({ type: 'kubernetes.io/dockerconfigjson' }), message: 'Secret "s" is invalid: data[.dockerconfigjson]: Required value' },
  {
    name: 'a docker config JSON that is not JSON',
    object: secret({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{') } }),
    message: 'Secret "s" is invalid: data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": unexpected end of JSON input',
  },
  { name: 'a basic-auth secret without username and password', object: secret({ type: 'kubernetes.io/basic-auth' }), message: 'Secret "s" is invalid: [data[username]: Required value, data[password]: Required value]' },
  { name: 'an ssh-auth secret without its key', object: secret({ type: 'kubernetes.io/ssh-auth' }), message: 'Secret "s" is invalid: data[ssh-privatekey]: Required value' },
  {
    name: 'a service account token secret without the account name',
    object: secret({ type: 'kubernetes.io/service-account-token' }),
    message: 'Secret "s" is invalid: metadata.annotations[kubernetes.io/service-account.name]: Required value',
  },
  { name: 'a bad data key', object: secret({ data: { 'a b': b64('1') } }), message: `Secret "s" is invalid: data[a b]: Invalid value: "a b": ${KEY_MSG}` },
  { name: 'a bad stringData key (folded into data first)', object: secret({ stringData: { 'a b': '1' } }), message: `Secret "s" is invalid: data[a b]: Invalid value: "a b": ${KEY_MSG}` },
  { name: 'more than 1 MiB of data', object: secret({ data: { big: b64('x'.repeat(1024 * 1024 + 1)) } }), message: 'Secret "s" is invalid: data: Too long: may not be more than 1048576 bytes' },
  {
    name: 'a docker config JSON that is a list',
    object: secret({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('[]') } }),
    message: 'Secret "s" is invalid: data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}',
  },
]

describe('validation: core/v1 ConfigMap (ValidateConfigMap)', () => {
  invalidCreates(configmaps, configMapCases)
  validCreates(configmaps, [['keys of every allowed character', cm({ data: { 'a.b-c_D9': 'v' }, binaryData: { bin: b64('x') } }, { labels: { app: 'web' }, annotations: { 'example.com/Note': 'x' }, finalizers: ['example.com/keep'] })]])
  const immutable = cm({ data: { a: '1' }, immutable: true })
  it('update: the data of an immutable config map is fixed', () => {
    const got = updateAnswer(configmaps(), immutable, (o) => ((o as unknown as { data: unknown }).data = { a: '2' }))
    assert.equal(got?.message, 'ConfigMap "cfg" is invalid: data: Forbidden: field is immutable when `immutable` is set')
  })
  it('update: immutable cannot be turned off', () => {
    const got = updateAnswer(configmaps(), immutable, (o) => ((o as unknown as { immutable: boolean }).immutable = false))
    assert.equal(got?.message, 'ConfigMap "cfg" is invalid: immutable: Forbidden: field is immutable when `immutable` is set')
  })
  it('update: the uid and creation time are kept; a changed name is refused', () => {
    const got = updateAnswer(configmaps(), cm({ data: { a: '1' } }), (o) => (o.metadata.name = 'other'))
    assert.equal(got?.message, 'ConfigMap "other" is invalid: metadata.name: Invalid value: "other": field is immutable')
  })
})

describe('validation: core/v1 Secret (ValidateSecret)', () => {
  invalidCreates(secrets, secretCases)
  validCreates(secrets, [
    ['an Opaque secret', secret({ stringData: { password: 'x' } })],
    ['a TLS secret', secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c'), 'tls.key': b64('k') } })],
    ['a docker config JSON secret', secret({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{"auths":{}}') } })],
  ])
  it('update: the type is immutable', () => {
    const got = updateAnswer(secrets(), secret({ data: {} }), (o) => ((o as unknown as { type: string }).type = 'example.com/custom'))
    assert.equal(got?.message, 'Secret "s" is invalid: type: Invalid value: "example.com/custom": field is immutable')
  })
  it('update: the data of an immutable secret is fixed', () => {
    const got = updateAnswer(secrets(), secret({ data: { a: b64('1') }, immutable: true }), (o) => ((o as unknown as { data: unknown }).data = { a: b64('2') }))
    assert.equal(got?.message, 'Secret "s" is invalid: data: Forbidden: field is immutable when `immutable` is set')
  })
})
