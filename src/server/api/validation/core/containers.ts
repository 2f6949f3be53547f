/**
 * Containers (pkg/apis/core/validation: validateContainers, validateInitContainers,
 * validateEphemeralContainers, validateContainerCommon): names, images, ports, env, mounts,
 * devices, pull policy, resources, resize policy, probes and lifecycle handlers, security
 * context, host port conflicts.
 */
import { type ErrorList, type Path, duplicate, forbidden, invalid, notFound, notSupported, required } from '../field/index.js'
import { type Obj, arr, obj, str } from '../helpers.js'
import { validateNonnegativeField } from '../objectmeta.js'
import { isHTTPHeaderName, isValidPortName, isValidPortNum } from '../strings.js'
import { validateDNS1123Label, validatePortNumOrName } from './common.js'
import { validateEnv, validateEnvFrom } from './env.js'
import { validateLocalDescendingPath, validatePathNoBacksteps } from './paths.js'
import { validateContainerResourceRequirements } from './resources.js'
import { validateSecurityContext } from './security-context.js'
import type { VolumeMap } from './volumes.js'

const has = (o: Obj, k: string) => o[k] !== undefined && o[k] !== null
// The lists the checks below consult, made once (an array literal in a function is a new array
// per call, and validation runs on every write).
const PROTOCOLS = ['SCTP', 'TCP', 'UDP']
const MOUNT_PROPAGATIONS = ['Bidirectional', 'HostToContainer', 'None']
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never']
const HANDLER_KINDS = ['exec', 'httpGet', 'tcpSocket', 'grpc', 'sleep']
const PROBE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc']
const LIFECYCLE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'sleep']
const HTTP_SCHEMES = ['HTTP', 'HTTPS']
const PROBE_COUNTS = ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']
const PROBES = ['livenessProbe', 'readinessProbe', 'startupProbe']
const LIFECYCLE_HOOKS = ['postStart', 'preStop']
const INIT_FORBIDDEN = ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']
/** What a container without mounts or devices has: nothing to look up (read only). */
const NO_PATHS: ReadonlyMap<string, string> = new Map()

/** Whether some entry of the map has the value (without copying the values out). */
function hasValue(map: ReadonlyMap<string, string>, value: string): boolean {
  for (const v of map.values()) if (v === value) return true
  return false
}

/** Name to path of a container's mounts or devices (pathField the entries' path field). */
function pathsByName(list: unknown, pathField: string): ReadonlyMap<string, string> {
  const entries = arr(list)
  if (entries.length === 0) return NO_PATHS
  const out = new Map<string, string>()
  for (const e of entries) out.set(str(obj(e).name), str(obj(e)[pathField]))
  return out
}

export interface ContainerContext {
  volumes: VolumeMap
  podClaimNames: ReadonlySet<string>
  /** The pod's terminationGracePeriodSeconds (undefined when unset). */
  gracePeriod: number | undefined
  restartPolicy: string
  hostUsers: boolean
}

function validateContainerPorts(ports: unknown, fldPath: Path): ErrorList {
  const list = arr(ports)
  if (list.length === 0) return []
  const errs: ErrorList = []
  const names = new Set<string>()
  for (let i = 0; i < list.length; i++) {
    const port = obj(list[i])
    const idx = fldPath.index(i)
    const name = str(port.name)
    if (name) {
      const msgs = isValidPortName(name)
      if (msgs.length > 0) for (const m of msgs) errs.push(invalid(idx.child('name'), name, m))
      else if (names.has(name)) errs.push(duplicate(idx.child('name'), name))
      else names.add(name)
    }
    const containerPort = typeof port.containerPort === 'number' ? port.containerPort : 0
    if (containerPort === 0) errs.push(required(idx.child('containerPort')))
    else for (const m of isValidPortNum(containerPort)) errs.push(invalid(idx.child('containerPort'), containerPort, m))
    const hostPort = typeof port.hostPort === 'number' ? port.hostPort : 0
    if (hostPort !== 0) for (const m of isValidPortNum(hostPort)) errs.push(invalid(idx.child('hostPort'), hostPort, m))
    const protocol = str(port.protocol)
    if (!protocol) errs.push(required(idx.child('protocol')))
    else if (!PROTOCOLS.includes(protocol)) errs.push(notSupported(idx.child('protocol'), protocol, PROTOCOLS))
  }
  return errs
}

