// The admission chain's own CPU per request, in process: a built server (dist/) run in this
// process with the setup of bench/admission.bench.js (the three namespaces, the 10 policies and
// their bindings, a validating webhook for its own namespace), then one dry-run create of each
// case (a ConfigMap in bench-default, one in bench-vap, a Pod) whose admission attributes are
// kept, and the chain's admit + validate called N times on fresh copies of them, CPU per call
// (process.cpuUsage), in R interleaved rounds; the median is printed with every round. Without
// HTTP, the store or other requests, it measures the plugins and the chain alone, which the
// server CPU per create of the bench measures among far larger costs (docs/performance.md).
//   node bench/support/admission-chain-cpu.js          N=4000 R=5 CASES=cap-default,cap-vap,cap-pod
//   PER_PLUGIN=1                                       also each plugin alone (3000 calls each)
//   node --cpu-prof ... with CASES=cap-vap             a profile of one case
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import https from 'node:https'
const dist = (p) => new URL(`../../dist/${p}`, import.meta.url).href
const { AdmissionChain } = await import(dist('server/admission/chain.js'))
const { adminCredentials, requester } = await import('./server.js')
const { freePort } = await import('./net.js')
let chain
let capturing = true
const captured = new Map()
const admit = AdmissionChain.prototype.admit
AdmissionChain.prototype.admit = function (a) {
  chain = this
  if (capturing && a.name?.startsWith('cap-')) captured.set(a.name, structuredClone(a))
  return admit.call(this, a)
}
const { runServer } = await import(dist('server/main.js'))
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adm2-h-'))
const port = await freePort()
const kubeconfig = path.join(dir, 'k')
void runServer(['--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${dir}/certs`, `--data-dir=${dir}/data`, `--write-kubeconfig=${kubeconfig}`, '-v=0'], '1.0.0')
while (!fs.existsSync(kubeconfig) || !fs.readFileSync(kubeconfig, 'utf8').includes('client-key-data')) await new Promise((r) => setTimeout(r, 50))
const agent = new https.Agent({ keepAlive: true, ...adminCredentials(kubeconfig) })
const admin = requester(port, agent)
for (;;) { const r = await admin.raw('GET', '/readyz').catch(() => ({ status: 0 })); if (r.status === 200) break; await new Promise((r) => setTimeout(r, 100)) }
const namespace = (name, labels = {}) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } })
const configMap = (ns, name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels: { app: 'bench' } }, data: { key: 'value', other: 'x'.repeat(64) } })
const pod = (ns, name) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels: { app: 'bench' } }, spec: { containers: [{ name: 'app', image: 'registry.example.com/app:1.0', ports: [{ containerPort: 8080 }], resources: { requests: { cpu: '100m', memory: '64Mi' } } }] } })
const checks = ["!object.metadata.name.startsWith('deny-')", 'object.metadata.name.size() <= 63', "has(object.metadata.labels) && 'app' in object.metadata.labels", '!has(object.data) || object.data.size() <= 50', "!has(object.data) || object.data.all(k, k.matches('^[a-zA-Z0-9._-]+$'))", "!has(object.metadata.annotations) || !('forbidden' in object.metadata.annotations)", "object.metadata.namespace != 'kube-system'", '!has(object.binaryData)', "!has(object.data) || object.data.all(k, size(object.data[k]) < 1048576)", "request.userInfo.username != 'system:anonymous'"]
for (const [ns, labels] of [['bench-default', {}], ['bench-vap', { bench: 'vap' }], ['bench-hook', { bench: 'hook' }]]) await admin('POST', '/api/v1/namespaces', { body: namespace(ns, labels) })
for (const [i, expression] of checks.entries()) {
  await admin('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: `bench-policy-${i}` }, spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] }, validations: [{ expression, message: `bench policy ${i} refuses it` }] } } })
  await admin('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: `bench-policy-${i}` }, spec: { policyName: `bench-policy-${i}`, validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { bench: 'vap' } } } } } })
}
await admin('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'bench-webhook' }, webhooks: [{ name: 'bench.webhook.example.com', clientConfig: { url: 'https://127.0.0.1:1/validate' }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }], namespaceSelector: { matchLabels: { bench: 'hook' } }, failurePolicy: 'Fail', sideEffects: 'None', admissionReviewVersions: ['v1'], timeoutSeconds: 10 }] } })
await new Promise((r) => setTimeout(r, 1500))
for (let t = 0; (await admin.raw('GET', '/api/v1/namespaces/bench-default/serviceaccounts/default')).status !== 200; t++) await new Promise((r) => setTimeout(r, 100))
await admin('POST', '/api/v1/namespaces/bench-default/configmaps?dryRun=All', { body: configMap('bench-default', 'cap-default') })
await admin('POST', '/api/v1/namespaces/bench-vap/configmaps?dryRun=All', { body: configMap('bench-vap', 'cap-vap') })
await admin('POST', '/api/v1/namespaces/bench-default/pods?dryRun=All', { body: pod('bench-default', 'cap-pod') })
capturing = false
const N = Number(process.env.N ?? 4000)
async function measure(name) {
  const template = captured.get(name)
  const fresh = () => { const a = structuredClone(template); return a }
  const inputs = Array.from({ length: N }, fresh)
  for (let i = 0; i < 500; i++) { const a = fresh(); await chain.admit(a); await chain.validate(a) }
  const c0 = process.cpuUsage()
  for (const a of inputs) { await chain.admit(a); await chain.validate(a) }
  const c = process.cpuUsage(c0)
  return ((c.user + c.system) / N).toFixed(1)
}
if (process.env.PER_PLUGIN) {
  for (const n of (process.env.CASES ?? 'cap-default').split(',')) {
    const template = captured.get(n)
    const line = []
    for (const [phase, list] of [['admit', chain.mutating], ['validate', chain.validating]]) for (const { name, plugin } of list) {
      if (!plugin.handles(template.operation)) continue
      const inputs = Array.from({ length: 3000 }, () => structuredClone(template))
      for (let i = 0; i < 300; i++) await plugin[phase](structuredClone(template)).catch(() => {})
      const c0 = process.cpuUsage()
      for (const a of inputs) await plugin[phase](a).catch(() => {})
      const c = process.cpuUsage(c0)
      line.push(`${name}.${phase} ${((c.user + c.system) / 3000).toFixed(2)}`)
    }
    console.log(n + ': ' + line.join(', '))
  }
}
const results = {}
for (let r = 0; r < Number(process.env.R ?? 5); r++) for (const n of (process.env.CASES ?? 'cap-default,cap-vap,cap-pod').split(',')) (results[n] ??= []).push(Number(await measure(n)))
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
console.log(Object.entries(results).map(([k, v]) => `${k} ${med(v)} µs (${v.join(' ')})`).join('\n'))
agent.destroy()
fs.rmSync(dir, { recursive: true, force: true })
process.exit(0)
