/**
 * resource.k8s.io/v1 validation, table-driven: DeviceClass, ResourceClaim,
 * ResourceClaimTemplate and ResourceSlice. Expected texts are the reference's
 * (`pkg/apis/resource/validation/validation.go` and its `validation_*_test.go`; cel-go's
 * `undeclared reference` issue for a selector naming an unknown variable).
 */
import assert from 'node:assert/strict'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import { validateResourceClaimStatusUpdate } from '../../../../src/server/api/validation/resource.js'
import { type Case, type Json, createErrors, created, kindTable, strategyOf, updateErrors, updateTable } from './groups-support.js'

const SUB =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
const DNS_LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
const REQUEST_REF = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
const NODE_SELECTION = 'exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required'

describe('validation/resource: DeviceClass', () => {
  const strategy = strategyOf('resource.k8s.io', 'deviceclasses')
  const cls = (): Json => ({ metadata: { name: 'gpu.example.com' }, spec: { selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }] } })
  kindTable(strategy, cls, [
    ['a selector without cel', (o) => (o.spec.selectors = [{}]), ['spec.selectors[0].cel: Required value']],
    ['a selector naming an unknown variable', (o) => (o.spec.selectors[0].cel.expression = 'gpu.memory > 1'), [
      "spec.selectors[0].cel.expression: Invalid value: \"gpu.memory > 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'gpu' (in container '')\n | gpu.memory > 1\n | ^",
    ]],
    ['a selector over 10 KiB', (o) => (o.spec.selectors[0].cel.expression = `true${' || true'.repeat(1300)}`), ['spec.selectors[0].cel.expression: Too long: may not be more than 10240 bytes']],
    ['33 selectors', (o) => (o.spec.selectors = Array.from({ length: 33 }, () => ({ cel: { expression: 'true' } }))), ['spec.selectors: Too many: 33: must have at most 32 items']],
    ['a configuration without opaque', (o) => (o.spec.config = [{}]), ['spec.config[0].opaque: Required value']],
    ['an opaque driver that is not a DNS subdomain', (o) => (o.spec.config = [{ opaque: { driver: 'GPU_Driver', parameters: { a: 1 } } }]), [`spec.config[0].opaque.driver: Invalid value: "GPU_Driver": ${SUB}`]],
    ['an opaque driver over 63 characters', (o) => (o.spec.config = [{ opaque: { driver: 'g'.repeat(64), parameters: { a: 1 } } }]), ['spec.config[0].opaque.driver: Too long: may not be more than 63 bytes']],
    ['opaque configuration without parameters', (o) => (o.spec.config = [{ opaque: { driver: 'gpu.example.com' } }]), ['spec.config[0].opaque.parameters: Required value']],
    ['opaque parameters that are not an object', (o) => (o.spec.config = [{ opaque: { driver: 'gpu.example.com', parameters: [1, 2] } }]), ['spec.config[0].opaque.parameters: Invalid value: "<value omitted>": must be a valid JSON object']],
    ['an extended resource name without a domain', (o) => (o.spec.extendedResourceName = 'gpu'), ['spec.extendedResourceName: Invalid value: "gpu": must be a valid extended resource name']],
    ['a name that is not a DNS subdomain', (o) => (o.metadata.name = 'GPU'), [`metadata.name: Invalid value: "GPU": ${SUB}`]],
    ['configuration and an extended resource name', (o) => Object.assign(o.spec, { config: [{ opaque: { driver: 'gpu.example.com', parameters: { sharing: 'time-slicing' } } }], extendedResourceName: 'example.com/gpu' }), []],
  ], it)
  updateTable(strategy, cls, [
    ['a changed selector is compiled again', (o) => (o.spec.selectors[0].cel.expression = 'nope'), ["spec.selectors[0].cel.expression: Invalid value: \"nope\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')\n | nope\n | ^"]],
    ['a selector may change', (o) => (o.spec.selectors[0].cel.expression = "device.attributes['gpu.example.com'].model == 'a100'"), []],
  ], it)
})