function validateVolumeMounts(mounts: unknown, devices: ReadonlyMap<string, string>, volumes: VolumeMap, container: Obj, fldPath: Path): ErrorList {
  const list = arr(mounts)
  if (list.length === 0) return []
  const errs: ErrorList = []
  const mountpoints = new Set<string>()
  for (let i = 0; i < list.length; i++) {
    const mnt = obj(list[i])
    const idx = fldPath.index(i)
    const name = str(mnt.name)
    const mountPath = str(mnt.mountPath)
    if (!name) errs.push(required(idx.child('name')))
    if (!volumes.has(name)) errs.push(notFound(idx.child('name'), name))
    if (!mountPath) errs.push(required(idx.child('mountPath')))
    if (mountpoints.has(mountPath)) errs.push(invalid(idx.child('mountPath'), mountPath, 'must be unique'))
    mountpoints.add(mountPath)
    if (devices.has(name)) errs.push(invalid(idx.child('name'), name, 'must not already exist in volumeDevices'))
    if (hasValue(devices, mountPath)) errs.push(invalid(idx.child('mountPath'), mountPath, 'must not already exist as a path in volumeDevices'))
    const subPath = str(mnt.subPath)
    const subPathExpr = str(mnt.subPathExpr)
    if (has(obj(volumes.get(name)), 'image')) {
      if (subPath) errs.push(invalid(idx.child('subPath'), subPath, 'not allowed in image volume sources'))
      if (subPathExpr) errs.push(invalid(idx.child('subPathExpr'), subPathExpr, 'not allowed in image volume sources'))
    }
    // The reference reports these two at the list's path, not the mount's.
    if (subPath) errs.push(...validateLocalDescendingPath(subPath, fldPath.child('subPath')))
    if (subPathExpr) {
      if (subPath) errs.push(invalid(idx.child('subPathExpr'), subPathExpr, 'subPathExpr and subPath are mutually exclusive'))
      errs.push(...validateLocalDescendingPath(subPathExpr, fldPath.child('subPathExpr')))
    }
    if (has(mnt, 'mountPropagation')) {
      const mp = str(mnt.mountPropagation)
      const p = fldPath.child('mountPropagation')
      if (!MOUNT_PROPAGATIONS.includes(mp)) errs.push(notSupported(p, mp, MOUNT_PROPAGATIONS))
      if (mp === 'Bidirectional' && obj(container.securityContext).privileged !== true) {
        errs.push(forbidden(p, 'Bidirectional mount propagation is available only to privileged containers'))
      }
    }
    if (has(mnt, 'recursiveReadOnly')) {
      const rro = str(mnt.recursiveReadOnly)
      const p = fldPath.child('recursiveReadOnly')
      if (rro === 'Enabled' || rro === 'IfPossible') {
        if (mnt.readOnly !== true) errs.push(forbidden(p, 'may only be specified when readOnly is true'))
        if (has(mnt, 'mountPropagation') && str(mnt.mountPropagation) !== 'None') errs.push(forbidden(p, 'may only be specified when mountPropagation is None or not specified'))
      } else if (rro !== 'Disabled') errs.push(notSupported(p, rro, ['Disabled', 'Enabled', 'IfPossible']))
    }
  }
  return errs
}

function validateVolumeDevices(devices: unknown, mounts: ReadonlyMap<string, string>, volumes: VolumeMap, fldPath: Path): ErrorList {
  const list = arr(devices)
  if (list.length === 0) return []
  const errs: ErrorList = []
  const paths = new Set<string>()
  const names = new Set<string>()
  list.forEach((x, i) => {
    const dev = obj(x)
    const idx = fldPath.index(i)
    const name = str(dev.name)
    const devPath = str(dev.devicePath)
    const vol = volumes.get(name)
    const isPVC = vol !== undefined && (has(vol, 'persistentVolumeClaim') || has(vol, 'ephemeral'))
    if (!name) errs.push(required(idx.child('name')))
    if (names.has(name)) errs.push(invalid(idx.child('name'), name, 'must be unique'))
    if (vol !== undefined && !isPVC) errs.push(invalid(idx.child('name'), name, 'can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode'))
    if (vol === undefined) errs.push(notFound(idx.child('name'), name))
    if (!devPath) errs.push(required(idx.child('devicePath')))
    if (paths.has(devPath)) errs.push(invalid(idx.child('devicePath'), devPath, 'must be unique'))
    if (devPath && validatePathNoBacksteps(devPath, fldPath.child('devicePath')).length > 0) errs.push(invalid(idx.child('devicePath'), devPath, "can not contain backsteps ('..')"))
    else paths.add(devPath)
    if (mounts.has(name)) errs.push(invalid(idx.child('name'), name, 'must not already exist in volumeMounts'))
    if (hasValue(mounts, devPath)) errs.push(invalid(idx.child('devicePath'), devPath, 'must not already exist as a path in volumeMounts'))
    if (name) names.add(name)
  })
  return errs
}

