/**
 * The evaluator level by level against the reference's fixtures
 * (staging/src/k8s.io/pod-security-admission/test/fixtures.go and fixtures_<check>.go): from
 * the minimal valid pod of a level and version, each check's pass pods are admitted and its
 * fail pods refused with the fixture's expected substring, at the fixture's version and every
 * later one (a fixture registered for baseline applies to restricted too), and at `latest`.
 */
import assert from 'node:assert/strict'
import type { Obj } from '../../../../src/server/admission/pod-security/check.js'
import { AggregateCheckResult, Evaluator } from '../../../../src/server/admission/pod-security/evaluator.js'
import { LATEST, type Level, type Version, majorMinor, versionString } from '../../../../src/server/admission/pod-security/levels.js'

type Pod = { metadata: Obj; spec: Obj & { containers: Obj[]; initContainers: Obj[]; securityContext?: Obj } }
type Tweak = (p: Pod) => void

// fixtures.go: minimalValidPods.
const baselineV1Dot0 = (): Pod => ({ metadata: {}, spec: { initContainers: [{ name: 'initcontainer1', image: 'k8s.gcr.io/pause' }], containers: [{ name: 'container1', image: 'k8s.gcr.io/pause' }] } })
const restrictedSteps: [number, Tweak][] = [
  [0, (p) => void (p.spec.securityContext = { runAsNonRoot: true })],
  [8, (p) => {
    p.spec.containers[0]!.securityContext = { allowPrivilegeEscalation: false }
    p.spec.initContainers[0]!.securityContext = { allowPrivilegeEscalation: false }
  }],
  [19, (p) => void (p.spec.securityContext!.seccompProfile = { type: 'RuntimeDefault' })],
  [22, (p) => {
    ;(p.spec.containers[0]!.securityContext as Obj).capabilities = { drop: ['ALL'] }
    ;(p.spec.initContainers[0]!.securityContext as Obj).capabilities = { drop: ['ALL'] }
  }],
]

function minimalValidPod(level: Level, minor: number): Pod {
  const pod = baselineV1Dot0()
  if (level === 'restricted') for (const [from, step] of restrictedSteps) if (from <= minor) step(pod)
  return pod
}

const tweak = (p: Pod, f: Tweak): Pod => {
  const copy = structuredClone(p)
  f(copy)
  return copy
}
const allContainers = (p: Pod) => [p.spec.containers[0]!, p.spec.initContainers[0]!]
// fixtures helpers: ensureSecurityContext / ensureCapabilities.
const ensureSecurityContext = (p: Pod): Pod => tweak(p, (q) => {
  q.spec.securityContext ??= {}
  for (const c of allContainers(q)) c.securityContext ??= {}
})
const ensureCapabilities = (p: Pod): Pod => tweak(ensureSecurityContext(p), (q) => {
  for (const c of allContainers(q)) (c.securityContext as Obj).capabilities ??= {}
})
const sc = (c: Obj) => c.securityContext as Obj
const caps = (c: Obj) => sc(c).capabilities as Obj

interface Fixture {
  check: string
  level: Level
  minor: number
  expect: string
  pass: (p: Pod) => Pod[]
  fail: (p: Pod) => Pod[]
}