const claimCases = (prefix: string, devices: (o: Json) => Json): Case[] => [
  ['a request name that is not a DNS label', (o) => (devices(o).requests[0].name = 'GPU'), [`${prefix}.requests[0].name: Invalid value: "GPU": ${DNS_LABEL}`]],
  ['a request with neither exactly nor firstAvailable', (o) => delete devices(o).requests[0].exactly, [`${prefix}.requests[0]: Required value: exactly one of \`exactly\` or \`firstAvailable\` is required`]],
  ['a request with both', (o) => (devices(o).requests[0].firstAvailable = [{ name: 'big', deviceClassName: 'gpu.example.com' }]), [
    `${prefix}.requests[0]: Invalid value: null: exactly one of \`exactly\` or \`firstAvailable\` is required, but multiple fields are set`,
  ]],
  ['a request without a device class', (o) => delete devices(o).requests[0].exactly.deviceClassName, [`${prefix}.requests[0].exactly.deviceClassName: Required value`]],
  ['an unknown allocation mode', (o) => (devices(o).requests[0].exactly.allocationMode = 'Some'), [`${prefix}.requests[0].exactly.allocationMode: Unsupported value: "Some": supported values: "All", "ExactCount"`]],
  ['All with a count', (o) => Object.assign(devices(o).requests[0].exactly, { allocationMode: 'All', count: 2 }), [`${prefix}.requests[0].exactly.count: Invalid value: 2: must not be specified when allocationMode is 'All'`]],
  ['a negative count', (o) => (devices(o).requests[0].exactly.count = -1), [`${prefix}.requests[0].exactly.count: Invalid value: -1: must be greater than zero`]],
  ['two requests of one name', (o) => devices(o).requests.push({ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }), [`${prefix}.requests[1]: Duplicate value: "gpu"`]],
  ['a constraint on an unknown request', (o) => (devices(o).constraints = [{ requests: ['nic'], matchAttribute: 'gpu.example.com/numa' }]), [`${prefix}.constraints[0].requests[0]: Invalid value: "nic": ${REQUEST_REF}`]],
  ['a constraint without attribute', (o) => (devices(o).constraints = [{ requests: ['gpu'] }]), [`${prefix}.constraints[0].matchAttribute: Required value`]],
  ['a match attribute without domain', (o) => (devices(o).constraints = [{ matchAttribute: 'numa' }]), [`${prefix}.constraints[0].matchAttribute: Invalid value: "numa": a fully qualified name must be a domain and a name separated by a slash`]],
  ['a configuration for an unknown request', (o) => (devices(o).config = [{ requests: ['gpu/big'], opaque: { driver: 'gpu.example.com', parameters: { a: 1 } } }]), [`${prefix}.config[0].requests[0]: Invalid value: "gpu/big": ${REQUEST_REF}`]],
  ['an Exists toleration with a value', (o) => (devices(o).requests[0].exactly.tolerations = [{ key: 'dedicated', operator: 'Exists', value: 'x' }]), [`${prefix}.requests[0].exactly.tolerations[0].value: Invalid value: "x": must be empty for operator \`Exists\``]],
  ['a toleration with an unknown effect', (o) => (devices(o).requests[0].exactly.tolerations = [{ key: 'dedicated', operator: 'Exists', effect: 'Sometimes' }]), [
    `${prefix}.requests[0].exactly.tolerations[0].effect: Unsupported value: "Sometimes": supported values: "NoExecute", "NoSchedule", "None"`,
  ]],
  ['a subrequest of a class that is not a DNS subdomain', (o) => (devices(o).requests[0] = { name: 'gpu', firstAvailable: [{ name: 'big', deviceClassName: 'GPU' }] }), [`${prefix}.requests[0].firstAvailable[0].deviceClassName: Invalid value: "GPU": ${SUB}`]],
  ['a selector naming an unknown variable', (o) => (devices(o).requests[0].exactly.selectors = [{ cel: { expression: 'model == 1' } }]), [
    `${prefix}.requests[0].exactly.selectors[0].cel.expression: Invalid value: "model == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'model' (in container '')\n | model == 1\n | ^`,
  ]],
  ['subrequests, a constraint and configuration on them', (o) => {
    devices(o).requests = [{ name: 'gpu', firstAvailable: [{ name: 'big', deviceClassName: 'gpu.example.com', count: 2 }, { name: 'small', deviceClassName: 'gpu.example.com' }] }]
    devices(o).constraints = [{ requests: ['gpu'], matchAttribute: 'gpu.example.com/numa' }]
    devices(o).config = [{ requests: ['gpu/big'], opaque: { driver: 'gpu.example.com', parameters: { sharing: 'mps' } } }]
  }, []],
]

