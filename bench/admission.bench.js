// What admission costs a create: ConfigMaps (and Pods, for the default plugins) created over
// HTTPS (8 at a time) by the administrator, in one server with the default plugins, against
//   (a) no admission: objects named `na-*`, for which the server's chain is skipped
//       (bench/support/admission-server.js, a launcher; the production code has no switch),
//   (b) the default plugin set,
//   (c) the default set and 10 ValidatingAdmissionPolicies bound to the namespace written to,
//   (d) the default set and one validating webhook for the namespace written to, served over
//       HTTPS by this process (a local test server that allows everything).
// All in one server, so that nothing but admission differs between the sides: not the process,
// its heap, its JIT state or where it sits in memory (with two servers, the one started first
// stayed the costlier one: bench/validation.bench.js). (a) and (b) write to the same namespace;
// (c) and (d) each to their own, which the policies' bindings and the webhook's
// namespaceSelector select. Pods are measured for (a) and (b), and (a) also with the pod as
// the default plugins leave it (service account token volume, tolerations, priority), to tell
// the plugins' own work from storing the larger pod they make. The cases run in interleaved
// short rounds (their order rotating from round to round) and each figure is the median over
// the rounds of the case's rate divided by (a)'s rate in the same round, so a disturbance
// (another process, a major GC) spoils one round, not the figure. The server first makes
// unmeasured creates (dry runs, then real ones) of every case: a serving API server is warm.
// Before measuring, the bench checks that each case is in effect: the webhook and one of the
// policies refuse objects named `deny-*`. A server that ignores the policies (the plugin not
// built, or not enabled) is reported as such, and its figure is no measure of the goal.
// Goals (issue #32): default plugins ≥ 0.9, 10 policies ≥ 0.7, one webhook ≥ 0.4 of (a)'s rate.
// Needs the build (npm run build).
//   node bench/admission.bench.js      (--quick / BENCH_QUICK: 5 rounds of 100 creates, a shorter warm-up)
//   BENCH_ADMISSION_ROUNDS=n           rounds (default 15)
//   BENCH_ADMISSION_ROUND=n            creates per case per round (default 200)
//   BENCH_ADMISSION_WARM=n             dry-run creates per case warming the server up (default 1500)
//   BENCH_ADMISSION_PROFILE=dir        a V8 CPU profile of the server into dir (node --cpu-prof)
//   BENCH_ADMISSION_CASES=a,b          only these cases (none, default, policies, webhook, none-pods,
//                                      default-pods, none-admitted-pods), e.g. to profile one comparison; no table
//   BENCH_PIN=0                        no CPU pinning (bench/support/cpu-pin.js)
import fs from 'node:fs'
import https from 'node:https'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { pinPid, pinningNote } from './support/cpu-pin.js'
import { meets, report } from './support/report.js'
import { startServer } from './support/server.js'
import { rate } from './support/store-bench.js'

const dist = (p) => new URL(`../dist/${p}`, import.meta.url).href
const QUICK = Boolean(process.env.BENCH_QUICK)
const ROUNDS = Number(process.env.BENCH_ADMISSION_ROUNDS ?? (QUICK ? 5 : 15))
const ROUND = Number(process.env.BENCH_ADMISSION_ROUND ?? (QUICK ? 100 : 200))
const WARM = Number(process.env.BENCH_ADMISSION_WARM ?? (QUICK ? 500 : 1500))
const CONCURRENCY = 8
const POLICIES = 10
const profileDir = process.env.BENCH_ADMISSION_PROFILE ? path.resolve(process.env.BENCH_ADMISSION_PROFILE) : undefined

// This process is the load generator (and the webhook): on the CPUs the servers do not get.
pinPid(process.pid, 'load')

const { createCaCertificate, createLeafCertificate, generateKey, privateKeyPem } = await import(dist('server/tls/generate.js'))