function validatePullPolicy(policy: string, fldPath: Path): ErrorList {
  if (PULL_POLICIES.includes(policy)) return []
  if (policy === '') return [required(fldPath)]
  return [notSupported(fldPath, policy, PULL_POLICIES)]
}

function validateResizePolicy(list: unknown, fldPath: Path, podRestartPolicy: string): ErrorList {
  const entries = arr(list)
  if (entries.length === 0) return []
  const errs: ErrorList = []
  const seen = new Set<string>()
  entries.forEach((x, i) => {
    const p = obj(x)
    const resourceName = str(p.resourceName)
    const restartPolicy = str(p.restartPolicy)
    if (seen.has(resourceName)) errs.push(duplicate(fldPath.index(i), resourceName))
    seen.add(resourceName)
    if (resourceName === '') errs.push(required(fldPath))
    else if (resourceName !== 'cpu' && resourceName !== 'memory') errs.push(notSupported(fldPath, resourceName, ['cpu', 'memory']))
    if (restartPolicy === '') errs.push(required(fldPath))
    else if (restartPolicy !== 'NotRequired' && restartPolicy !== 'RestartContainer') errs.push(notSupported(fldPath, restartPolicy, ['NotRequired', 'RestartContainer']))
    if (podRestartPolicy === 'Never' && restartPolicy !== 'NotRequired') errs.push(invalid(fldPath, restartPolicy, "must be 'NotRequired' when `restartPolicy` is 'Never'"))
  })
  return errs
}

/** validateContainerCommon. */
function validateContainerCommon(c: Obj, ctx: ContainerContext, path: Path): ErrorList {
  const errs: ErrorList = []
  const name = str(c.name)
  if (!name) errs.push(required(path.child('name')))
  else errs.push(...validateDNS1123Label(name, path.child('name')))
  if (!str(c.image)) errs.push(required(path.child('image')))
  const tmp = str(c.terminationMessagePolicy)
  if (tmp === '') errs.push(required(path.child('terminationMessagePolicy')))
  else if (tmp !== 'File' && tmp !== 'FallbackToLogsOnError') errs.push(notSupported(path.child('terminationMessagePolicy'), tmp, ['File', 'FallbackToLogsOnError']))
  // Each list is checked against the other's names and paths (devices are rare: the mounts'
  // map is made only for them).
  const devices = pathsByName(c.volumeDevices, 'devicePath')
  errs.push(...validateContainerPorts(c.ports, path.child('ports')))
  errs.push(...validateEnv(c.env, path.child('env')))
  errs.push(...validateEnvFrom(c.envFrom, path.child('envFrom')))
  errs.push(...validateVolumeMounts(c.volumeMounts, devices, ctx.volumes, c, path.child('volumeMounts')))
  if (devices.size > 0) errs.push(...validateVolumeDevices(c.volumeDevices, pathsByName(c.volumeMounts, 'mountPath'), ctx.volumes, path.child('volumeDevices')))
  errs.push(...validatePullPolicy(str(c.imagePullPolicy), path.child('imagePullPolicy')))
  errs.push(...validateContainerResourceRequirements(c.resources, ctx.podClaimNames, path.child('resources')))
  errs.push(...validateResizePolicy(c.resizePolicy, path.child('resizePolicy'), ctx.restartPolicy))
  errs.push(...validateSecurityContext(c.securityContext, path.child('securityContext'), ctx.hostUsers))
  return errs
}

// ---- probes and handlers ----

