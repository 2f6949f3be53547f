// `client validate` on 1,000 manifests (100 files of 10 documents: Deployments, Services,
// ConfigMaps, a tenth of them invalid) against, in the same run:
//   - Node's empty start-up plus reading the files (`node -e` reading every file): goal ≤ 3x;
//   - `kubectl apply --dry-run=server -f DIR` (kubectl 1.35) against a local `client server
//     start`: goal ≤ 0.2x (at least five times faster).
// Every subject runs once per round, rounds interleaved (kubectl's rounds are fewer: each takes
// seconds); medians of the wall-clock time, and of the CPU time (user + system, read from
// /proc): on a shared machine whose load changes during the run, the CPU time of each side (for
// kubectl: its own and the server's during the run) compares the work done.
//   node bench/validate.bench.js        BENCH_RUNS=20 by default (kubectl: a quarter of them)
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { meets, report } from './support/report.js'
import { startServer } from './support/server.js'
import { toolCommand, whyMissing } from './support/tools.js'

const bin = process.env.BENCH_BIN ?? fileURLToPath(new URL('../bin/run.js', import.meta.url))
const runs = Number(process.env.BENCH_RUNS ?? 20)
const kubectlRuns = Math.max(2, Math.round(runs / 4))
const missing = whyMissing('kubectl')
if (missing) {
  console.error(missing)
  process.exit(1)
}
const kubectl = toolCommand('kubectl')
const dir = mkdtempSync(join(tmpdir(), 'client-validate-bench-'))
const manifests = join(dir, 'manifests')
mkdirSync(manifests)

/** The n-th object: a Deployment, a Service or a ConfigMap; every tenth one invalid. */
function object(n) {
  const name = `app-${n}`
  const bad = n % 10 === 9
  switch (n % 3) {
    case 0:
      return {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, labels: { app: name } },
        spec: {
          replicas: bad ? -1 : 2,
          selector: { matchLabels: { app: name } },
          template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80 }], resources: { requests: { cpu: '100m', memory: '64Mi' } } }] } },
        },
      }
    case 1:
      return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: { app: name }, ports: [{ name: 'http', port: bad ? 70000 : 80, targetPort: 8080 }] } }
    default:
      return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: bad ? { 'not a key': 'x' } : { LOG_LEVEL: 'info', FEATURE: 'on' } }
  }
}

const yaml = (value, indent = '') => {
  if (Array.isArray(value)) return value.map((v) => `${indent}- ${yaml(v, `${indent}  `).trimStart()}`).join('\n')
  if (value && typeof value === 'object') {
    return Object.entries(value)
      .map(([k, v]) => (v && typeof v === 'object' ? `${indent}${JSON.stringify(k)}:\n${yaml(v, `${indent}  `)}` : `${indent}${JSON.stringify(k)}: ${JSON.stringify(v)}`))
      .join('\n')
  }
  return `${indent}${JSON.stringify(value)}`
}
const files = []
for (let f = 0; f < 100; f++) {
  const file = join(manifests, `part-${String(f).padStart(3, '0')}.yaml`)
  writeFileSync(file, `${Array.from({ length: 10 }, (_, i) => yaml(object(f * 10 + i))).join('\n---\n')}\n`)
  files.push(file)
}

const env = { PATH: process.env.PATH, HOME: dir }
const readAll = `const fs=require('fs');let n=0;for(const f of fs.readdirSync(${JSON.stringify(manifests)}))n+=fs.readFileSync(${JSON.stringify(manifests)}+'/'+f,'utf8').length`

/** CPU time (user + system) of the children this process has waited for, in ms (/proc/self/stat's cutime + cstime). */
function childrenCpuMs() {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS
}
/** CPU time (user + system) of a running process, in ms. */
function processCpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS
}
const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100

