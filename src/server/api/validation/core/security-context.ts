/**
 * Security contexts (pkg/apis/core/validation: ValidateSecurityContext,
 * validatePodSpecSecurityContext, validateSeccompProfileField, ValidateAppArmorProfileField,
 * validateSysctls, validateWindowsSecurityContextOptions).
 */
import { privilegedAllowed } from '../../kinds/capabilities.js'
import { type ErrorList, type Path, Rendered, duplicate, forbidden, invalid, notSupported, required, tooLong } from '../field/index.js'
import { type Obj, arr, obj, str } from '../helpers.js'
import { isDNS1123Subdomain, isValidGroupID, isValidUserID } from '../strings.js'
import { validateLocalDescendingPath } from './paths.js'

const has = (o: Obj, k: string) => o[k] !== undefined && o[k] !== null

export function validateSeccompProfileField(sp: unknown, fldPath: Path): ErrorList {
  if (sp === undefined || sp === null) return []
  const p = obj(sp)
  const errs: ErrorList = []
  const type = str(p.type)
  if (type === '') errs.push(required(fldPath.child('type'), 'type is required when seccompProfile is set'))
  else if (!['Localhost', 'RuntimeDefault', 'Unconfined'].includes(type)) errs.push(notSupported(fldPath.child('type'), type, ['Localhost', 'RuntimeDefault', 'Unconfined']))
  if (type === 'Localhost') {
    if (!has(p, 'localhostProfile')) errs.push(required(fldPath.child('localhostProfile'), 'must be set when seccomp type is Localhost'))
    else errs.push(...validateLocalDescendingPath(str(p.localhostProfile), fldPath.child('localhostProfile')))
  } else if (has(p, 'localhostProfile')) {
    errs.push(invalid(fldPath.child('localhostProfile'), new Rendered(`{"Type":${JSON.stringify(type)},"LocalhostProfile":${JSON.stringify(str(p.localhostProfile))}}`), 'can only be set when seccomp type is Localhost'))
  }
  return errs
}

export function validateAppArmorProfileField(profile: unknown, fldPath: Path): ErrorList {
  if (profile === undefined || profile === null) return []
  const p = obj(profile)
  const errs: ErrorList = []
  const type = str(p.type)
  switch (type) {
    case 'Localhost': {
      if (!has(p, 'localhostProfile')) errs.push(required(fldPath.child('localhostProfile'), 'must be set when AppArmor type is Localhost'))
      else {
        const lp = str(p.localhostProfile)
        if (lp.trim() !== lp) errs.push(invalid(fldPath.child('localhostProfile'), lp, 'must not be padded with whitespace'))
        else if (lp === '') errs.push(required(fldPath.child('localhostProfile'), 'must be set when AppArmor type is Localhost'))
        if (Buffer.byteLength(lp) > 4095) errs.push(tooLong(fldPath.child('localhostProfile'), 4095))
      }
      break
    }
    case 'RuntimeDefault':
    case 'Unconfined':
      if (has(p, 'localhostProfile')) errs.push(invalid(fldPath.child('localhostProfile'), str(p.localhostProfile), 'can only be set when AppArmor type is Localhost'))
      break
    case '':
      errs.push(required(fldPath.child('type'), 'type is required when appArmorProfile is set'))
      break
    default:
      errs.push(notSupported(fldPath.child('type'), type, ['Localhost', 'RuntimeDefault', 'Unconfined']))
  }
  return errs
}

const MAX_GMSA_CREDENTIAL_SPEC_LENGTH = 64 * 1024
const MAX_RUN_AS_USER_NAME_DOMAIN_LENGTH = 256
const MAX_RUN_AS_USER_NAME_USER_LENGTH = 104