describe('validation/resource: ResourceClaim', () => {
  const strategy = strategyOf('resource.k8s.io', 'resourceclaims')
  const claim = (): Json => ({ metadata: { name: 'gpu-claim' }, spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }] } } })
  kindTable(strategy, claim, claimCases('spec.devices', (o) => o.spec.devices), it)
  it('v1 defaults: ExactCount of one device, tolerations with operator Equal (SetDefaults_ExactDeviceRequest, SetDefaults_DeviceToleration)', () => {
    const o = claim()
    o.spec.devices.requests[0].exactly.tolerations = [{ key: 'dedicated', value: 'gpu' }]
    o.spec.devices.requests.push({ name: 'any', firstAvailable: [{ name: 'one', deviceClassName: 'gpu.example.com' }, { name: 'all', deviceClassName: 'gpu.example.com', allocationMode: 'All' }] })
    const devices = (created(strategy, o).spec as Json).devices
    assert.deepEqual(devices.requests[0].exactly, { deviceClassName: 'gpu.example.com', tolerations: [{ key: 'dedicated', value: 'gpu', operator: 'Equal' }], allocationMode: 'ExactCount', count: 1 })
    assert.deepEqual(devices.requests[1].firstAvailable.map((s: Json) => [s.allocationMode, s.count]), [['ExactCount', 1], ['All', undefined]])
  })
  it('resource.k8s.io/v1beta1: a request with its fields on itself is the exact request, defaulted and validated as one', () => {
    const beta = strategyOf('resource.k8s.io', 'resourceclaims', 'v1beta1')
    const o = { metadata: { name: 'c' }, spec: { devices: { requests: [{ name: 'gpu', deviceClassName: 'gpu.example.com' }] } } }
    const request = ((created(beta, o).spec as Json).devices.requests as Json[])[0]
    assert.deepEqual([request.allocationMode, request.count], ['ExactCount', 1])
    assert.deepEqual(createErrors(beta, o), [])
    const bad = structuredClone(o) as Json
    bad.spec.devices.requests[0].deviceClassName = 'GPU'
    assert.deepEqual(createErrors(beta, bad), [`spec.devices.requests[0].exactly.deviceClassName: Invalid value: "GPU": ${SUB}`])
  })
  it('update: the spec is immutable (the whole spec is the bad value)', () => {
    const [err, ...rest] = updateErrors(strategy, claim(), (o) => (o.spec.devices.requests[0].exactly.count = 2))
    assert.deepEqual(rest, [])
    assert.ok(err?.startsWith('spec: Invalid value: {') && err.endsWith('}: field is immutable'), err)
  })
  updateTable(strategy, claim, [
    ['reserved without allocation', (o) => (o.status = { reservedFor: [{ resource: 'pods', name: 'web', uid: 'u1' }] }), ['status.reservedFor: Forbidden: may not be specified when `allocated` is not set']],
    ['a consumer without name and uid', (o) => (o.status = { allocation: { devices: {} }, reservedFor: [{ resource: 'pods' }] }), ['status.reservedFor[0].name: Required value', 'status.reservedFor[0].uid: Required value']],
    ['a consumer twice', (o) => (o.status = { allocation: { devices: {} }, reservedFor: [{ resource: 'pods', name: 'a', uid: 'u1' }, { resource: 'pods', name: 'a', uid: 'u1' }] }), ['status.reservedFor[1]: Duplicate value: "u1"']],
    ['an allocation reserved for a pod', (o) => (o.status = { allocation: { devices: {} }, reservedFor: [{ resource: 'pods', name: 'web', uid: 'u1' }] }), []],
  ], it, 'status')
})

describe('validation/resource: ResourceClaimTemplate', () => {
  const strategy = strategyOf('resource.k8s.io', 'resourceclaimtemplates')
  const template = (): Json => ({ metadata: { name: 'gpu-template' }, spec: { metadata: { labels: { app: 'web' } }, spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }] } } } })
  kindTable(strategy, template, [
    ...claimCases('spec.spec.devices', (o) => o.spec.spec.devices),
    ['a claim name in the template metadata', (o) => (o.spec.metadata.name = 'x'), ['spec.metadata.name: Forbidden: cannot be set']],
  ], it)
  it('update: the spec is immutable', () => {
    const [err, ...rest] = updateErrors(strategy, template(), (o) => (o.spec.metadata.labels.app = 'db'))
    assert.deepEqual(rest, [])
    assert.ok(err?.startsWith('spec: Invalid value: {') && err.endsWith('}: field is immutable'), err)
  })
})

