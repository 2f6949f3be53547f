// Start-up of the short commands, the way scripts and CI run them, against Node's own empty
// start-up (`node -e ''`) and `kubectl patch --local` (kubectl 1.32), in one run: every
// subject runs once per round, rounds interleaved so that the machine's load falls on all
// alike; median and 90th percentile of the rounds. Goals (issue 18): `client patch --local`
// ≤ 1.3x `node -e ''` and ≤ 2x kubectl; `client flags validate` ≤ 1.5x `node -e ''`.
//   node bench/cli-startup.bench.js        BENCH_RUNS=40 by default
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { meets, report } from './support/report.js'
import { toolCommand, whyMissing } from './support/tools.js'

const bin = process.env.BENCH_BIN ?? fileURLToPath(new URL('../bin/run.js', import.meta.url))
const runs = Number(process.env.BENCH_RUNS ?? 40)
const missing = whyMissing('kubectl-1.32')
if (missing) {
  console.error(missing)
  process.exit(1)
}
const kubectl = toolCommand('kubectl-1.32')
const dir = mkdtempSync(join(tmpdir(), 'client-cli-startup-'))
const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
  spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] } } },
}
writeFileSync(join(dir, 'deployment.json'), JSON.stringify(deployment))
const patchArgs = ['patch', '--local', '-f', 'deployment.json', '-p', '{"spec":{"replicas":3}}', '-o', 'yaml']

// `exit`: the status the subject must end with (health check has no server to reach: 3).
const subjects = [
  { name: "`node -e ''`", cmd: [process.execPath, '-e', ''] },
  { name: '`kubectl patch --local` (1.32)', cmd: [kubectl, ...patchArgs] },
  { name: '`client patch --local`', cmd: [process.execPath, bin, ...patchArgs] },
  { name: '`client flags validate -- --secure-port=6443`', cmd: [process.execPath, bin, 'flags', 'validate', '--', '--secure-port=6443'] },
  { name: '`client health check` (connection refused)', cmd: [process.execPath, bin, 'health', 'check', '--server', 'https://127.0.0.1:1', '--insecure-skip-tls-verify'], exit: 3 },
  { name: '`client --version` (through oclif)', cmd: [process.execPath, bin, '--version'] },
]
const env = { PATH: process.env.PATH, HOME: dir, KUBECONFIG: join(dir, 'none') }

function once(s) {
  const start = process.hrtime.bigint()
  const r = spawnSync(s.cmd[0], s.cmd.slice(1), { cwd: dir, env, encoding: 'utf8' })
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  if (r.status !== (s.exit ?? 0)) throw new Error(`${s.name} exited ${r.status} (expected ${s.exit ?? 0}): ${r.stderr}`)
  return { ms, out: r.stdout }
}

try {
  // The same answer as kubectl's, byte for byte, or the comparison means nothing.
  const theirs = once(subjects[1]).out
  const ours = once(subjects[2]).out
  if (theirs !== ours) throw new Error(`client patch --local printed something else than kubectl:\n${ours}\n---\n${theirs}`)
  for (const s of subjects) once(s) // warm the file cache for all alike
  const times = subjects.map(() => [])
  for (let i = 0; i < runs; i++) subjects.forEach((s, k) => times[k].push(once(s).ms))
  const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]
  const median = times.map((xs) => quantile(xs, 0.5))
  const p90 = times.map((xs) => quantile(xs, 0.9))
  console.log(`${runs} interleaved rounds\n`)
  console.log("| command | median ms | p90 ms | × `node -e ''` |")
  console.log('|---|---:|---:|---:|')
  subjects.forEach((s, k) => console.log(`| ${s.name} | ${median[k].toFixed(1)} | ${p90[k].toFixed(1)} | ${(median[k] / median[0]).toFixed(2)} |`))
  const row = (k, base, goal) => {
    const ratio = median[k] / median[base]
    return { subject: `${subjects[k].name}, median of ${runs}`, figure: median[k], unit: 'ms', baseline: subjects[base].name, baselineFigure: median[base], ratio, goal, met: goal ? meets(ratio, goal) : undefined }
  }
  report(import.meta.url, [row(2, 0, '≤ 1.3x'), row(2, 1, '≤ 2x'), row(3, 0, '≤ 1.5x'), row(4, 0), row(5, 0)])
} finally {
  rmSync(dir, { recursive: true, force: true })
}
