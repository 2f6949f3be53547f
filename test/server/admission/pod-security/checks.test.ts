/**
 * Every Pod Security check against the reference's own per-check tables
 * (staging/src/k8s.io/pod-security-admission/policy/check_*_test.go): the pods, reasons and
 * details are theirs.
 */
import assert from 'node:assert/strict'
import { checkAllowPrivilegeEscalation } from '../../../../src/server/admission/pod-security/check-allow-privilege-escalation.js'
import { checkAppArmorProfile } from '../../../../src/server/admission/pod-security/check-app-armor.js'
import { checkCapabilitiesBaseline, checkCapabilitiesRestricted } from '../../../../src/server/admission/pod-security/check-capabilities.js'
import { checkHostNamespaces } from '../../../../src/server/admission/pod-security/check-host-namespaces.js'
import { checkHostPathVolumes } from '../../../../src/server/admission/pod-security/check-host-path-volumes.js'
import { checkHostProbesAndHostLifecycle } from '../../../../src/server/admission/pod-security/check-host-probes.js'
import { checkHostPorts } from '../../../../src/server/admission/pod-security/check-host-ports.js'
import { checkPrivileged } from '../../../../src/server/admission/pod-security/check-privileged.js'
import { checkProcMountBaseline, checkProcMountRestricted } from '../../../../src/server/admission/pod-security/check-proc-mount.js'
import { checkRestrictedVolumes } from '../../../../src/server/admission/pod-security/check-restricted-volumes.js'
import { checkRunAsNonRoot } from '../../../../src/server/admission/pod-security/check-run-as-non-root.js'
import { checkRunAsUser } from '../../../../src/server/admission/pod-security/check-run-as-user.js'
import { checkSELinuxOptions } from '../../../../src/server/admission/pod-security/check-se-linux.js'
import { checkSeccompProfileBaseline, checkSeccompProfileRestricted } from '../../../../src/server/admission/pod-security/check-seccomp.js'
import { checkWindowsHostProcess } from '../../../../src/server/admission/pod-security/check-windows-host-process.js'
import type { Check, Obj } from '../../../../src/server/admission/pod-security/check.js'

/** The check's revision for policy minor `minor` (as the reference's tests call e.g. privileged_1_0). */
function revision(check: Check, minor: number) {
  const found = check.versions.find((v) => v.minimumVersion.minor === minor)
  if (!found) throw new Error(`${check.id} has no revision v1.${minor}`)
  return found.checkPod
}

interface Case {
  name: string
  check: Check
  minor: number
  metadata?: Obj
  spec: Obj
  /** Undefined: allowed. */
  reason?: string
  detail?: string
}

const sc = (name: string, securityContext?: Obj): Obj => (securityContext === undefined ? { name } : { name, securityContext })
const AA = 'container.apparmor.security.beta.kubernetes.io/'
const SCP = 'container.seccomp.security.alpha.kubernetes.io/'
const SA = 'seccomp.security.alpha.kubernetes.io/pod'
const capsAdd = (add: string[], drop?: string[]): Obj => ({ capabilities: { add, ...(drop ? { drop } : {}) } })
const seccompContainers = (): Obj => ({
  securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
  containers: [sc('a'), sc('b', {}), sc('c', { seccompProfile: { type: 'Unconfined' } }), sc('d', { seccompProfile: { type: 'Unconfined' } }), sc('e', { seccompProfile: { type: 'RuntimeDefault' } }), sc('f', { seccompProfile: { type: 'RuntimeDefault' } })],
})
const seccompFallthrough: Obj = { containers: [sc('a'), sc('b', {}), sc('d', { seccompProfile: { type: 'RuntimeDefault' } }), sc('e', { seccompProfile: { type: 'RuntimeDefault' } })] }
const procMountContainers = [sc('a'), sc('b', {}), sc('c', { procMount: 'Default' }), sc('d', { procMount: 'Unmasked' }), sc('e', { procMount: 'other' })]
const seLinuxOk = ['container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t'].map((type, i) => sc('abcd'[i]!, { seLinuxOptions: { type } }))
const seLinuxBad = [sc('e', { seLinuxOptions: { type: 'bar' } }), sc('f', { seLinuxOptions: { user: 'bar' } }), sc('g', { seLinuxOptions: { role: 'baz' } })]
const capsContainers = [
  sc('a', capsAdd(['FOO', 'BAR'])),
  sc('b', capsAdd(['BAR', 'BAZ'])),
  sc('c', capsAdd(['NET_BIND_SERVICE', 'CHOWN'], ['ALL', 'FOO'])),
]
const CAPS_DETAIL = 'containers "a", "b" must set securityContext.capabilities.drop=["ALL"]; containers "a", "b", "c" must not include "BAR", "BAZ", "CHOWN", "FOO" in securityContext.capabilities.add'