describe('validation/resource: ResourceSlice', () => {
  const strategy = strategyOf('resource.k8s.io', 'resourceslices')
  const slice = (): Json => ({
    metadata: { name: 'node-1-gpu' },
    spec: { driver: 'gpu.example.com', pool: { name: 'node-1', resourceSliceCount: 1 }, nodeName: 'node-1', devices: [{ name: 'gpu-0', attributes: { model: { string: 'a100' }, 'gpu.example.com/driverVersion': { version: '1.2.3' } } }] },
  })
  const device = (o: Json) => o.spec.devices[0]
  kindTable(strategy, slice, [
    ['no driver', (o) => delete o.spec.driver, ['spec.driver: Required value', `spec.driver: Invalid value: "": ${SUB}`]],
    ['no pool name', (o) => delete o.spec.pool.name, ['spec.pool.name: Required value']],
    ['a pool name that is not a DNS subdomain', (o) => (o.spec.pool.name = 'Node_1'), [`spec.pool.name: Invalid value: "Node_1": ${SUB}`]],
    ['a pool name with a bad second part', (o) => (o.spec.pool.name = 'rack-1/B'), [`spec.pool.name: Invalid value: "B": ${SUB}`]],
    ['no slices in the pool', (o) => (o.spec.pool.resourceSliceCount = 0), ['spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero']],
    ['a negative pool generation', (o) => (o.spec.pool.generation = -1), ['spec.pool.generation: Invalid value: -1: must be greater than or equal to zero']],
    ['no node selection', (o) => delete o.spec.nodeName, [`spec: Required value: ${NODE_SELECTION}`]],
    ['a node name and all nodes', (o) => (o.spec.allNodes = true), [`spec: Invalid value: "{\`nodeName\`, \`allNodes\`}": ${NODE_SELECTION}, but multiple fields are set`]],
    ['allNodes false', (o) => (o.spec.allNodes = false), ['spec.allNodes: Invalid value: false: must be either unset or set to true']],
    ['an empty node name', (o) => (o.spec.nodeName = ''), ['spec.nodeName: Invalid value: "": must be either unset or set to a non-empty string', `spec: Required value: ${NODE_SELECTION}`]],
    ['a device name that is not a DNS label', (o) => (device(o).name = 'GPU_0'), [`spec.devices[0].name: Invalid value: "GPU_0": ${DNS_LABEL}`]],
    ['two devices of one name', (o) => o.spec.devices.push({ name: 'gpu-0' }), ['spec.devices[1]: Duplicate value: "gpu-0"']],
    ['an attribute without value', (o) => (device(o).attributes.model = {}), ['spec.devices[0].attributes[model]: Invalid value: "": exactly one value must be specified']],
    ['a version that is not semver', (o) => (device(o).attributes['gpu.example.com/driverVersion'] = { version: 'v1' }), [
      'spec.devices[0].attributes[gpu.example.com/driverVersion].version: Invalid value: "v1": must be a string compatible with semver.org spec 2.0.0',
    ]],
    ['a string attribute over 64 characters', (o) => (device(o).attributes.model = { string: 'm'.repeat(65) }), ['spec.devices[0].attributes[model].string: Too long: may not be more than 64 bytes']],
    ['a device node name without per-device selection', (o) => (device(o).nodeName = 'node-1'), [
      'spec.devices[0]: Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec',
    ]],
    ['per-device selection and a device without one', (o) => (delete o.spec.nodeName, (o.spec.perDeviceNodeSelection = true)), [
      'spec.devices[0]: Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec',
    ]],
    ['shared counters and devices', (o) => (o.spec.sharedCounters = [{ name: 'mem', counters: { memory: { value: '8Gi' } } }]), ['spec: Invalid value: "": only one of `sharedCounters` or `devices` is allowed']],
    ['per-device selection with each device on a node', (o) => (delete o.spec.nodeName, (o.spec.perDeviceNodeSelection = true), (device(o).nodeName = 'node-1')), []],
  ], it)
  updateTable(strategy, slice, [
    ['the driver is immutable', (o) => (o.spec.driver = 'other.example.com'), ['spec.driver: Invalid value: "other.example.com": field is immutable']],
    ['the pool name is immutable', (o) => (o.spec.pool.name = 'node-2'), ['spec.pool.name: Invalid value: "node-2": field is immutable']],
    ['the node name is immutable', (o) => (o.spec.nodeName = 'node-2'), ['spec.nodeName: Invalid value: "node-2": field is immutable']],
    ['the devices and the generation may change', (o) => ((o.spec.pool.generation = 2), o.spec.devices.push({ name: 'gpu-1' })), []],
  ], it)
})

