// client patch --local against kubectl patch --local (kubectl 1.32, from test/support/tools.json) in one
// run: start-up on a small file, a strategic patch touching 1,000 of a pod's 5,000
// containers, and a JSON patch of 10,000 operations. Goal: within 2x kubectl's wall time.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { meets, report } from './support/report.js'
import { toolCommand } from './support/tools.js'

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const kubectl = process.env.KUBECTL ?? toolCommand('kubectl-1.32')
const runs = Number(process.env.BENCH_RUNS ?? 10)
const dir = mkdtempSync(join(tmpdir(), 'client-patch-bench-'))

const small = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data: { a: '1' } }
const containers = Array.from({ length: 5000 }, (_, i) => ({ name: `c${i}`, image: `img:${i}`, env: [{ name: 'X', value: String(i) }] }))
const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'big', namespace: 'default' }, spec: { containers } }
const smp = { spec: { containers: Array.from({ length: 1000 }, (_, i) => ({ name: `c${i * 5}`, image: `new:${i}` })) } }
const ops = Array.from({ length: 10_000 }, (_, i) => ({ op: 'add', path: `/data/k${i}`, value: String(i) }))
writeFileSync(join(dir, 'small.json'), JSON.stringify(small))
writeFileSync(join(dir, 'pod.json'), JSON.stringify(pod))
writeFileSync(join(dir, 'smp.json'), JSON.stringify(smp))
writeFileSync(join(dir, 'ops.json'), JSON.stringify(ops))

const cases = [
  { name: 'start-up: small ConfigMap, merge patch', args: ['patch', '--local', '-f', 'small.json', '--type', 'merge', '-p', '{"data":{"b":"2"}}', '-o', 'json'] },
  { name: 'strategic: 1,000 of 5,000 containers', args: ['patch', '--local', '-f', 'pod.json', '--patch-file', 'smp.json', '-o', 'json'] },
  { name: 'JSON patch: 10,000 operations', args: ['patch', '--local', '-f', 'small.json', '--type', 'json', '--patch-file', 'ops.json', '-o', 'json'] },
]

const time = (cmd, args) => {
  const start = process.hrtime.bigint()
  const r = spawnSync(cmd[0], [...cmd.slice(1), ...args], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28, env: { PATH: process.env.PATH, HOME: dir } })
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  if (r.status !== 0) throw new Error(`${cmd.join(' ')} ${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  return { ms, out: r.stdout }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

try {
  console.log('| case | kubectl ms | client ms | × kubectl | same output |')
  console.log('|---|---:|---:|---:|---|')
  let worst = 0
  const rows = []
  for (const c of cases) {
    const k = []
    const o = []
    let same = true
    for (let i = 0; i < runs; i++) {
      const a = time([kubectl], c.args)
      const b = time([process.execPath, bin], c.args)
      k.push(a.ms)
      o.push(b.ms)
      same &&= a.out === b.out
    }
    const ratio = median(o) / median(k)
    worst = Math.max(worst, ratio)
    console.log(`| ${c.name} | ${median(k).toFixed(0)} | ${median(o).toFixed(0)} | ${ratio.toFixed(2)} | ${same ? 'yes' : 'NO'} |`)
    if (!same) throw new Error(`${c.name}: client printed something else than kubectl`)
    rows.push({ subject: `\`client patch --local\`, ${c.name}`, figure: median(o), unit: 'ms', baseline: '`kubectl patch --local`', baselineFigure: median(k), goal: '≤ 2x', met: meets(ratio, '≤ 2x') })
  }
  report(import.meta.url, rows)
  console.log(`\nworst case: ${worst.toFixed(2)}x kubectl's wall time (goal: within 2x) ${worst <= 2 ? 'MET' : 'NOT MET'}`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