const allSysctlsV1Dot0 = [
  { name: 'kernel.shm_rmid_forced', value: '0' },
  { name: 'net.ipv4.ip_local_port_range', value: '1024 65535' },
  { name: 'net.ipv4.tcp_syncookies', value: '0' },
  { name: 'net.ipv4.ping_group_range', value: '1 0' },
  { name: 'net.ipv4.ip_unprivileged_port_start', value: '1024' },
]
const allSysctlsV1Dot27 = [...allSysctlsV1Dot0, { name: 'net.ipv4.ip_local_reserved_ports', value: '1024-4999' }]
const allSysctlsV1Dot29 = [
  ...allSysctlsV1Dot27,
  { name: 'net.ipv4.tcp_keepalive_time', value: '7200' },
  { name: 'net.ipv4.tcp_fin_timeout', value: '60' },
  { name: 'net.ipv4.tcp_keepalive_intvl', value: '75' },
  { name: 'net.ipv4.tcp_keepalive_probes', value: '9' },
]
const sysctlsFixture = (minor: number, allowed: Obj[]): Fixture => ({
  check: 'sysctls', level: 'baseline', minor, expect: 'forbidden sysctl',
  pass: (p) => [tweak(p, (q) => void ((q.spec.securityContext ??= {}).sysctls = undefined)), tweak(p, (q) => void ((q.spec.securityContext ??= {}).sysctls = allowed))],
  fail: (p) => [tweak(p, (q) => void ((q.spec.securityContext ??= {}).sysctls = [{ name: 'othersysctl', value: 'other' }]))],
})
const everyCapability = ['SYS_TIME', 'SYS_MODULE', 'SYS_RAWIO', 'SYS_PACCT', 'SYS_ADMIN', 'SYS_NICE', 'SYS_RESOURCE', 'SYS_TIME', 'SYS_TTY_CONFIG', 'MKNOD', 'AUDIT_WRITE', 'AUDIT_CONTROL', 'MAC_OVERRIDE', 'MAC_ADMIN', 'NET_ADMIN', 'SYSLOG', 'CHOWN', 'NET_RAW', 'DAC_OVERRIDE', 'FOWNER', 'DAC_READ_SEARCH', 'FSETID', 'KILL', 'SETGID', 'SETUID', 'LINUX_IMMUTABLE', 'NET_BIND_SERVICE', 'NET_BROADCAST', 'IPC_LOCK', 'IPC_OWNER', 'SYS_CHROOT', 'SYS_PTRACE', 'SYS_BOOT', 'LEASE', 'SETFCAP', 'WAKE_ALARM', 'BLOCK_SUSPEND']
const defaultCapabilities = ['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']