/** The local webhook: allows everything but objects named `deny-*`. */
async function startWebhook() {
  const now = Date.now()
  const [notBefore, notAfter] = [new Date(now - 3_600_000), new Date(now + 86_400_000)]
  const caKey = await generateKey('ecdsa')
  const caPem = await createCaCertificate({ key: caKey, commonName: 'bench-webhook-ca', notBefore, notAfter })
  const key = await generateKey('ecdsa')
  const certPem = await createLeafCertificate({ ca: { certPem: caPem, privateKey: caKey.privateKey }, publicKey: key.publicKey, commonName: 'webhook', dns: ['localhost'], ips: ['127.0.0.1'], notBefore, notAfter })
  let calls = 0
  const server = https.createServer({ cert: certPem, key: privateKeyPem(key.privateKey) }, (req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      calls++
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      const name = review.request?.object?.metadata?.name ?? ''
      const response = name.startsWith('deny-') ? { uid: review.request.uid, allowed: false, status: { code: 403, message: 'deny-* objects are refused' } } : { uid: review.request.uid, allowed: true }
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }))
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `https://127.0.0.1:${server.address().port}/validate`, caBundle: Buffer.from(caPem).toString('base64'), calls: () => calls, close: () => new Promise((r) => (server.closeAllConnections(), server.close(r))) }
}

const namespace = (name, labels = {}) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } })
const configMap = (ns, name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels: { app: 'bench' } }, data: { key: 'value', other: 'x'.repeat(64) } })
/** A small Pod: what most default plugins act on (service account, limits, pod security, priority, tolerations, quota). */
const pod = (ns, name) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, labels: { app: 'bench' } },
  spec: { containers: [{ name: 'app', image: 'registry.example.com/app:1.0', ports: [{ containerPort: 8080 }], resources: { requests: { cpu: '100m', memory: '64Mi' } } }] },
})

/** Ten policies on ConfigMap creates, each with a check of the kind teams write; the first also refuses `deny-*`. */
function policies() {
  const checks = [
    "!object.metadata.name.startsWith('deny-')",
    'object.metadata.name.size() <= 63',
    "has(object.metadata.labels) && 'app' in object.metadata.labels",
    '!has(object.data) || object.data.size() <= 50',
    "!has(object.data) || object.data.all(k, k.matches('^[a-zA-Z0-9._-]+$'))",
    "!has(object.metadata.annotations) || !('forbidden' in object.metadata.annotations)",
    "object.metadata.namespace != 'kube-system'",
    '!has(object.binaryData)',
    "!has(object.data) || object.data.all(k, size(object.data[k]) < 1048576)",
    "request.userInfo.username != 'system:anonymous'",
  ]
  return checks.slice(0, POLICIES).flatMap((expression, i) => [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: `bench-policy-${i}` },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] },
        validations: [{ expression, message: `bench policy ${i} refuses it` }],
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: `bench-policy-${i}` },
      spec: { policyName: `bench-policy-${i}`, validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { bench: 'vap' } } } },
    },
  ])
}

function webhookConfiguration(webhook) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'bench-webhook' },
    webhooks: [
      {
        name: 'bench.webhook.example.com',
        clientConfig: { url: webhook.url, caBundle: webhook.caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        namespaceSelector: { matchLabels: { bench: 'hook' } },
        failurePolicy: 'Fail',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        timeoutSeconds: 10,
      },
    ],
  }
}

/** Whether creating `deny-probe` in `ns` is refused (the case is in effect). */
async function refusesProbe(server, ns) {
  const r = await server.admin.raw('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(ns, `deny-probe-${Date.now()}`) })
  return r.status >= 400
}

/**
 * A process's CPU seconds, all its threads, from each thread's /proc schedstat (nanoseconds on
 * the CPU): /proc/<pid>/stat counts in 10 ms ticks, too coarse for a round of a few hundred
 * creates at a few hundred µs each.
 */
function cpuSeconds(pid) {
  let ns = 0
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0])
    } catch {
      // a thread that ended meanwhile
    }
  }
  return ns / 1e9
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-admission-'))
const webhook = await startWebhook()
const launcher = fileURLToPath(new URL('./support/admission-server.js', import.meta.url))
const admitted = await startServer(path.join(tmp, 'server'), [], { runScript: launcher, nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [] })
pinPid(admitted.child.pid, 'server')