function validateWindowsSecurityContextOptions(options: unknown, fldPath: Path): ErrorList {
  if (options === undefined || options === null) return []
  const o = obj(options)
  const errs: ErrorList = []
  if (has(o, 'gmsaCredentialSpecName')) {
    const name = str(o.gmsaCredentialSpecName)
    for (const m of isDNS1123Subdomain(name)) errs.push(invalid(fldPath.child('gmsaCredentialSpecName'), name, m))
  }
  if (has(o, 'gmsaCredentialSpec')) {
    const spec = str(o.gmsaCredentialSpec)
    if (spec.length === 0) errs.push(invalid(fldPath.child('gmsaCredentialSpec'), '', 'gmsaCredentialSpec cannot be an empty string'))
    else if (Buffer.byteLength(spec) > MAX_GMSA_CREDENTIAL_SPEC_LENGTH) {
      errs.push(invalid(fldPath.child('gmsaCredentialSpec'), '', `gmsaCredentialSpec size must be under ${MAX_GMSA_CREDENTIAL_SPEC_LENGTH / 1024} KiB`))
    }
  }
  if (has(o, 'runAsUserName')) {
    const name = str(o.runAsUserName)
    const p = fldPath.child('runAsUserName')
    if (name.length === 0) errs.push(invalid(p, name, 'runAsUserName cannot be an empty string'))
    else if (/[\x00-\x1f\x7f]/.test(name)) errs.push(invalid(p, name, 'runAsUserName cannot contain control characters'))
    else {
      const parts = name.split('\\')
      if (parts.length > 2) errs.push(invalid(p, name, 'runAsUserName cannot contain more than one backslash'))
      else {
        const [domain, user] = parts.length === 2 ? [parts[0]!, parts[1]!] : ['', parts[0]!]
        if (domain.length > MAX_RUN_AS_USER_NAME_DOMAIN_LENGTH) errs.push(invalid(p, name, `runAsUserName's Domain length must be under ${MAX_RUN_AS_USER_NAME_DOMAIN_LENGTH} characters`))
        if (user.length === 0) errs.push(invalid(p, name, "runAsUserName's User cannot be empty"))
        else if (user.length > MAX_RUN_AS_USER_NAME_USER_LENGTH) errs.push(invalid(p, name, `runAsUserName's User length must not be longer than ${MAX_RUN_AS_USER_NAME_USER_LENGTH} characters`))
      }
    }
  }
  return errs
}

const PROC_MOUNT_TYPES = ['Default', 'Unmasked']

