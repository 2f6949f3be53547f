/**
 * Unsafe sysctls (the reference's check_sysctls.go): baseline, the allowed set growing at
 * v1.27, v1.29 and v1.32.
 */
import { ALLOWED, type Check, type PodLike, forbidden, obj, securityContext } from './check.js'
import { majorMinor } from './levels.js'

const ALLOWED_V1_0 = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.ip_unprivileged_port_start', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range']
const ALLOWED_V1_27 = [...ALLOWED_V1_0, 'net.ipv4.ip_local_reserved_ports']
const ALLOWED_V1_29 = [...ALLOWED_V1_27, 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes']
const ALLOWED_V1_32 = [...ALLOWED_V1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem']

function sysctlsAllowing(allowedNames: readonly string[]) {
  const allowed = new Set(allowedNames)
  return ({ spec }: PodLike) => {
    const sysctls = securityContext(spec)?.sysctls
    const names = (Array.isArray(sysctls) ? sysctls : []).map((s) => String(obj(s)?.name ?? ''))
    const bad = names.filter((name) => !allowed.has(name))
    return bad.length === 0 ? ALLOWED : forbidden('forbidden sysctls', bad.join(', '))
  }
}

export const checkSysctls: Check = {
  id: 'sysctls',
  level: 'baseline',
  versions: [
    { minimumVersion: majorMinor(0), checkPod: sysctlsAllowing(ALLOWED_V1_0) },
    { minimumVersion: majorMinor(27), checkPod: sysctlsAllowing(ALLOWED_V1_27) },
    { minimumVersion: majorMinor(29), checkPod: sysctlsAllowing(ALLOWED_V1_29) },
    { minimumVersion: majorMinor(32), checkPod: sysctlsAllowing(ALLOWED_V1_32) },
  ],
}