try {
  for (const [ns, labels] of [['bench-default', {}], ['bench-vap', { bench: 'vap' }], ['bench-hook', { bench: 'hook' }]]) {
    await admitted.admin('POST', '/api/v1/namespaces', { body: namespace(ns, labels) })
  }
  for (const object of policies()) {
    const plural = object.kind === 'ValidatingAdmissionPolicy' ? 'validatingadmissionpolicies' : 'validatingadmissionpolicybindings'
    await admitted.admin('POST', `/apis/admissionregistration.k8s.io/v1/${plural}`, { body: object })
  }
  await admitted.admin('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { body: webhookConfiguration(webhook) })
  // Configuration changes are in effect within a second.
  await new Promise((r) => setTimeout(r, 1500))
  const webhookInEffect = await refusesProbe(admitted, 'bench-hook')
  const policiesInEffect = await refusesProbe(admitted, 'bench-vap')
  if (!webhookInEffect) throw new Error('the webhook refused nothing: it is not called')
  if (!policiesInEffect) console.error('  policies not in effect: the server created an object a ValidatingAdmissionPolicy refuses (it ignores the policies)')
  if (await refusesProbe(admitted, 'bench-default')) throw new Error('the default case refused deny-*: a policy or the webhook matches it')

  // The default plugins give a pod the namespace's `default` service account, which the
  // service-account controller writes shortly after the namespace.
  for (let tries = 0; (await admitted.admin.raw('GET', '/api/v1/namespaces/bench-default/serviceaccounts/default')).status !== 200; tries++) {
    if (tries > 100) throw new Error('no default service account in bench-default')
    await new Promise((r) => setTimeout(r, 100))
  }
  // A pod as the default plugins leave it (service account and its token volume, tolerations,
  // priority...), created as it is on the server without admission: what the plugins' own work
  // costs, apart from storing the larger object they make.
  await admitted.admin('POST', '/api/v1/namespaces/bench-default/pods', { body: pod('bench-default', 'template') })
  const template = JSON.parse(await admitted.admin('GET', '/api/v1/namespaces/bench-default/pods/template'))
  delete template.status
  const admittedPod = (ns, name) => ({ ...structuredClone(template), metadata: { name, namespace: ns, labels: { app: 'bench' } } })
  const cases = [
    { key: 'none', server: admitted, ns: 'bench-default', make: configMap, prefix: 'na-' },
    { key: 'default', server: admitted, ns: 'bench-default', make: configMap },
    { key: 'policies', server: admitted, ns: 'bench-vap', make: configMap },
    { key: 'webhook', server: admitted, ns: 'bench-hook', make: configMap },
    { key: 'none-pods', server: admitted, ns: 'bench-default', make: pod, prefix: 'na-' },
    { key: 'default-pods', server: admitted, ns: 'bench-default', make: pod },
    { key: 'none-admitted-pods', server: admitted, ns: 'bench-default', make: admittedPod, prefix: 'na-' },
  ]
  // BENCH_ADMISSION_CASES=none-pods,default-pods: only those cases (to profile one comparison).
  const only = process.env.BENCH_ADMISSION_CASES?.split(',')
  if (only) cases.splice(0, cases.length, ...cases.filter((c) => only.includes(c.key)))
  let serial = 0
  const createIn = (c, dryRun) => () => {
    const object = c.make(c.ns, `${c.prefix ?? ''}${c.key}-${serial++}`)
    return c.server.admin('POST', `/api/v1/namespaces/${c.ns}/${c.make === configMap ? 'configmaps' : 'pods'}${dryRun ? '?dryRun=All' : ''}`, { body: object })
  }
  console.error(`  warming up: ${WARM} dry-run and ${Math.round(WARM / 5)} real creates per case`)
  for (const c of cases) {
    await rate(WARM, CONCURRENCY, createIn(c, true))
    await rate(Math.round(WARM / 5), CONCURRENCY, createIn(c, false))
  }

  const rates = Object.fromEntries(cases.map((c) => [c.key, []]))
  // The server's CPU (user + system, all threads) per create: what a create costs it, which the
  // machine's other load disturbs less than the rate (printed beside the rates, not the goal).
  const cpuPerCreate = Object.fromEntries(cases.map((c) => [c.key, []]))
  for (let round = 0; round < ROUNDS; round++) {
    const order = cases.map((_, i) => cases[(i + round) % cases.length])
    for (const c of order) {
      const cpu0 = cpuSeconds(c.server.child.pid)
      rates[c.key].push(await rate(ROUND, CONCURRENCY, createIn(c, false)))
      cpuPerCreate[c.key].push((cpuSeconds(c.server.child.pid) - cpu0) / ROUND)
    }
    console.error(`  round ${round + 1}/${ROUNDS}: ${cases.map((c) => `${c.key} ${Math.round(rates[c.key].at(-1))}/s`).join(', ')}`)
  }
  const median = (xs) => {
    const s = [...xs].sort((x, y) => x - y)
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
  }
  if (only) {
    for (const c of cases) console.error(`  ${c.key}: ${Math.round(median(rates[c.key]))}/s, ${(median(cpuPerCreate[c.key]) * 1e6).toFixed(0)} µs of server CPU per create`)
  } else {
    const ratioOf = (key, against) => median(rates[key].map((r, i) => r / rates[against][i]))
    const baseline = `no admission (median over ${ROUNDS} rounds)`
    const row = (key, subject, goal, inEffect = true, against = 'none') => {
      const ratio = ratioOf(key, against)
      return { subject, figure: median(rates[key]), unit: 'creates/s', baseline, baselineFigure: median(rates[against]), ratio, goal, ...(inEffect ? { met: meets(ratio, goal) } : {}) }
    }
    const rows = [
      row('default', 'ConfigMap creates, the default admission plugins', '≥ 0.9'),
      row('default-pods', 'Pod creates, the default admission plugins', '≥ 0.9', true, 'none-pods'),
      { ...row('default-pods', 'Pod creates, the default admission plugins, against the same pod as admission leaves it (the plugins\' own work)', undefined, false, 'none-admitted-pods'), baseline: `the admitted pod, no admission (median over ${ROUNDS} rounds)` },
      row('policies', policiesInEffect ? `ConfigMap creates, default plugins + ${POLICIES} ValidatingAdmissionPolicies` : `ConfigMap creates, default plugins + ${POLICIES} ValidatingAdmissionPolicies (**policies not in effect**: the server ignores them)`, '≥ 0.7', policiesInEffect),
      row('webhook', 'ConfigMap creates, default plugins + 1 validating webhook (local HTTPS)', '≥ 0.4'),
    ]
    console.error(`  the webhook was called ${webhook.calls()} times; ${pinningNote()}`)
    const cpuOf = (key) => median(cpuPerCreate[key])
    for (const [key, against] of [['default', 'none'], ['default-pods', 'none-pods'], ['default-pods', 'none-admitted-pods'], ['policies', 'none'], ['webhook', 'none']]) {
      console.error(`  server CPU per create: ${key} ${(cpuOf(key) * 1e6).toFixed(0)} µs, ${against} ${(cpuOf(against) * 1e6).toFixed(0)} µs: ${(cpuOf(against) / cpuOf(key)).toFixed(2)}x by CPU`)
    }
    // Where the default plugins' time goes: the server's own admission metrics (mean per CREATE).
    const metrics = await admitted.admin('GET', '/metrics')
    const perPlugin = new Map()
    for (const m of metrics.matchAll(/^apiserver_admission_controller_admission_duration_seconds_(sum|count)\{name="([^"]+)",type="([^"]+)",operation="CREATE",rejected="false"\} (\S+)$/gm)) {
      const key = `${m[2]} ${m[3]}`
      const entry = perPlugin.get(key) ?? { sum: 0, count: 0 }
      entry[m[1]] = Number(m[4])
      perPlugin.set(key, entry)
    }
    const slowest = [...perPlugin].map(([key, e]) => [key, (e.sum / e.count) * 1e6]).sort((x, y) => y[1] - x[1]).slice(0, 6)
    console.error(`  mean µs per CREATE, slowest plugins (all cases): ${slowest.map(([k, us]) => `${k} ${us.toFixed(0)}`).join(', ')}`)
    for (const r of rows) console.error(`  ${r.subject}: ${Math.round(r.figure)}/s, ${r.ratio.toFixed(2)}x of ${Math.round(r.baselineFigure)}/s (goal ${r.goal ?? 'none'}: ${r.met === undefined ? 'not judged' : r.met ? 'met' : 'not met'})`)
    report(import.meta.url, rows)
  }
} finally {
  // A profile is written at a clean exit only.
  if (profileDir) {
    const exited = new Promise((r) => admitted.child.once('exit', r))
    admitted.child.kill('SIGTERM')
    await exited
  }
  await admitted.stop()
  await webhook.close()
  fs.rmSync(tmp, { recursive: true, force: true })
}
