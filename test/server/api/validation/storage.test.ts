/**
 * storage.k8s.io validation beyond StorageClass, table-driven: CSIDriver, CSINode,
 * VolumeAttachment, CSIStorageCapacity and VolumeAttributesClass. Expected texts are the
 * reference's (`pkg/apis/storage/validation/validation.go` and its `validation_test.go`;
 * apimachinery's string rules for the DNS and qualified-name messages).
 */
import { type Json, kindTable, strategyOf, updateTable } from './groups-support.js'

const SUB =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
const QUALIFIED =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"

describe('validation/storage: CSIDriver', () => {
  const strategy = strategyOf('storage.k8s.io', 'csidrivers')
  const driver = (): Json => ({ metadata: { name: 'csi.example.com' }, spec: { tokenRequests: [{ audience: 'vault', expirationSeconds: 3600 }] } })
  kindTable(strategy, driver, [
    ['an unknown fsGroupPolicy', (o) => (o.spec.fsGroupPolicy = 'Sometimes'), ['spec.fsGroupPolicy: Unsupported value: "Sometimes": supported values: "File", "None", "ReadWriteOnceWithFSType"']],
    ['an unknown lifecycle mode', (o) => (o.spec.volumeLifecycleModes = ['Persistent', 'Sideways']), ['spec.volumeLifecycleModes: Unsupported value: "Sideways": supported values: "Persistent", "Ephemeral"']],
    ['two unknown lifecycle modes', (o) => (o.spec.volumeLifecycleModes = ['persistent', 'ephemeral']), [
      'spec.volumeLifecycleModes: Unsupported value: "persistent": supported values: "Persistent", "Ephemeral"',
      'spec.volumeLifecycleModes: Unsupported value: "ephemeral": supported values: "Persistent", "Ephemeral"',
    ]],
    ['two token requests for one audience', (o) => o.spec.tokenRequests.push({ audience: 'vault' }), ['spec.tokenRequests[1].audience: Duplicate value: "vault"']],
    ['two token requests without audience', (o) => (o.spec.tokenRequests = [{}, {}]), ['spec.tokenRequests[1].audience: Duplicate value: ""']],
    ['a token shorter than 10 minutes', (o) => (o.spec.tokenRequests[0].expirationSeconds = 599), ['spec.tokenRequests[0].expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes']],
    ['a token longer than 2^32 seconds', (o) => (o.spec.tokenRequests[0].expirationSeconds = 4294967297), ['spec.tokenRequests[0].expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds']],
    ['a duplicate audience is not checked further', (o) => o.spec.tokenRequests.push({ audience: 'vault', expirationSeconds: 1 }, { audience: 'db', expirationSeconds: 1 }), [
      'spec.tokenRequests[1].audience: Duplicate value: "vault"',
      'spec.tokenRequests[2].expirationSeconds: Invalid value: 1: may not specify a duration less than 10 minutes',
    ]],
    ['an allocatable update period under 10 seconds', (o) => (o.spec.nodeAllocatableUpdatePeriodSeconds = 5), ['spec.nodeAllocatableUpdatePeriodSeconds: Invalid value: 5: must be greater than or equal to 10 seconds']],
    ['a name that is not a DNS subdomain', (o) => (o.metadata.name = 'CSI_Driver'), [`metadata.name: Invalid value: "CSI_Driver": ${SUB}`]],
    ['a namespace', (o) => (o.metadata.namespace = 'default'), ['metadata.namespace: Forbidden: not allowed on this type']],
    ['every lifecycle mode and policy accepted', (o) => Object.assign(o.spec, { volumeLifecycleModes: ['Persistent', 'Ephemeral'], fsGroupPolicy: 'File', nodeAllocatableUpdatePeriodSeconds: 10 }), []],
  ], it)
  updateTable(strategy, driver, [
    ['attachRequired is immutable (the reference names it attachedRequired)', (o) => (o.spec.attachRequired = false), ['spec.attachedRequired: Invalid value: false: field is immutable']],
    ['volumeLifecycleModes are immutable', (o) => (o.spec.volumeLifecycleModes = ['Persistent', 'Ephemeral']), ['spec.volumeLifecycleModes: Invalid value: ["Persistent","Ephemeral"]: field is immutable']],
    ['the spec is still validated', (o) => (o.spec.fsGroupPolicy = 'Any'), ['spec.fsGroupPolicy: Unsupported value: "Any": supported values: "File", "None", "ReadWriteOnceWithFSType"']],
    ['podInfoOnMount may change', (o) => (o.spec.podInfoOnMount = true), []],
  ], it)
})