const QUALIFIED =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"

describe('validation/resource: DeviceTaintRule (beta)', () => {
  const strategy = strategyOf('resource.k8s.io', 'devicetaintrules', 'v1beta2')
  const rule = (): Json => ({
    metadata: { name: 'gpu-maintenance' },
    spec: { deviceSelector: { driver: 'gpu.example.com', pool: 'node-1', device: 'gpu-0' }, taint: { key: 'example.com/maintenance', value: 'planned', effect: 'NoExecute' } },
  })
  kindTable(strategy, rule, [
    ['a taint without key', (o) => delete o.spec.taint.key, ['spec.taint.key: Invalid value: "": name part must be non-empty', `spec.taint.key: Invalid value: "": ${QUALIFIED}`]],
    ['a taint key with a space', (o) => (o.spec.taint.key = 'bad key'), [`spec.taint.key: Invalid value: "bad key": ${QUALIFIED}`]],
    ['a taint value with a space', (o) => (o.spec.taint.value = 'a b'), [`spec.taint.value: Invalid value: "a b": ${LABEL_VALUE}`]],
    ['a taint without effect', (o) => delete o.spec.taint.effect, ['spec.taint.effect: Required value']],
    ['an unknown effect', (o) => (o.spec.taint.effect = 'Evict'), ['spec.taint.effect: Unsupported value: "Evict": supported values: "NoExecute", "NoSchedule", "None"']],
    ['a driver that is not a DNS subdomain', (o) => (o.spec.deviceSelector.driver = 'GPU_Driver'), [`spec.deviceSelector.driver: Invalid value: "GPU_Driver": ${SUB}`]],
    ['a driver over 63 characters', (o) => (o.spec.deviceSelector.driver = 'g'.repeat(64)), ['spec.deviceSelector.driver: Too long: may not be more than 63 bytes']],
    ['an empty pool', (o) => (o.spec.deviceSelector.pool = ''), ['spec.deviceSelector.pool: Required value']],
    ['a pool that is not a DNS subdomain', (o) => (o.spec.deviceSelector.pool = 'Node_1'), [`spec.deviceSelector.pool: Invalid value: "Node_1": ${SUB}`]],
    ['a device that is not a DNS label', (o) => (o.spec.deviceSelector.device = 'GPU-0'), [`spec.deviceSelector.device: Invalid value: "GPU-0": ${DNS_LABEL}`]],
    ['a name that is not a DNS subdomain', (o) => (o.metadata.name = 'GPU'), [`metadata.name: Invalid value: "GPU": ${SUB}`]],
    ['every device tainted, effect None', (o) => Object.assign(o, { spec: { taint: { key: 'example.com/info', effect: 'None' } } }), []],
  ], it)
  updateTable(strategy, rule, [
    ['a changed effect is checked', (o) => (o.spec.taint.effect = 'Evict'), ['spec.taint.effect: Unsupported value: "Evict": supported values: "NoExecute", "NoSchedule", "None"']],
    ['the value may change', (o) => (o.spec.taint.value = 'unplanned'), []],
  ], it)
})