const restrictedVolumeSources: [string, Obj][] = [
  ['hostPath', { path: '' }], ['gcePersistentDisk', { pdName: '' }], ['awsElasticBlockStore', { volumeID: '' }], ['gitRepo', { repository: '' }],
  ['nfs', { server: '', path: '' }], ['iscsi', { targetPortal: '', iqn: '', lun: 0 }], ['glusterfs', { endpoints: '', path: '' }], ['rbd', { monitors: [], image: '' }],
  ['flexVolume', { driver: '' }], ['cinder', { volumeID: '' }], ['cephfs', { monitors: [] }], ['flocker', {}], ['fc', {}], ['azureFile', { secretName: '', shareName: '' }],
  ['vsphereVolume', { volumePath: '' }], ['quobyte', { registry: '', volume: '' }], ['azureDisk', { diskName: '', diskURI: '' }], ['photonPersistentDisk', { pdID: '' }],
  ['portworxVolume', { volumeID: '' }], ['scaleIO', { gateway: '', system: '', secretRef: {} }], ['storageos', {}],
]
const allowedVolumeSources = ['emptyDir', 'secret', 'persistentVolumeClaim', 'downwardAPI', 'configMap', 'projected', 'csi', 'ephemeral', 'image']

const cases: Case[] = [
  // check_allowPrivilegeEscalation_test.go
  { name: 'allowPrivilegeEscalation: multiple containers', check: checkAllowPrivilegeEscalation, minor: 8,
    spec: { containers: [sc('a'), sc('b', {}), sc('c', { allowPrivilegeEscalation: true }), sc('d', { allowPrivilegeEscalation: false })] },
    reason: 'allowPrivilegeEscalation != false', detail: 'containers "a", "b", "c" must set securityContext.allowPrivilegeEscalation=false' },
  { name: 'allowPrivilegeEscalation 1.25: windows pod admitted', check: checkAllowPrivilegeEscalation, minor: 25, spec: { os: { name: 'windows' }, containers: [sc('a')] } },
  { name: 'allowPrivilegeEscalation 1.25: linux pod', check: checkAllowPrivilegeEscalation, minor: 25, spec: { os: { name: 'linux' }, containers: [sc('a')] },
    reason: 'allowPrivilegeEscalation != false', detail: 'container "a" must set securityContext.allowPrivilegeEscalation=false' },
  // check_appArmorProfile_test.go
  { name: 'appArmor: default profile + extra annotations', check: checkAppArmorProfile, minor: 0, metadata: { annotations: { [`${AA}test`]: 'runtime/default', env: 'prod' } }, spec: {} },
  { name: 'appArmor: local profile + extra annotations', check: checkAppArmorProfile, minor: 0, metadata: { annotations: { [`${AA}test`]: 'localhost/sec-profile01', env: 'dev' } }, spec: {} },
  { name: 'appArmor: pod runtime default', check: checkAppArmorProfile, minor: 0, spec: { securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } } },
  { name: 'appArmor: unconfined pod', check: checkAppArmorProfile, minor: 0, spec: { securityContext: { appArmorProfile: { type: 'Unconfined' } } },
    reason: 'forbidden AppArmor profile', detail: 'pod must not set AppArmor profile type to "Unconfined"' },
  { name: 'appArmor: unconfined container', check: checkAppArmorProfile, minor: 0,
    spec: { securityContext: { appArmorProfile: { type: 'RuntimeDefault' } }, containers: [sc('foo', { appArmorProfile: { type: 'Unconfined' } })] },
    reason: 'forbidden AppArmor profile', detail: 'container "foo" must not set AppArmor profile type to "Unconfined"' },
  { name: 'appArmor: unconfined init container', check: checkAppArmorProfile, minor: 0,
    spec: { securityContext: { appArmorProfile: { type: 'RuntimeDefault' } }, containers: [sc('foo')], initContainers: [sc('bar', { appArmorProfile: { type: 'Unconfined' } })] },
    reason: 'forbidden AppArmor profile', detail: 'container "bar" must not set AppArmor profile type to "Unconfined"' },
  { name: 'appArmor: annotations', check: checkAppArmorProfile, minor: 0,
    metadata: { annotations: { [AA]: 'bogus', [`${AA}a`]: '', [`${AA}b`]: 'runtime/default', [`${AA}c`]: 'localhost/', [`${AA}d`]: 'localhost/foo', [`${AA}e`]: 'unconfined', [`${AA}f`]: 'unknown' } },
    spec: {}, reason: 'forbidden AppArmor profiles',
    detail: `annotations must not set AppArmor profile type to "${AA}="bogus"", "${AA}e="unconfined"", "${AA}f="unknown""` },
  // check_capabilities_baseline_test.go
  { name: 'capabilities baseline: multiple containers', check: checkCapabilitiesBaseline, minor: 0, spec: { containers: [sc('a', capsAdd(['FOO', 'BAR'])), sc('b', capsAdd(['BAR', 'BAZ']))] },
    reason: 'non-default capabilities', detail: 'containers "a", "b" must not include "BAR", "BAZ", "FOO" in securityContext.capabilities.add' },
  // check_capabilities_restricted_test.go
  { name: 'capabilities restricted 1.22: multiple containers', check: checkCapabilitiesRestricted, minor: 22, spec: { containers: capsContainers }, reason: 'unrestricted capabilities', detail: CAPS_DETAIL },
  { name: 'capabilities restricted 1.25: multiple containers', check: checkCapabilitiesRestricted, minor: 25, spec: { containers: capsContainers }, reason: 'unrestricted capabilities', detail: CAPS_DETAIL },
  { name: 'capabilities restricted 1.25: windows pod admitted', check: checkCapabilitiesRestricted, minor: 25, spec: { os: { name: 'windows' }, containers: [sc('a')] } },
  { name: 'capabilities restricted 1.25: linux pod', check: checkCapabilitiesRestricted, minor: 25, spec: { os: { name: 'linux' }, containers: [sc('a')] },
    reason: 'unrestricted capabilities', detail: 'container "a" must set securityContext.capabilities.drop=["ALL"]' },
  // check_hostNamespaces_test.go
  { name: 'host namespaces', check: checkHostNamespaces, minor: 0, spec: { hostNetwork: true, hostIPC: true, hostPID: true, containers: [] },
    reason: 'host namespaces', detail: 'hostNetwork=true, hostPID=true, hostIPC=true' },
  // check_hostPathVolumes_test.go
  { name: 'hostPath volumes', check: checkHostPathVolumes, minor: 0, spec: { volumes: [{ name: 'a', hostPath: { path: '' } }, { name: 'b', hostPath: { path: '' } }, { name: 'c', emptyDir: {} }] },
    reason: 'hostPath volumes', detail: 'volumes "a", "b"' },
  // check_hostPorts_test.go
  { name: 'hostPorts: one container', check: checkHostPorts, minor: 0, spec: { containers: [{ name: 'a', ports: [{ hostPort: 0 }] }, { name: 'b', ports: [{ hostPort: 0 }, { hostPort: 20 }] }] },
    reason: 'hostPort', detail: 'container "b" uses hostPort 20' },
  { name: 'hostPorts: multiple containers', check: checkHostPorts, minor: 0,
    spec: { containers: [{ name: 'a', ports: [{ hostPort: 0 }] }, { name: 'b', ports: [{ hostPort: 0 }, { hostPort: 10 }, { hostPort: 20 }] }, { name: 'c', ports: [{ hostPort: 0 }, { hostPort: 10 }, { hostPort: 30 }] }] },
    reason: 'hostPort', detail: 'containers "b", "c" use hostPorts 10, 20, 30' },
  // check_hostProbesAndhostLifecycle_test.go
  { name: 'host probes: unset hosts', check: checkHostProbesAndHostLifecycle, minor: 34,
    spec: { containers: [{ name: 'a', livenessProbe: { httpGet: {} }, readinessProbe: { tcpSocket: {} }, lifecycle: { postStart: { httpGet: {} } } }] } },
  { name: 'host probes: local host IPs', check: checkHostProbesAndHostLifecycle, minor: 34,
    spec: { containers: [{ name: 'a', livenessProbe: { httpGet: { host: '127.0.0.1' } }, readinessProbe: { tcpSocket: { host: '::1' } }, startupProbe: { httpGet: { host: 'localhost' } } }] },
    reason: 'probe or lifecycle host', detail: 'container "a" uses probe or lifecycle hosts "127.0.0.1", "::1", "localhost"' },
  ...([
    ['a', { livenessProbe: { httpGet: { host: 'invalid.host' } } }, 'invalid.host'],
    ['b', { readinessProbe: { tcpSocket: { host: 'invalid.host' } } }, 'invalid.host'],
    ['c', { startupProbe: { httpGet: { host: 'invalid.host' } } }, 'invalid.host'],
    ['d', { lifecycle: { postStart: { tcpSocket: { host: 'invalid.host' } } } }, 'invalid.host'],
    ['e', { lifecycle: { preStop: { httpGet: { host: 'another.invalid.host' } } } }, 'another.invalid.host'],
    ['a', { livenessProbe: { httpGet: { host: '8.8.8.8' } } }, '8.8.8.8'],
    ['a', { livenessProbe: { tcpSocket: { host: '2001:4860:4860::8888' } } }, '2001:4860:4860::8888'],
  ] as [string, Obj, string][]).map(([name, fields, host]): Case => ({
    name: `host probes: ${host} in ${Object.keys(fields)[0]}`, check: checkHostProbesAndHostLifecycle, minor: 34, spec: { containers: [{ name, ...fields }] },
    reason: 'probe or lifecycle host', detail: `container "${name}" uses probe or lifecycle host "${host}"`,
  })),
  { name: 'host probes: multiple containers', check: checkHostProbesAndHostLifecycle, minor: 34,
    spec: { containers: [{ name: 'valid' }, { name: 'invalid1', livenessProbe: { httpGet: { host: 'a.com' } } }, { name: 'invalid2', lifecycle: { preStop: { tcpSocket: { host: 'b.com' } } }, startupProbe: { httpGet: { host: 'a.com' } } }] },
    reason: 'probe or lifecycle host', detail: 'containers "invalid1", "invalid2" use probe or lifecycle hosts "a.com", "b.com"' },
  { name: 'host probes: init container', check: checkHostProbesAndHostLifecycle, minor: 34, spec: { initContainers: [{ name: 'init', livenessProbe: { httpGet: { host: 'invalid.init.host' } } }] },
    reason: 'probe or lifecycle host', detail: 'container "init" uses probe or lifecycle host "invalid.init.host"' },
  // check_privileged_test.go
  { name: 'privileged', check: checkPrivileged, minor: 0, spec: { containers: [sc('a'), sc('b', {}), sc('c', { privileged: false }), sc('d', { privileged: true }), sc('e', { privileged: true })] },
    reason: 'privileged', detail: 'containers "d", "e" must not set securityContext.privileged=true' },
  // check_procMount_baseline_test.go, check_procMount_restricted_test.go
  { name: 'procMount baseline 1.35: host users', check: checkProcMountBaseline, minor: 35, spec: { containers: procMountContainers, hostUsers: true },
    reason: 'procMount', detail: 'containers "d", "e" must not set securityContext.procMount to "Unmasked", "other"' },
  { name: 'procMount baseline 1.35: user namespace', check: checkProcMountBaseline, minor: 35, spec: { containers: procMountContainers, hostUsers: false } },
  { name: 'procMount baseline 1.0: user namespace not relaxed', check: checkProcMountBaseline, minor: 0, spec: { containers: procMountContainers, hostUsers: false },
    reason: 'procMount', detail: 'containers "d", "e" must not set securityContext.procMount to "Unmasked", "other"' },
  { name: 'procMount restricted 1.35: user namespace', check: checkProcMountRestricted, minor: 35, spec: { containers: procMountContainers, hostUsers: false },
    reason: 'procMount', detail: 'containers "d", "e" must not set securityContext.procMount to "Unmasked", "other"' },
  // check_restrictedVolumes_test.go
  { name: 'restricted volumes', check: checkRestrictedVolumes, minor: 0,
    spec: { volumes: [
      ...allowedVolumeSources.map((source, i) => ({ name: `a${i + 1}`, [source]: {} })),
      ...restrictedVolumeSources.map(([source, value], i) => ({ name: `b${i + 1}`, [source]: value })),
      { name: 'c1' },
    ] },
    reason: 'restricted volume types',
    detail: 'volumes "b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9", "b10", "b11", "b12", "b13", "b14", "b15", "b16", "b17", "b18", "b19", "b20", "b21", "c1" use restricted volume types ' +
      '"awsElasticBlockStore", "azureDisk", "azureFile", "cephfs", "cinder", "fc", "flexVolume", "flocker", "gcePersistentDisk", "gitRepo", "glusterfs", ' +
      '"hostPath", "iscsi", "nfs", "photonPersistentDisk", "portworxVolume", "quobyte", "rbd", "scaleIO", "storageos", "unknown", "vsphereVolume"' },
  // check_runAsNonRoot_test.go
  { name: 'runAsNonRoot: no explicit value', check: checkRunAsNonRoot, minor: 35, spec: { containers: [sc('a')] },
    reason: 'runAsNonRoot != true', detail: 'pod or container "a" must set securityContext.runAsNonRoot=true' },
  { name: 'runAsNonRoot: pod false', check: checkRunAsNonRoot, minor: 35, spec: { securityContext: { runAsNonRoot: false }, containers: [sc('a')] },
    reason: 'runAsNonRoot != true', detail: 'pod must not set securityContext.runAsNonRoot=false' },
  { name: 'runAsNonRoot: containers false', check: checkRunAsNonRoot, minor: 35,
    spec: { securityContext: { runAsNonRoot: true }, containers: [sc('a'), sc('b', {}), sc('c', { runAsNonRoot: false }), sc('d', { runAsNonRoot: false }), sc('e', { runAsNonRoot: true }), sc('f', { runAsNonRoot: true })] },
    reason: 'runAsNonRoot != true', detail: 'containers "c", "d" must not set securityContext.runAsNonRoot=false' },
  { name: 'runAsNonRoot: pod nil, container fallthrough', check: checkRunAsNonRoot, minor: 35,
    spec: { containers: [sc('a'), sc('b', {}), sc('d', { runAsNonRoot: true }), sc('e', { runAsNonRoot: true })] },
    reason: 'runAsNonRoot != true', detail: 'pod or containers "a", "b" must set securityContext.runAsNonRoot=true' },
  { name: 'runAsNonRoot 1.35: host users false allowed', check: checkRunAsNonRoot, minor: 35, spec: { hostUsers: false } },
  // check_runAsUser_test.go
  { name: 'runAsUser: pod 0', check: checkRunAsUser, minor: 35, spec: { securityContext: { runAsUser: 0 }, containers: [sc('a')] }, reason: 'runAsUser=0', detail: 'pod must not set runAsUser=0' },
  { name: 'runAsUser: pod non-zero', check: checkRunAsUser, minor: 35, spec: { securityContext: { runAsUser: 1000 }, containers: [sc('a')] } },
  { name: 'runAsUser: pod nil', check: checkRunAsUser, minor: 35, spec: { securityContext: {}, containers: [sc('a')] } },
  { name: 'runAsUser: containers 0', check: checkRunAsUser, minor: 35,
    spec: { securityContext: { runAsUser: 1000 }, containers: [sc('a'), sc('b', {}), sc('c', { runAsUser: 0 }), sc('d', { runAsUser: 0 }), sc('e', { runAsUser: 1 }), sc('f', { runAsUser: 1 })] },
    reason: 'runAsUser=0', detail: 'containers "c", "d" must not set runAsUser=0' },
  { name: 'runAsUser: containers non-zero', check: checkRunAsUser, minor: 35, spec: { containers: [sc('c', { runAsUser: 1 }), sc('d', { runAsUser: 2 }), sc('e', { runAsUser: 3 }), sc('f', { runAsUser: 4 })] } },
  { name: 'runAsUser 1.35: host users false allowed', check: checkRunAsUser, minor: 35, spec: { hostUsers: false } },
  // check_seLinuxOptions_test.go
  { name: 'seLinux: invalid pod and containers', check: checkSELinuxOptions, minor: 31,
    spec: { securityContext: { seLinuxOptions: { type: 'foo', user: 'bar', role: 'baz' } }, containers: [...seLinuxOk, ...seLinuxBad] },
    reason: 'seLinuxOptions', detail: 'pod and containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: types "bar", "foo"; user may not be set; role may not be set' },
  { name: 'seLinux: invalid pod', check: checkSELinuxOptions, minor: 31,
    spec: { securityContext: { seLinuxOptions: { type: 'foo', user: 'bar', role: 'baz' } }, containers: seLinuxOk },
    reason: 'seLinuxOptions', detail: 'pod set forbidden securityContext.seLinuxOptions: type "foo"; user may not be set; role may not be set' },
  { name: 'seLinux: invalid containers', check: checkSELinuxOptions, minor: 31,
    spec: { securityContext: { seLinuxOptions: {} }, containers: [...seLinuxOk, ...seLinuxBad] },
    reason: 'seLinuxOptions', detail: 'containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: type "bar"; user may not be set; role may not be set' },
  { name: 'seLinux: bad type', check: checkSELinuxOptions, minor: 31, spec: { securityContext: { seLinuxOptions: { type: 'bad' } } },
    reason: 'seLinuxOptions', detail: 'pod set forbidden securityContext.seLinuxOptions: type "bad"' },
  { name: 'seLinux: bad user', check: checkSELinuxOptions, minor: 31, spec: { securityContext: { seLinuxOptions: { user: 'bad' } } },
    reason: 'seLinuxOptions', detail: 'pod set forbidden securityContext.seLinuxOptions: user may not be set' },
  { name: 'seLinux: bad role', check: checkSELinuxOptions, minor: 31, spec: { securityContext: { seLinuxOptions: { role: 'bad' } } },
    reason: 'seLinuxOptions', detail: 'pod set forbidden securityContext.seLinuxOptions: role may not be set' },
  { name: 'seLinux 1.0: container_engine_t not yet allowed', check: checkSELinuxOptions, minor: 0, spec: { containers: [sc('d', { seLinuxOptions: { type: 'container_engine_t' } })] },
    reason: 'seLinuxOptions', detail: 'container "d" set forbidden securityContext.seLinuxOptions: type "container_engine_t"' },
  // check_seccompProfile_baseline_test.go
  { name: 'seccomp baseline 1.0: pod annotation', check: checkSeccompProfileBaseline, minor: 0, metadata: { annotations: { [SA]: 'unconfined' } }, spec: {},
    reason: 'seccompProfile', detail: `forbidden annotation ${SA}="unconfined"` },
  { name: 'seccomp baseline 1.0: container annotations', check: checkSeccompProfileBaseline, minor: 0,
    metadata: { annotations: { [`${SCP}a`]: 'unconfined', [`${SCP}b`]: 'unknown' } }, spec: { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] },
    reason: 'seccompProfile', detail: `forbidden annotations ${SCP}a="unconfined", ${SCP}b="unknown"` },
  { name: 'seccomp baseline 1.0: pod and container annotations', check: checkSeccompProfileBaseline, minor: 0,
    metadata: { annotations: { [SA]: 'unconfined', [`${SCP}a`]: 'unconfined', [`${SCP}b`]: 'unknown' } }, spec: { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] },
    reason: 'seccompProfile', detail: `forbidden annotations ${SCP}a="unconfined", ${SCP}b="unknown", ${SA}="unconfined"` },
  { name: 'seccomp baseline 1.19: pod', check: checkSeccompProfileBaseline, minor: 19, spec: { securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [sc('a')] },
    reason: 'seccompProfile', detail: 'pod must not set securityContext.seccompProfile.type to "Unconfined"' },
  { name: 'seccomp baseline 1.19: containers', check: checkSeccompProfileBaseline, minor: 19, spec: seccompContainers(),
    reason: 'seccompProfile', detail: 'containers "c", "d" must not set securityContext.seccompProfile.type to "Unconfined"' },
  { name: 'seccomp baseline 1.19: pod and containers', check: checkSeccompProfileBaseline, minor: 19, spec: { ...seccompContainers(), securityContext: { seccompProfile: { type: 'Unconfined' } } },
    reason: 'seccompProfile', detail: 'pod and containers "c", "d" must not set securityContext.seccompProfile.type to "Unconfined"' },
  // check_seccompProfile_restricted_test.go
  ...[19, 25].flatMap((minor): Case[] => [
    { name: `seccomp restricted 1.${minor}: no explicit seccomp`, check: checkSeccompProfileRestricted, minor, spec: { containers: [sc('a')] },
      reason: 'seccompProfile', detail: 'pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"' },
    { name: `seccomp restricted 1.${minor}: pod invalid`, check: checkSeccompProfileRestricted, minor, spec: { securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [sc('a')] },
      reason: 'seccompProfile', detail: 'pod must not set securityContext.seccompProfile.type to "Unconfined"' },
    { name: `seccomp restricted 1.${minor}: containers invalid`, check: checkSeccompProfileRestricted, minor, spec: seccompContainers(),
      reason: 'seccompProfile', detail: 'containers "c", "d" must not set securityContext.seccompProfile.type to "Unconfined"' },
    { name: `seccomp restricted 1.${minor}: pod nil, container fallthrough`, check: checkSeccompProfileRestricted, minor, spec: seccompFallthrough,
      reason: 'seccompProfile', detail: 'pod or containers "a", "b" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"' },
  ]),
  { name: 'seccomp restricted 1.25: windows pod admitted', check: checkSeccompProfileRestricted, minor: 25, spec: { os: { name: 'windows' }, containers: [sc('a')] } },
  { name: 'seccomp restricted 1.19: windows pod not exempt yet', check: checkSeccompProfileRestricted, minor: 19, spec: { os: { name: 'windows' }, containers: [sc('a')] },
    reason: 'seccompProfile', detail: 'pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"' },
  // check_windowsHostProcess_test.go
  { name: 'windows hostProcess', check: checkWindowsHostProcess, minor: 0,
    spec: { securityContext: { windowsOptions: { hostProcess: true } }, containers: [sc('a'), sc('b', {}), sc('c', { windowsOptions: {} }), sc('d', { windowsOptions: { hostProcess: false } }), sc('e', { windowsOptions: { hostProcess: true } }), sc('f', { windowsOptions: { hostProcess: true } })] },
    reason: 'hostProcess', detail: 'pod and containers "e", "f" must not set securityContext.windowsOptions.hostProcess=true' },
]

describe('PodSecurity: each check against the reference tables', () => {
  for (const c of cases) {
    it(c.name, () => {
      const result = revision(c.check, c.minor)({ metadata: c.metadata ?? {}, spec: c.spec })
      if (c.reason === undefined) {
        assert.equal(result.allowed, true, `expected allowed, got ${result.forbiddenReason}: ${result.forbiddenDetail}`)
        return
      }
      assert.equal(result.allowed, false)
      assert.equal(result.forbiddenReason, c.reason)
      assert.equal(result.forbiddenDetail, c.detail)
    })
  }
})