describe('validation/storage: CSINode', () => {
  const strategy = strategyOf('storage.k8s.io', 'csinodes')
  const node = (): Json => ({ metadata: { name: 'node-1' }, spec: { drivers: [{ name: 'csi.example.com', nodeID: 'n1', topologyKeys: ['topology.example.com/zone'], allocatable: { count: 8 } }] } })
  kindTable(strategy, node, [
    ['a driver without a name', (o) => delete o.spec.drivers[0].name, ['spec.drivers[0].name: Required value', `spec.drivers[0].name: Invalid value: "": ${SUB}`]],
    ['a driver name that is not a DNS subdomain', (o) => (o.spec.drivers[0].name = 'csi_example'), [`spec.drivers[0].name: Invalid value: "csi_example": ${SUB}`]],
    ['a driver name over 63 characters', (o) => (o.spec.drivers[0].name = 'a'.repeat(64)), ['spec.drivers[0].name: Too long: may not be more than 63 bytes']],
    ['a driver without a node ID', (o) => delete o.spec.drivers[0].nodeID, ['spec.drivers[0].nodeID: Required value']],
    ['a node ID over 256 characters', (o) => (o.spec.drivers[0].nodeID = 'n'.repeat(257)), [`spec.drivers[0].nodeID: Invalid value: "${'n'.repeat(257)}": must be 256 characters or less`]],
    ['a negative allocatable count', (o) => (o.spec.drivers[0].allocatable.count = -1), ['spec.drivers[0].allocatable.count: Invalid value: -1: must be greater than or equal to 0']],
    ['the same driver twice', (o) => o.spec.drivers.push({ name: 'csi.example.com', nodeID: 'n2' }), ['spec.drivers[1].name: Duplicate value: "csi.example.com"']],
    ['an empty topology key', (o) => (o.spec.drivers[0].topologyKeys = ['']), [
      'spec.drivers[0]: Required value',
      'spec.drivers[0]: Invalid value: "": name part must be non-empty',
      `spec.drivers[0]: Invalid value: "": ${QUALIFIED}`,
    ]],
    ['a topology key twice', (o) => (o.spec.drivers[0].topologyKeys = ['zone', 'zone']), ['spec.drivers[0]: Duplicate value: "zone"']],
    ['a topology key that is not a qualified name', (o) => (o.spec.drivers[0].topologyKeys = ['my zone']), [`spec.drivers[0]: Invalid value: "my zone": ${QUALIFIED}`]],
    ['a name that is not a DNS subdomain', (o) => (o.metadata.name = 'Node_1'), [`metadata.name: Invalid value: "Node_1": ${SUB}`]],
    ['no drivers at all', (o) => (o.spec.drivers = []), []],
  ], it)
  updateTable(strategy, node, [
    ['a registered driver may not change', (o) => (o.spec.drivers[0].nodeID = 'n2'), [
      'spec.drivers: Invalid value: {"Name":"csi.example.com","NodeID":"n2","TopologyKeys":["topology.example.com/zone"],"Allocatable":null}: field is immutable',
    ]],
    ['its allocatable count may', (o) => (o.spec.drivers[0].allocatable.count = 16), []],
    ['a driver may be added', (o) => o.spec.drivers.push({ name: 'other.example.com', nodeID: 'n1' }), []],
  ], it)
})