describe('validation/resource: ResourceSlice shared counters, counter consumption and capacity', () => {
  const strategy = strategyOf('resource.k8s.io', 'resourceslices')
  const C_ID =
    "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')"
  const counters = (): Json => ({
    metadata: { name: 'node-1-gpu-counters' },
    spec: { driver: 'gpu.example.com', pool: { name: 'node-1', resourceSliceCount: 2 }, nodeName: 'node-1', sharedCounters: [{ name: 'gpu-0', counters: { memory: { value: '80Gi' } } }] },
  })
  const partitions = (): Json => ({
    metadata: { name: 'node-1-gpu-partitions' },
    spec: {
      driver: 'gpu.example.com',
      pool: { name: 'node-1', resourceSliceCount: 2 },
      nodeName: 'node-1',
      devices: [{ name: 'gpu-0-half', consumesCounters: [{ counterSet: 'gpu-0', counters: { memory: { value: '40Gi' } } }], capacity: { memory: { value: '40Gi' } } }],
    },
  })
  const set = (o: Json) => o.spec.sharedCounters[0]
  const dev = (o: Json) => o.spec.devices[0]
  kindTable(strategy, counters, [
    ['a counter set without name', (o) => delete set(o).name, ['spec.sharedCounters[0].name: Required value']],
    ['a counter set name that is not a label', (o) => (set(o).name = 'GPU.0'), [`spec.sharedCounters[0].name: Invalid value: "GPU.0": ${DNS_LABEL}`]],
    ['a counter set without counters', (o) => (set(o).counters = {}), ['spec.sharedCounters[0].counters: Required value']],
    ['a counter name that is not a label', (o) => (set(o).counters = { Memory_1: { value: '1' } }), [`spec.sharedCounters[0].counters[Memory_1]: Invalid value: "Memory_1": ${DNS_LABEL}`]],
    ['two counter sets of one name', (o) => o.spec.sharedCounters.push(structuredClone(set(o))), ['spec.sharedCounters[1]: Duplicate value: "gpu-0"']],
    ['nine counter sets', (o) => (o.spec.sharedCounters = Array.from({ length: 9 }, (_, i) => ({ name: `gpu-${i}`, counters: { memory: { value: '1' } } }))), ['spec.sharedCounters: Too many: 9: must have at most 8 items']],
    ['33 counters in a set', (o) => (set(o).counters = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`c${i}`, { value: '1' }]))), ['spec.sharedCounters[0].counters: Too many: 33: must have at most 32 items']],
    ['eight counter sets of 32 counters', (o) => (o.spec.sharedCounters = Array.from({ length: 8 }, (_, i) => ({ name: `gpu-${i}`, counters: Object.fromEntries(Array.from({ length: 32 }, (_, j) => [`c${j}`, { value: '1' }])) }))), []],
  ], it)
  kindTable(strategy, partitions, [
    ['a consumption without counter set', (o) => delete dev(o).consumesCounters[0].counterSet, ['spec.devices[0].consumesCounters[0].counterSet: Required value']],
    ['a consumption without counters', (o) => delete dev(o).consumesCounters[0].counters, ['spec.devices[0].consumesCounters[0].counters: Required value']],
    ['three consumptions', (o) => (dev(o).consumesCounters = ['a', 'b', 'c'].map((s) => ({ counterSet: s, counters: { memory: { value: '1' } } }))), ['spec.devices[0].consumesCounters: Too many: 3: must have at most 2 items']],
    ['one counter set consumed twice', (o) => dev(o).consumesCounters.push(structuredClone(dev(o).consumesCounters[0])), ['spec.devices[0].consumesCounters[1]: Duplicate value: "gpu-0"']],
    ['65 devices that consume counters', (o) => (o.spec.devices = Array.from({ length: 65 }, (_, i) => ({ ...structuredClone(dev(o)), name: `d${i}` }))), ['spec.devices: Too many: 65: must have at most 64 items']],
    ['a capacity name that is not a C identifier', (o) => (dev(o).capacity = { 'memory-size': { value: '1Gi' } }), [`spec.devices[0].capacity[memory-size]: Invalid value: "memory-size": ${C_ID}`]],
    ['a capacity with an empty domain', (o) => (dev(o).capacity = { '/memory': { value: '1Gi' } }), ['spec.devices[0].capacity[/memory]: Invalid value: "": the domain must not be empty']],
    ['an attribute name over 32 characters', (o) => (dev(o).attributes = { ['a'.repeat(33)]: { int: 1 } }), [`spec.devices[0].attributes[${'a'.repeat(33)}]: Too long: may not be more than 32 bytes`]],
    ['33 attributes and capacities', (o) => Object.assign(dev(o), { attributes: Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`a${i}`, { int: i }])) }), [
      'spec.devices[0]: Invalid value: 33: the total number of attributes and capacities must not exceed 32',
    ]],
    ['a request policy on a device allocated once', (o) => (dev(o).capacity.memory.requestPolicy = { default: '1Gi', validValues: ['1Gi'] }), ['spec.devices[0].capacity[memory].requestPolicy: Forbidden: allowMultipleAllocations must be true']],
    ['valid values and a range', (o) => Object.assign(dev(o), { allowMultipleAllocations: true, capacity: { memory: { value: '40Gi', requestPolicy: { default: '1Gi', validValues: ['1Gi'], validRange: { min: '1Gi' } } } } }), [
      'spec.devices[0].capacity[memory].requestPolicy: Forbidden: exactly one policy can be specified, cannot specify "validValues" and "validRange" at the same time',
    ]],
    ['valid values without default', (o) => Object.assign(dev(o), { allowMultipleAllocations: true, capacity: { memory: { value: '40Gi', requestPolicy: { validValues: ['1Gi'] } } } }), [
      'spec.devices[0].capacity[memory].requestPolicy.default: Required value: required when validValues is defined',
    ]],
    ['valid values out of order, one over the capacity, default not among them', (o) => Object.assign(dev(o), { allowMultipleAllocations: true, capacity: { memory: { value: '40Gi', requestPolicy: { default: '3Gi', validValues: ['2Gi', '1Gi', '80Gi'] } } } }), [
      'spec.devices[0].capacity[memory].requestPolicy.validValues[1]: Invalid value: "1Gi": values must be sorted in ascending order',
      'spec.devices[0].capacity[memory].requestPolicy.validValues[2]: Invalid value: "80Gi": option is larger than capacity value: 40Gi',
      'spec.devices[0].capacity[memory].requestPolicy.validValues: Invalid value: "3Gi": default value is not valid according to the requestPolicy',
    ]],
    ['a range without min', (o) => Object.assign(dev(o), { allowMultipleAllocations: true, capacity: { memory: { value: '40Gi', requestPolicy: { default: '1Gi', validRange: { max: '2Gi' } } } } }), [
      'spec.devices[0].capacity[memory].requestPolicy.validRange.min: Required value: required when validRange is defined',
    ]],
    ['a range whose default is off the steps and whose max passes the capacity', (o) => Object.assign(dev(o), { allowMultipleAllocations: true, capacity: { memory: { value: '40Gi', requestPolicy: { default: '3Gi', validRange: { min: '2Gi', max: '48Gi', step: '2Gi' } } } } }), [
      'spec.devices[0].capacity[memory].requestPolicy.validRange.max: Invalid value: "48Gi": max is larger than capacity value: 40Gi',
      'spec.devices[0].capacity[memory].requestPolicy.validRange.step: Invalid value: "3Gi": value is not a multiple of a given step (2Gi) from (2Gi)',
    ]],
    ['a device taint without effect', (o) => (dev(o).taints = [{ key: 'example.com/unhealthy' }]), ['spec.devices[0].taints[0].effect: Required value']],
    ['17 device taints', (o) => (dev(o).taints = Array.from({ length: 17 }, (_, i) => ({ key: `k${i}`, effect: 'NoSchedule' }))), ['spec.devices[0].taints: Too many: 17: must have at most 16 items']],
    ['binding conditions without failure conditions', (o) => (dev(o).bindingConditions = ['attached']), [
      'spec.devices[0].bindingFailureConditions: Invalid value: []: bindingFailureConditions are required to use bindingConditions',
    ]],
    ['a binding failure condition that is also a binding condition', (o) => Object.assign(dev(o), { bindingConditions: ['ready'], bindingFailureConditions: ['ready'] }), [
      'spec.devices[0].bindingFailureConditions[0]: Invalid value: "ready": bindingFailureConditions must not overlap with bindingConditions',
    ]],
    ['a consumable capacity with a range in steps', (o) => Object.assign(dev(o), { allowMultipleAllocations: true, capacity: { memory: { value: '40Gi', requestPolicy: { default: '4Gi', validRange: { min: '2Gi', max: '40Gi', step: '2Gi' } } } } }), []],
  ], it)
})