function once(cmd, expect, extraEnv = {}) {
  const start = process.hrtime.bigint()
  const cpuBefore = childrenCpuMs()
  const r = spawnSync(cmd[0], cmd.slice(1), { cwd: dir, env: { ...env, ...extraEnv }, encoding: 'utf8', maxBuffer: 64 << 20 })
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  if (r.status !== expect) throw new Error(`${cmd.join(' ')} exited ${r.status} (expected ${expect}): ${r.stderr.slice(0, 2000)}`)
  return { ms, cpu: childrenCpuMs() - cpuBefore, out: r.stdout, err: r.stderr }
}

const server = await startServer(join(dir, 'server'))
try {
  const subjects = [
    { name: "`node -e ''`", cmd: [process.execPath, '-e', ''], expect: 0 },
    { name: "`node -e` reading the 100 files", cmd: [process.execPath, '-e', readAll], expect: 0 },
    { name: '`client validate -f DIR`, 1,000 objects', cmd: [process.execPath, bin, 'validate', '-f', 'manifests'], expect: 1 },
  ]
  const kube = { name: '`kubectl apply --dry-run=server -f DIR` (1.35), 1,000 objects', cmd: [kubectl, '--kubeconfig', server.kubeconfig, 'apply', '--dry-run=server', '-f', 'manifests'], expect: 1 }
  // Both find the same hundred invalid objects, or the comparison means nothing.
  const ours = once(subjects[2].cmd, 1).out
  const theirs = once(kube.cmd, 1)
  const oursErrors = Number(/: (\d+) errors?,/.exec(ours)?.[1])
  const theirsErrors = (theirs.err.match(/is invalid/g) ?? []).length
  if (oursErrors !== 100 || theirsErrors !== 100) throw new Error(`expected 100 errors from both: client ${oursErrors}, kubectl ${theirsErrors}`)
  for (const s of subjects) once(s.cmd, s.expect)
  const times = subjects.map(() => [])
  const cpus = subjects.map(() => [])
  const kubeTimes = []
  const kubeCpus = []
  for (let i = 0; i < runs; i++) {
    subjects.forEach((s, k) => {
      const r = once(s.cmd, s.expect)
      times[k].push(r.ms)
      cpus[k].push(r.cpu)
    })
    if (i % Math.ceil(runs / kubectlRuns) === 0) {
      const serverBefore = processCpuMs(server.child.pid)
      const r = once(kube.cmd, kube.expect)
      kubeTimes.push(r.ms)
      kubeCpus.push(r.cpu + processCpuMs(server.child.pid) - serverBefore)
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const [node, reading, validate] = times.map(median)
  const [nodeCpu, readingCpu, validateCpu] = cpus.map(median)
  const kubeMedian = median(kubeTimes)
  const kubeCpu = median(kubeCpus)
  console.log(`${runs} interleaved rounds (kubectl: ${kubeTimes.length})\n`)
  console.log('| command | median wall ms | median CPU ms |')
  console.log('|---|---:|---:|')
  subjects.forEach((s, k) => console.log(`| ${s.name} | ${median(times[k]).toFixed(1)} | ${median(cpus[k]).toFixed(1)} |`))
  console.log(`| ${kube.name} | ${kubeMedian.toFixed(1)} | ${kubeCpu.toFixed(1)} (kubectl and the server) |`)
  const row = (what, figure, baseline, baselineFigure, goal) => ({ subject: `${subjects[2].name}, ${what}`, figure, unit: 'ms', baseline, baselineFigure, ratio: figure / baselineFigure, goal, met: meets(figure / baselineFigure, goal) })
  report(import.meta.url, [
    row('wall', validate, `${subjects[1].name} (\`node -e ''\`: ${node.toFixed(1)} ms)`, reading, '≤ 3x'),
    row('wall', validate, kube.name, kubeMedian, '≤ 0.2x'),
    row('CPU', validateCpu, `${subjects[1].name} (\`node -e ''\`: ${nodeCpu.toFixed(1)} ms)`, readingCpu, '≤ 3x'),
    row('CPU', validateCpu, `${kube.name}: kubectl's and the server's CPU`, kubeCpu, '≤ 0.2x'),
  ])
} finally {
  await server.stop()
  rmSync(dir, { recursive: true, force: true })
}