describe('validation/storage: VolumeAttachment', () => {
  const strategy = strategyOf('storage.k8s.io', 'volumeattachments')
  const attachment = (): Json => ({ metadata: { name: 'va-1' }, spec: { attacher: 'csi.example.com', source: { persistentVolumeName: 'pv-1' }, nodeName: 'node-1' } })
  const inline = { accessModes: ['ReadWriteOnce'], csi: { driver: 'csi.example.com', volumeHandle: 'vol-1' } }
  kindTable(strategy, attachment, [
    ['no attacher (and the v1 driver-name check)', (o) => delete o.spec.attacher, ['spec.attacher: Required value', 'spec.attacher: Required value', `spec.attacher: Invalid value: "": ${SUB}`]],
    ['an attacher that is not a CSI driver name', (o) => (o.spec.attacher = 'CSI_Example'), [`spec.attacher: Invalid value: "CSI_Example": ${SUB}`]],
    ['no source', (o) => (o.spec.source = {}), ['spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName']],
    ['both sources', (o) => (o.spec.source.inlineVolumeSpec = inline), ['spec.source: Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName']],
    ['an empty persistentVolumeName', (o) => (o.spec.source.persistentVolumeName = ''), [
      'spec.source.persistentVolumeName: Required value: must specify non empty persistentVolumeName',
      `spec.source.persistentVolumeName: Invalid value: "": ${SUB}`,
    ]],
    ['a persistentVolumeName that is not a DNS subdomain', (o) => (o.spec.source.persistentVolumeName = 'PV_1'), [`spec.source.persistentVolumeName: Invalid value: "PV_1": ${SUB}`]],
    ['no node name', (o) => delete o.spec.nodeName, [`spec.nodeName: Invalid value: "": ${SUB}`]],
    ['an inline spec with capacity and no source', (o) => (o.spec.source = { inlineVolumeSpec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] } }), [
      'spec.source.inlineVolumeSpec.capacity: Forbidden: may not be specified in the context of inline volumes',
      'spec.source.inlineVolumeSpec.csi: Required value: has to be specified in the context of inline volumes',
      'spec.source.inlineVolumeSpec: Required value: must specify a volume type',
    ]],
    ['an inline spec with a claimRef and no access modes', (o) => (o.spec.source = { inlineVolumeSpec: { ...inline, accessModes: [], claimRef: { name: 'c' } } }), [
      'spec.source.inlineVolumeSpec.claimRef: Forbidden: may not be specified in the context of inline volumes',
      'spec.source.inlineVolumeSpec.accessModes: Required value',
    ]],
    ['an inline CSI source without a volume handle', (o) => (o.spec.source = { inlineVolumeSpec: { ...inline, csi: { driver: 'csi.example.com' } } }), ['spec.source.inlineVolumeSpec.csi.volumeHandle: Required value']],
    ['a name that is not a DNS subdomain', (o) => (o.metadata.name = 'VA 1'), [`metadata.name: Invalid value: "VA 1": ${SUB}`]],
    ['a valid inline spec', (o) => (o.spec.source = { inlineVolumeSpec: inline }), []],
  ], it)
  updateTable(strategy, attachment, [
    ['the spec is read-only', (o) => (o.spec.nodeName = 'node-2'), [
      'spec: Invalid value: {"Attacher":"csi.example.com","Source":{"PersistentVolumeName":"pv-1","InlineVolumeSpec":null},"NodeName":"node-2"}: field is immutable',
    ]],
    ['labels may change', (o) => (o.metadata.labels = { a: 'b' }), []],
  ], it)
  updateTable(strategy, attachment, [
    ['attachment metadata over 256 KiB', (o) => (o.status = { attached: true, attachmentMetadata: { big: 'x'.repeat(262144) } }), ['status.attachmentMetadata: Too long: may not be more than 262144 bytes']],
    ['an attach error message over 1024 characters (the reference names the metadata limit)', (o) => (o.status = { attached: false, attachError: { message: 'e'.repeat(1025) } }), ['status.attachError.message: Too long: may not be more than 262144 bytes']],
    ['a negative detach error code', (o) => (o.status = { attached: true, detachError: { message: 'busy', errorCode: -1 } }), ['status.detachError.errorCode: Invalid value: -1: must be between 0 and 2147483647, inclusive']],
    ['a status with metadata', (o) => (o.status = { attached: true, attachmentMetadata: { device: 'disk-1' } }), []],
  ], it, 'status')
})