function validateHandler(handler: Obj, kinds: readonly string[], gracePeriod: number | undefined, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  let numHandlers = 0
  for (const kind of HANDLER_KINDS) {
    if (!kinds.includes(kind) || !has(handler, kind)) continue
    if (numHandlers > 0) {
      errs.push(forbidden(fldPath.child(kind), 'may not specify more than 1 handler type'))
      continue
    }
    numHandlers++
    const h = obj(handler[kind])
    const p = fldPath.child(kind)
    switch (kind) {
      case 'exec':
        if (arr(h.command).length === 0) errs.push(required(p.child('command')))
        break
      case 'httpGet':
        if (!str(h.path)) errs.push(required(p.child('path')))
        errs.push(...validatePortNumOrName(h.port, p.child('port')))
        if (!HTTP_SCHEMES.includes(str(h.scheme))) errs.push(notSupported(p.child('scheme'), str(h.scheme), HTTP_SCHEMES))
        for (const header of arr(h.httpHeaders)) for (const m of isHTTPHeaderName(str(obj(header).name))) errs.push(invalid(p.child('httpHeaders'), str(obj(header).name), m))
        break
      case 'tcpSocket':
        errs.push(...validatePortNumOrName(h.port, p.child('port')))
        break
      case 'grpc':
        errs.push(...validatePortNumOrName(typeof h.port === 'number' ? h.port : 0, p.child('port')))
        break
      case 'sleep': {
        // PodLifecycleSleepActionAllowZero (on by default since 1.33).
        const seconds = typeof h.seconds === 'number' ? h.seconds : 0
        if (gracePeriod !== undefined && (seconds < 0 || seconds > gracePeriod)) {
          errs.push(invalid(p, seconds, `must be non-negative and less than terminationGracePeriodSeconds (${gracePeriod})`))
        }
        break
      }
    }
  }
  if (numHandlers === 0) errs.push(required(fldPath, 'must specify a handler type'))
  return errs
}

function validateProbe(probe: Obj, gracePeriod: number | undefined, fldPath: Path): ErrorList {
  const errs = validateHandler(probe, PROBE_HANDLERS, gracePeriod, fldPath)
  for (let i = 0; i < PROBE_COUNTS.length; i++) {
    const f = PROBE_COUNTS[i]!
    const value = probe[f]
    // Only a negative count is an error: the list of one is made for it alone.
    if (typeof value === 'number' && value < 0) errs.push(...validateNonnegativeField(value, fldPath.child(f)))
  }
  if (typeof probe.terminationGracePeriodSeconds === 'number' && probe.terminationGracePeriodSeconds <= 0) {
    errs.push(invalid(fldPath.child('terminationGracePeriodSeconds'), probe.terminationGracePeriodSeconds, 'must be greater than 0'))
  }
  return errs
}

function validateProbes(c: Obj, gracePeriod: number | undefined, path: Path): ErrorList {
  const errs: ErrorList = []
  for (const kind of PROBES) {
    if (!has(c, kind)) continue
    const probe = obj(c[kind])
    const p = path.child(kind)
    errs.push(...validateProbe(probe, gracePeriod, p))
    if (kind !== 'readinessProbe' && (typeof probe.successThreshold === 'number' ? probe.successThreshold : 0) !== 1) {
      errs.push(invalid(p.child('successThreshold'), typeof probe.successThreshold === 'number' ? probe.successThreshold : 0, 'must be 1'))
    }
    if (kind === 'readinessProbe' && has(probe, 'terminationGracePeriodSeconds')) {
      errs.push(invalid(p.child('terminationGracePeriodSeconds'), probe.terminationGracePeriodSeconds, 'must not be set for readinessProbes'))
    }
  }
  return errs
}

function validateLifecycle(lifecycle: Obj, gracePeriod: number | undefined, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  for (const hook of LIFECYCLE_HOOKS) {
    if (has(lifecycle, hook)) errs.push(...validateHandler(obj(lifecycle[hook]), LIFECYCLE_HANDLERS, gracePeriod, fldPath.child(hook)))
  }
  return errs
}

/** AccumulateUniqueHostPorts / checkHostPortConflicts. */
function checkHostPortConflicts(containers: Obj[], fldPath: Path): ErrorList {
  const errs: ErrorList = []
  // Host ports are rare: the set is made for the first one.
  let seen: Set<string> | undefined
  for (let ci = 0; ci < containers.length; ci++) {
    const ports = arr(containers[ci]!.ports)
    for (let pi = 0; pi < ports.length; pi++) {
      const port = obj(ports[pi])
      const hostPort = typeof port.hostPort === 'number' ? port.hostPort : 0
      if (hostPort === 0) continue
      const key = `${str(port.protocol)}/${str(port.hostIP)}/${hostPort}`
      if (seen?.has(key) === true) errs.push(duplicate(fldPath.index(ci).child('ports').index(pi).child('hostPort'), key))
      else (seen ??= new Set()).add(key)
    }
  }
  return errs
}