const fixtures: Fixture[] = [
  // fixtures_privileged.go
  { check: 'privileged', level: 'baseline', minor: 0, expect: 'privileged',
    pass: (p) => { p = ensureSecurityContext(p); return [tweak(p, (q) => allContainers(q).forEach((c) => void (sc(c).privileged = false)))] },
    fail: (p) => { p = ensureSecurityContext(p); return [
      tweak(p, (q) => { sc(q.spec.containers[0]!).privileged = true; delete sc(q.spec.containers[0]!).allowPrivilegeEscalation }),
      tweak(p, (q) => { sc(q.spec.initContainers[0]!).privileged = true; delete sc(q.spec.initContainers[0]!).allowPrivilegeEscalation }),
    ] } },
  // fixtures_hostNamespaces.go
  { check: 'hostNamespaces', level: 'baseline', minor: 0, expect: 'host namespaces',
    pass: () => [],
    fail: (p) => [tweak(p, (q) => void (q.spec.hostIPC = true)), tweak(p, (q) => void (q.spec.hostNetwork = true)), tweak(p, (q) => void (q.spec.hostPID = true))] },
  // fixtures_hostPorts.go
  { check: 'hostPorts', level: 'baseline', minor: 0, expect: 'hostPort',
    pass: (p) => [tweak(p, (q) => { q.spec.containers[0]!.ports = [{ containerPort: 12345 }]; q.spec.initContainers[0]!.ports = [{ containerPort: 12346 }] })],
    fail: (p) => [
      tweak(p, (q) => void (q.spec.containers[0]!.ports = [{ containerPort: 12345, hostPort: 12345 }])),
      tweak(p, (q) => void (q.spec.initContainers[0]!.ports = [{ containerPort: 12346, hostPort: 12346 }])),
      tweak(p, (q) => {
        q.spec.containers[0]!.ports = [{ containerPort: 12345, hostPort: 12345 }, { containerPort: 12347 }]
        q.spec.initContainers[0]!.ports = [{ containerPort: 12346, hostPort: 12346 }, { containerPort: 12348 }]
      }),
    ] },
  // fixtures_capabilities_restricted.go
  { check: 'capabilities_restricted', level: 'restricted', minor: 22, expect: 'unrestricted capabilities',
    pass: (p) => { p = ensureCapabilities(p); return [tweak(p, (q) => allContainers(q).forEach((c) => { caps(c).drop = ['ALL']; caps(c).add = ['NET_BIND_SERVICE'] }))] },
    fail: (p) => { p = ensureCapabilities(p); return [
      tweak(p, (q) => void (caps(q.spec.containers[0]!).drop = [])),
      tweak(p, (q) => void (caps(q.spec.initContainers[0]!).drop = [])),
      tweak(p, (q) => allContainers(q).forEach((c) => void (caps(c).drop = everyCapability))),
      tweak(p, (q) => allContainers(q).forEach((c) => { caps(c).drop = ['ALL']; caps(c).add = defaultCapabilities })),
    ] } },
  // fixtures_runAsNonRoot.go
  { check: 'runAsNonRoot', level: 'restricted', minor: 0, expect: 'runAsNonRoot',
    pass: (p) => { p = ensureSecurityContext(p); return [
      tweak(p, (q) => { q.spec.securityContext!.runAsNonRoot = true; allContainers(q).forEach((c) => void delete sc(c).runAsNonRoot) }),
      tweak(p, (q) => { delete q.spec.securityContext!.runAsNonRoot; allContainers(q).forEach((c) => void (sc(c).runAsNonRoot = true)) }),
    ] },
    fail: (p) => { p = ensureSecurityContext(p); return [
      tweak(p, (q) => { delete q.spec.securityContext!.runAsNonRoot; allContainers(q).forEach((c) => void delete sc(c).runAsNonRoot) }),
      tweak(p, (q) => void (q.spec.securityContext!.runAsNonRoot = false)),
      tweak(p, (q) => void (sc(q.spec.containers[0]!).runAsNonRoot = false)),
      tweak(p, (q) => void (sc(q.spec.initContainers[0]!).runAsNonRoot = false)),
    ] } },
  // fixtures_sysctls.go
  sysctlsFixture(0, allSysctlsV1Dot0),
  sysctlsFixture(27, allSysctlsV1Dot27),
  sysctlsFixture(29, allSysctlsV1Dot29),
]

const evaluator = new Evaluator()

/** The fixture in effect for check/level at `minor`: the newest registered at or below it. */
function fixtureFor(check: string, level: Level, minor: number): Fixture | undefined {
  let found: Fixture | undefined
  for (const f of fixtures) if (f.check === check && (f.level === level || (f.level === 'baseline' && level === 'restricted')) && f.minor <= minor && (!found || f.minor > found.minor)) found = f
  return found
}