describe('validation/storage: CSIStorageCapacity', () => {
  const strategy = strategyOf('storage.k8s.io', 'csistoragecapacities')
  const capacity = (): Json => ({ metadata: { name: 'cap-1' }, storageClassName: 'standard', capacity: '10Gi', nodeTopology: { matchLabels: { 'topology.example.com/zone': 'a' } } })
  kindTable(strategy, capacity, [
    ['no storage class name', (o) => delete o.storageClassName, [`storageClassName: Invalid value: "": ${SUB}`]],
    ['a storage class name that is not a DNS subdomain', (o) => (o.storageClassName = 'Standard'), [`storageClassName: Invalid value: "Standard": ${SUB}`]],
    ['a negative capacity', (o) => (o.capacity = '-1Gi'), ['capacity: Invalid value: "-1Gi": must be greater than or equal to 0']],
    ['a topology label key that is not a qualified name', (o) => (o.nodeTopology.matchLabels = { 'my zone': 'a' }), [`nodeTopology.matchLabels: Invalid value: "my zone": ${QUALIFIED}`]],
    ['a topology label value that is not valid', (o) => (o.nodeTopology.matchLabels = { zone: 'a b' }), [`nodeTopology.matchLabels: Invalid value: "a b": ${LABEL_VALUE}`]],
    ['an unknown selector operator', (o) => (o.nodeTopology = { matchExpressions: [{ key: 'zone', operator: 'Near', values: ['a'] }] }), ['nodeTopology.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator']],
    ['In without values', (o) => (o.nodeTopology = { matchExpressions: [{ key: 'zone', operator: 'In' }] }), ["nodeTopology.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"]],
    ['Exists with values', (o) => (o.nodeTopology = { matchExpressions: [{ key: 'zone', operator: 'Exists', values: ['a'] }] }), ["nodeTopology.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"]],
    ['a name that is not a DNS subdomain', (o) => (o.metadata.name = 'Cap_1'), [`metadata.name: Invalid value: "Cap_1": ${SUB}`]],
    ['a name of 254 characters', (o) => (o.metadata.name = 'c'.repeat(254)), [`metadata.name: Invalid value: "${'c'.repeat(254)}": must be no more than 253 characters`]],
    ['no topology and no capacity', (o) => (delete o.nodeTopology, delete o.capacity), []],
  ], it)
  updateTable(strategy, capacity, [
    ['the storage class name is immutable', (o) => (o.storageClassName = 'fast'), ['storageClassName: Invalid value: "fast": field is immutable']],
    ['the node topology is immutable', (o) => (o.nodeTopology.matchLabels['topology.example.com/zone'] = 'b'), ['nodeTopology: Invalid value: {"matchLabels":{"topology.example.com/zone":"b"}}: field is immutable']],
    ['the capacity may change', (o) => (o.capacity = '20Gi'), []],
  ], it)
})

describe('validation/storage: VolumeAttributesClass', () => {
  const strategy = strategyOf('storage.k8s.io', 'volumeattributesclasses')
  const vac = (): Json => ({ metadata: { name: 'gold' }, driverName: 'csi.example.com', parameters: { iops: '1000' } })
  kindTable(strategy, vac, [
    ['no driver name', (o) => delete o.driverName, ['driverName: Required value']],
    ['a driver name with a space', (o) => (o.driverName = 'csi example'), [`driverName: Invalid value: "csi example": ${QUALIFIED}`]],
    ['a driver name starting with a dash', (o) => (o.driverName = '-csi'), [`driverName: Invalid value: "-csi": ${QUALIFIED}`]],
    ['a driver name part over 63 characters', (o) => (o.driverName = 'a'.repeat(64)), [`driverName: Invalid value: "${'a'.repeat(64)}": name part must be no more than 63 bytes`]],
    ['no parameters', (o) => delete o.parameters, ['parameters: Required value: must contain at least one key/value pair']],
    ['an empty parameter name', (o) => (o.parameters = { '': 'x' }), ['parameters: Invalid value: "": field can not be empty.']],
    ['too many parameters', (o) => (o.parameters = Object.fromEntries(Array.from({ length: 513 }, (_, i) => [`k${i}`, 'v']))), ['parameters: Too long: may not be more than 512 bytes']],
    ['parameters over 256 KiB', (o) => (o.parameters = { big: 'x'.repeat(262144) }), ['parameters: Too long: may not be more than 262144 bytes']],
    ['a name that is not a DNS subdomain', (o) => (o.metadata.name = 'Gold'), [`metadata.name: Invalid value: "Gold": ${SUB}`]],
    ['a namespace', (o) => (o.metadata.namespace = 'default'), ['metadata.namespace: Forbidden: not allowed on this type']],
  ], it)
  updateTable(strategy, vac, [
    ['the driver name is immutable', (o) => (o.driverName = 'other.example.com'), ['driverName: Forbidden: updates to driverName are forbidden.']],
    ['the parameters are immutable', (o) => (o.parameters.iops = '2000'), ['parameters: Forbidden: updates to parameters are forbidden.']],
    ['removing every parameter: forbidden, then required', (o) => delete o.parameters, ['parameters: Forbidden: updates to parameters are forbidden.', 'parameters: Required value: must contain at least one key/value pair']],
    ['labels may change', (o) => (o.metadata.labels = { tier: 'gold' }), []],
  ], it)
})