/** validateContainers: at least one, names unique. */
export function validateContainers(list: unknown, ctx: ContainerContext, fldPath: Path): ErrorList {
  const containers = arr(list).map(obj)
  if (containers.length === 0) return [required(fldPath)]
  const errs: ErrorList = []
  const names = new Set<string>()
  for (let i = 0; i < containers.length; i++) {
    const c = containers[i]!
    const path = fldPath.index(i)
    errs.push(...validateContainerCommon(c, ctx, path))
    const name = str(c.name)
    if (names.has(name)) errs.push(duplicate(path.child('name'), name))
    else names.add(name)
    if (has(c, 'lifecycle')) errs.push(...validateLifecycle(obj(c.lifecycle), ctx.gracePeriod, path.child('lifecycle')))
    errs.push(...validateProbes(c, ctx.gracePeriod, path))
    if (has(c, 'restartPolicy')) errs.push(forbidden(path.child('restartPolicy'), 'may not be set for non-init containers'))
  }
  errs.push(...checkHostPortConflicts(containers, fldPath))
  return errs
}

/** validateInitContainers: restartPolicy Always makes a sidecar, which may have probes and a lifecycle. */
export function validateInitContainers(list: unknown, regular: unknown, ctx: ContainerContext, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const regularList = arr(regular)
  const names = new Set<string>()
  for (let i = 0; i < regularList.length; i++) names.add(str(obj(regularList[i]).name))
  const initList = arr(list)
  for (let i = 0; i < initList.length; i++) {
    const c = obj(initList[i])
    const path = fldPath.index(i)
    errs.push(...validateContainerCommon(c, ctx, path))
    let restartAlways = false
    if (has(c, 'restartPolicy')) {
      const rp = str(c.restartPolicy)
      if (rp !== 'Always') errs.push(notSupported(path.child('restartPolicy'), rp, ['Always']))
      restartAlways = rp === 'Always'
    }
    const name = str(c.name)
    if (names.has(name)) errs.push(duplicate(path.child('name'), name))
    else if (name) names.add(name)
    // The reference checks each init container's host ports on their own.
    if (arr(c.ports).length > 0) errs.push(...checkHostPortConflicts([c], fldPath))
    if (restartAlways) {
      if (has(c, 'lifecycle')) errs.push(...validateLifecycle(obj(c.lifecycle), ctx.gracePeriod, path.child('lifecycle')))
      errs.push(...validateProbes(c, ctx.gracePeriod, path))
    } else {
      for (const f of INIT_FORBIDDEN) {
        if (has(c, f)) errs.push(forbidden(path.child(f), 'may not be set for init containers without restartPolicy=Always'))
      }
    }
  }
  return errs
}

/** The fields an ephemeral container may set (allowedEphemeralContainerFields). */
const EPHEMERAL_FORBIDDEN = ['ports', 'resources', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle', 'resizePolicy', 'restartPolicy']

/** validateEphemeralContainers. */
export function validateEphemeralContainers(list: unknown, containers: unknown, initContainers: unknown, ctx: ContainerContext, fldPath: Path): ErrorList {
  const ephemeral = arr(list).map(obj)
  if (ephemeral.length === 0) return []
  const errs: ErrorList = []
  const otherNames = new Set([...arr(containers), ...arr(initContainers)].map((c) => str(obj(c).name)))
  const allNames = new Set(otherNames)
  ephemeral.forEach((ec, i) => {
    const idx = fldPath.index(i)
    errs.push(...validateContainerCommon(ec, ctx, idx))
    errs.push(...validateContainerOnlyForPod(ec, idx))
    const name = str(ec.name)
    if (allNames.has(name)) errs.push(duplicate(idx.child('name'), name))
    else allNames.add(name)
    const target = str(ec.targetContainerName)
    if (target && !otherNames.has(target)) errs.push(notFound(idx.child('targetContainerName'), target))
    for (const f of EPHEMERAL_FORBIDDEN) {
      const v = ec[f]
      const empty = v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && Object.keys(v).length === 0)
      if (!empty) errs.push(forbidden(idx.child(f), 'cannot be set for an Ephemeral Container'))
    }
    arr(ec.volumeMounts).forEach((vm, j) => {
      if (str(obj(vm).subPath)) errs.push(forbidden(idx.child('volumeMounts').index(j).child('subPath'), 'cannot be set for an Ephemeral Container'))
      if (str(obj(vm).subPathExpr)) errs.push(forbidden(idx.child('volumeMounts').index(j).child('subPathExpr'), 'cannot be set for an Ephemeral Container'))
    })
  })
  return errs
}

/** validateContainerOnlyForPod: an image without surrounding whitespace. */
export function validateContainerOnlyForPod(c: Obj, path: Path): ErrorList {
  const image = str(c.image)
  return image.trim() !== image ? [invalid(path.child('image'), image, 'must not have leading or trailing whitespace')] : []
}