/** ValidateSecurityContext (a container's). */
export function validateSecurityContext(sc: unknown, fldPath: Path, hostUsers: boolean): ErrorList {
  if (sc === undefined || sc === null) return []
  const s = obj(sc)
  const errs: ErrorList = []
  if (s.privileged === true && !privilegedAllowed()) errs.push(forbidden(fldPath.child('privileged'), 'disallowed by cluster policy'))
  if (typeof s.runAsUser === 'number') for (const m of isValidUserID(s.runAsUser)) errs.push(invalid(fldPath.child('runAsUser'), s.runAsUser, m))
  if (typeof s.runAsGroup === 'number') for (const m of isValidGroupID(s.runAsGroup)) errs.push(invalid(fldPath.child('runAsGroup'), s.runAsGroup, m))
  if (has(s, 'procMount')) {
    const pm = str(s.procMount)
    if (!PROC_MOUNT_TYPES.includes(pm)) errs.push(notSupported(fldPath.child('procMount'), pm, PROC_MOUNT_TYPES))
    if (hostUsers && pm === 'Unmasked') errs.push(invalid(fldPath.child('procMount'), pm, '`hostUsers` must be false to use `Unmasked`'))
  }
  errs.push(...validateSeccompProfileField(s.seccompProfile, fldPath.child('seccompProfile')))
  if (s.allowPrivilegeEscalation === false) {
    if (s.privileged === true) errs.push(invalid(fldPath, securityContextValue(s), 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'))
    for (const cap of arr(obj(s.capabilities).add)) {
      if (str(cap) === 'CAP_SYS_ADMIN') errs.push(invalid(fldPath, securityContextValue(s), 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'))
    }
  }
  errs.push(...validateWindowsSecurityContextOptions(s.windowsOptions, fldPath.child('windowsOptions')))
  errs.push(...validateAppArmorProfileField(s.appArmorProfile, fldPath.child('appArmorProfile')))
  return errs
}

/** The internal SecurityContext as the reference's json.Marshal prints it (Go field names). */
function securityContextValue(s: Obj): Rendered {
  const ptr = (v: unknown) => (v === undefined || v === null ? 'null' : JSON.stringify(v))
  const caps = has(s, 'capabilities') ? `{"Add":${ptr(obj(s.capabilities).add ?? null)},"Drop":${ptr(obj(s.capabilities).drop ?? null)}}` : 'null'
  return new Rendered(
    `{"Capabilities":${caps},"Privileged":${ptr(s.privileged)},"SELinuxOptions":null,"WindowsOptions":null,"RunAsUser":${ptr(s.runAsUser)},"RunAsGroup":${ptr(s.runAsGroup)},"RunAsNonRoot":${ptr(s.runAsNonRoot)},"ReadOnlyRootFilesystem":${ptr(s.readOnlyRootFilesystem)},"AllowPrivilegeEscalation":${ptr(s.allowPrivilegeEscalation)},"ProcMount":${ptr(s.procMount)},"SeccompProfile":null,"AppArmorProfile":null}`,
  )
}

const SYSCTL_SEGMENT_FMT = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?'
const SYSCTL_FMT = `(${SYSCTL_SEGMENT_FMT}[\\./])*${SYSCTL_SEGMENT_FMT}`
const SYSCTL_RE = new RegExp(`^${SYSCTL_FMT}$`)

/** The namespace a sysctl belongs to (component-helpers' sysctl.GetNamespace). */
function sysctlNamespace(name: string): 'net' | 'ipc' | '' {
  const n = name.replace(/\//g, '.')
  if (n.startsWith('net.')) return 'net'
  if (n.startsWith('kernel.shm') || n.startsWith('kernel.msg') || n.startsWith('kernel.sem') || n.startsWith('fs.mqueue.')) return 'ipc'
  return ''
}

function validateSysctls(sc: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const names = new Set<string>()
  arr(sc.sysctls).forEach((x, i) => {
    const name = str(obj(x).name)
    const p = fldPath.index(i).child('name')
    if (!name) errs.push(required(p))
    else if (name.length > 253 || !SYSCTL_RE.test(name)) errs.push(invalid(p, name, `must have at most 253 characters and match regex ^${SYSCTL_FMT}$`))
    else if (names.has(name)) errs.push(duplicate(p, name))
    const ns = sysctlNamespace(name)
    if (sc.hostNetwork === true && ns === 'net') errs.push(invalid(p, name, "may not be specified when 'hostNetwork' is true"))
    else if (sc.hostIPC === true && ns === 'ipc') errs.push(invalid(p, name, "may not be specified when 'hostIPC' is true"))
    names.add(name)
  })
  return errs
}

/**
 * validatePodSpecSecurityContext. `sc` is the pod's securityContext with the internal form's
 * host namespaces (hostNetwork, hostPID, hostIPC) folded in from the spec.
 */
export function validatePodSecurityContext(sc: Obj | undefined, fldPath: Path): ErrorList {
  if (!sc) return []
  const errs: ErrorList = []
  if (typeof sc.fsGroup === 'number') for (const m of isValidGroupID(sc.fsGroup)) errs.push(invalid(fldPath.child('fsGroup'), sc.fsGroup, m))
  if (typeof sc.runAsUser === 'number') for (const m of isValidUserID(sc.runAsUser)) errs.push(invalid(fldPath.child('runAsUser'), sc.runAsUser, m))
  if (typeof sc.runAsGroup === 'number') for (const m of isValidGroupID(sc.runAsGroup)) errs.push(invalid(fldPath.child('runAsGroup'), sc.runAsGroup, m))
  arr(sc.supplementalGroups).forEach((g, i) => {
    if (typeof g === 'number') for (const m of isValidGroupID(g)) errs.push(invalid(fldPath.child('supplementalGroups').index(i), g, m))
  })
  if (sc.shareProcessNamespace === true && sc.hostPID === true) errs.push(invalid(fldPath.child('shareProcessNamespace'), true, 'ShareProcessNamespace and HostPID cannot both be enabled'))
  if (arr(sc.sysctls).length > 0) errs.push(...validateSysctls(sc, fldPath.child('sysctls')))
  if (has(sc, 'fsGroupChangePolicy') && !['Always', 'OnRootMismatch'].includes(str(sc.fsGroupChangePolicy))) {
    errs.push(notSupported(fldPath.child('fsGroupChangePolicy'), str(sc.fsGroupChangePolicy), ['Always', 'OnRootMismatch']))
  }
  errs.push(...validateSeccompProfileField(sc.seccompProfile, fldPath.child('seccompProfile')))
  errs.push(...validateWindowsSecurityContextOptions(sc.windowsOptions, fldPath.child('windowsOptions')))
  errs.push(...validateAppArmorProfileField(sc.appArmorProfile, fldPath.child('appArmorProfile')))
  if (has(sc, 'supplementalGroupsPolicy') && !['Merge', 'Strict'].includes(str(sc.supplementalGroupsPolicy))) {
    errs.push(notSupported(fldPath.child('supplementalGroupsPolicy'), str(sc.supplementalGroupsPolicy), ['Merge', 'Strict']))
  }
  if (has(sc, 'seLinuxChangePolicy') && !['MountOption', 'Recursive'].includes(str(sc.seLinuxChangePolicy))) {
    errs.push(notSupported(fldPath.child('seLinuxChangePolicy'), str(sc.seLinuxChangePolicy), ['MountOption', 'Recursive']))
  }
  return errs
}