describe('validation/resource: ResourceClaim status (allocation results, device status)', () => {
  const strategy = strategyOf('resource.k8s.io', 'resourceclaims')
  const claim = (): Json => ({ metadata: { name: 'gpu-claim' }, spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }] } } })
  const result = (extra: Json = {}): Json => ({ request: 'gpu', driver: 'gpu.example.com', pool: 'node-1', device: 'gpu-0', ...extra })
  const allocated = (results: Json[], extra: Json = {}) => ({ allocation: { devices: { results }, ...extra } })
  const withDevice = (device: Json) => ({ ...allocated([result()]), devices: [{ driver: 'gpu.example.com', pool: 'node-1', device: 'gpu-0', ...device }] })
  updateTable(strategy, claim, [
    ['a result for an unknown request', (o) => (o.status = allocated([result({ request: 'cpu' })])), [`status.allocation.devices.results[0].request: Invalid value: "cpu": ${REQUEST_REF}`]],
    ['a result without driver, pool and device', (o) => (o.status = allocated([{ request: 'gpu' }])), [
      'status.allocation.devices.results[0].driver: Required value',
      `status.allocation.devices.results[0].driver: Invalid value: "": ${SUB}`,
      'status.allocation.devices.results[0].pool: Required value',
      `status.allocation.devices.results[0].device: Invalid value: "": ${DNS_LABEL}`,
    ]],
    ['a share ID that is not a UUID', (o) => (o.status = allocated([result({ shareID: 'share-1' })])), ['status.allocation.devices.results[0].shareID: Invalid value: "share-1": error validating uid: invalid UUID length: 7']],
    ['a share ID in capitals', (o) => (o.status = allocated([result({ shareID: 'A0B1C2D3-0000-4000-8000-000000000001' })])), [
      'status.allocation.devices.results[0].shareID: Invalid value: "A0B1C2D3-0000-4000-8000-000000000001": uid must be in RFC 4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase hexadecimal characters',
    ]],
    ['binding failure conditions without binding conditions', (o) => (o.status = allocated([result({ bindingFailureConditions: ['failed'] })])), [
      'status.allocation.devices.results[0].bindingConditions: Invalid value: []: bindingConditions are required to use bindingFailureConditions',
    ]],
    ['a config of an unknown source', (o) => (o.status = allocated([result()], {})) && (o.status.allocation.devices.config = [{ source: 'FromNode', opaque: { driver: 'gpu.example.com', parameters: {} } }]), [
      'status.allocation.devices.config[0].source: Unsupported value: "FromNode": supported values: "FromClaim", "FromClass"',
    ]],
    ['an allocation node selector without terms', (o) => (o.status = allocated([result()], { nodeSelector: { nodeSelectorTerms: [] } })), ['status.allocation.nodeSelector.nodeSelectorTerms: Required value: must have at least one node selector term']],
    ['a device status of a device not allocated', (o) => (o.status = { ...withDevice({}), devices: [{ driver: 'gpu.example.com', pool: 'node-1', device: 'gpu-1' }] }), [
      'status.devices[0]: Invalid value: gpu.example.com/node-1/gpu-1: must be an allocated device in the claim',
    ]],
    ['a device status with data that is not an object', (o) => (o.status = withDevice({ data: [1] })), ['status.devices[0].data: Invalid value: "<value omitted>": must be a valid JSON object']],
    ['a device status with a bad interface address', (o) => (o.status = withDevice({ networkData: { ips: ['10.9.8.7'] } })), [
      'status.devices[0].networkData.ips[0]: Invalid value: "10.9.8.7": must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)',
    ]],
    ['a device status with 17 addresses', (o) => (o.status = withDevice({ networkData: { ips: Array.from({ length: 17 }, (_, i) => `10.0.0.${i}/24`) } })), ['status.devices[0].networkData.ips: Too many: 17: must have at most 16 items']],
    ['a device status with an interface name over 256 bytes', (o) => (o.status = withDevice({ networkData: { interfaceName: 'i'.repeat(257) } })), ['status.devices[0].networkData.interfaceName: Too long: may not be more than 256 bytes']],
    ['a device status with nine conditions', (o) => (o.status = withDevice({ conditions: Array.from({ length: 9 }, (_, i) => ({ type: `T${i}`, status: 'True', reason: 'R', message: '', lastTransitionTime: '2024-01-01T00:00:00Z' })) })), [
      'status.devices[0].conditions: Too many: 9: must have at most 8 items',
    ]],
    ['an allocation with its device status', (o) => (o.status = withDevice({ networkData: { interfaceName: 'eth1', ips: ['10.9.8.7/24'], hardwareAddress: '00:11:22:33:44:55' } })), []],
  ], it, 'status')
  it('a stored allocation is only compared, not checked again', () => {
    const old = { ...claim(), status: allocated([result({ request: 'unknown' })]) } as unknown as KubeObject
    const same = structuredClone(old)
    assert.deepEqual(validateResourceClaimStatusUpdate(same, old), [])
    const changed = structuredClone(old) as Json
    changed.status.allocation.devices.results.push(result({ device: 'gpu-1' }))
    const errs = validateResourceClaimStatusUpdate(changed as KubeObject, old).map((e) => `${e.field}: ${e.message}`)
    assert.equal(errs.length, 1)
    assert.match(errs[0]!, /^status\.allocation: Invalid value: \{.*\}: field is immutable$/)
  })
})
