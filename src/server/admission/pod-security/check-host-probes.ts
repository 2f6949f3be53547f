/**
 * A host in probes and lifecycle handlers (the reference's
 * check_hostProbesAndhostLifecycle.go): baseline from v1.34 forbids any non-empty host in the
 * httpGet and tcpSocket of the liveness, readiness and startup probes and of the postStart and
 * preStop handlers.
 */
import { ALLOWED, type Check, type Obj, type PodLike, containerName, containers, containersNamed, forbidden, joinQuote, obj, pluralize, sortedSet } from './check.js'
import { majorMinor } from './levels.js'

function hostsOf(handler: Obj | undefined): string[] {
  if (!handler) return []
  const hosts: string[] = []
  for (const key of ['httpGet', 'tcpSocket']) {
    const host = obj(handler[key])?.host
    if (typeof host === 'string' && host !== '') hosts.push(host)
  }
  return hosts
}

function hostProbesAndHostLifecycleV1Dot34({ spec }: PodLike) {
  const bad: string[] = []
  const hosts: string[] = []
  for (const container of containers(spec)) {
    const lifecycle = obj(container.lifecycle)
    const handlers = [obj(container.livenessProbe), obj(container.readinessProbe), obj(container.startupProbe), obj(lifecycle?.postStart), obj(lifecycle?.preStop)]
    const found = handlers.flatMap(hostsOf)
    if (found.length === 0) continue
    bad.push(containerName(container))
    hosts.push(...found)
  }
  // The reference keeps both in sets: the names sort, and repeat once.
  const names = sortedSet(bad)
  if (names.length === 0) return ALLOWED
  const distinct = sortedSet(hosts)
  return forbidden(
    'probe or lifecycle host',
    `${containersNamed(names)} ${pluralize('uses', 'use', names.length)} ${pluralize('probe or lifecycle host', 'probe or lifecycle hosts', distinct.length)} ${joinQuote(distinct)}`,
  )
}

export const checkHostProbesAndHostLifecycle: Check = {
  id: 'hostProbesAndHostLifecycle',
  level: 'baseline',
  versions: [{ minimumVersion: majorMinor(34), checkPod: hostProbesAndHostLifecycleV1Dot34 }],
}