describe('PodSecurity: the evaluator level by level against the reference fixtures', () => {
  const checks = [...new Set(fixtures.map((f) => f.check))]
  for (const level of ['baseline', 'restricted'] as const) {
    for (const check of checks) {
      const first = Math.min(...fixtures.filter((f) => f.check === check).map((f) => f.minor))
      const versions: Version[] = []
      for (let minor = first; minor <= evaluator.maxMinor; minor++) versions.push(majorMinor(minor))
      versions.push(LATEST)
      const atVersion = (v: Version) => fixtureFor(check, level, v.latest ? evaluator.maxMinor : v.minor)
      if (!versions.some((v) => atVersion(v))) continue
      it(`${level} ${check}: pass and fail pods from v1.${first} to latest`, () => {
        for (const version of versions) {
          const fixture = atVersion(version)
          if (!fixture) continue
          const valid = minimalValidPod(level, version.latest ? evaluator.maxMinor : version.minor)
          const at = `${level}:${versionString(version)}`
          const minimal = new AggregateCheckResult(evaluator.evaluatePod({ level, version }, valid))
          assert.ok(minimal.allowed, `${at}: the minimal valid pod is refused: ${minimal.forbiddenDetail()}`)
          for (const [i, pod] of fixture.pass(structuredClone(valid)).entries()) {
            const result = new AggregateCheckResult(evaluator.evaluatePod({ level, version }, pod))
            assert.ok(result.allowed, `${at} pass pod ${i}: ${result.forbiddenDetail()}`)
          }
          const fails = fixture.fail(structuredClone(valid))
          assert.ok(fails.length > 0)
          for (const [i, pod] of fails.entries()) {
            const result = new AggregateCheckResult(evaluator.evaluatePod({ level, version }, pod))
            assert.ok(!result.allowed, `${at} fail pod ${i} was allowed`)
            assert.ok(result.forbiddenDetail().includes(fixture.expect), `${at} fail pod ${i}: ${result.forbiddenDetail()} lacks ${fixture.expect}`)
          }
        }
      })
    }
  }

  it('privileged evaluates nothing', () => {
    const pod = tweak(baselineV1Dot0(), (q) => { q.spec.hostPID = true })
    assert.deepEqual(evaluator.evaluatePod({ level: 'privileged', version: LATEST }, pod), [])
  })

  it('a sysctl allowed from v1.27 is refused at v1.26 (check_sysctls.go revisions)', () => {
    const pod = tweak(baselineV1Dot0(), (q) => void (q.spec.securityContext = { sysctls: [{ name: 'net.ipv4.ip_local_reserved_ports', value: '1024-4999' }] }))
    assert.equal(new AggregateCheckResult(evaluator.evaluatePod({ level: 'baseline', version: majorMinor(26) }, pod)).forbiddenDetail(), 'forbidden sysctls (net.ipv4.ip_local_reserved_ports)')
    assert.ok(new AggregateCheckResult(evaluator.evaluatePod({ level: 'baseline', version: majorMinor(27) }, pod)).allowed)
  })

  it('a probe host is refused from v1.34 and at latest, allowed at v1.33 (TestHostProbesAndHostLifecycleEmulation)', () => {
    const pod = { metadata: {}, spec: { containers: [{ startupProbe: { httpGet: { host: 'localhost' } } }] } }
    assert.ok(!new AggregateCheckResult(evaluator.evaluatePod({ level: 'baseline', version: LATEST }, pod)).allowed)
    assert.ok(!new AggregateCheckResult(evaluator.evaluatePod({ level: 'baseline', version: majorMinor(34) }, pod)).allowed)
    assert.ok(new AggregateCheckResult(evaluator.evaluatePod({ level: 'baseline', version: majorMinor(33) }, pod)).allowed)
  })

  it('a version newer than every check evaluates as latest', () => {
    const pod = tweak(baselineV1Dot0(), (q) => void (q.spec.hostNetwork = true))
    const future = new AggregateCheckResult(evaluator.evaluatePod({ level: 'baseline', version: majorMinor(99) }, pod))
    assert.equal(future.forbiddenDetail(), 'host namespaces (hostNetwork=true)')
  })

  it('restricted: the baseline checks first, then the restricted ones, each by id', () => {
    // The pod of the reference's restricted refusal: a privileged container and nothing else set.
    const pod = { metadata: {}, spec: { containers: [{ name: 'c', image: 'busybox', securityContext: { privileged: true } }] } }
    const result = new AggregateCheckResult(evaluator.evaluatePod({ level: 'restricted', version: LATEST }, pod))
    assert.equal(result.forbiddenReason(), 'privileged, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile')
    assert.equal(
      result.forbiddenDetail(),
      'privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    )
  })

  it('restricted replaces the overlapping baseline checks (hostPath volumes by restricted volume types)', () => {
    const pod = tweak(minimalValidPod('restricted', 22), (q) => void (q.spec.volumes = [{ name: 'h', hostPath: { path: '/' } }]))
    assert.equal(new AggregateCheckResult(evaluator.evaluatePod({ level: 'restricted', version: LATEST }, pod)).forbiddenDetail(), 'restricted volume types (volume "h" uses restricted volume type "hostPath")')
    assert.equal(new AggregateCheckResult(evaluator.evaluatePod({ level: 'baseline', version: LATEST }, pod)).forbiddenDetail(), 'hostPath volumes (volume "h")')
  })
})
