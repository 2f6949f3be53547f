// Start-up time of `client flags validate` against the floor, `node -e ''`, in one run.
// Runs are interleaved so that machine load affects both alike. Goal: under 2.5x the floor.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const bin = process.env.BENCH_BIN ?? fileURLToPath(new URL('../bin/run.js', import.meta.url))
const runs = Number(process.env.BENCH_RUNS ?? 30)
const subjects = [
  { name: "node -e ''", argv: ['-e', ''] },
  { name: 'client flags validate -- --secure-port=6443', argv: [bin, 'flags', 'validate', '--', '--secure-port=6443'] },
  { name: 'client --version', argv: [bin, '--version'] },
]

const times = subjects.map(() => [])
// One warm-up of each, so that the file cache is equally warm.
for (const s of subjects) spawnSync(process.execPath, s.argv)
for (let i = 0; i < runs; i++) {
  subjects.forEach((s, k) => {
    const start = process.hrtime.bigint()
    const r = spawnSync(process.execPath, s.argv, { stdio: 'ignore' })
    if (r.status !== 0) throw new Error(`${s.name} exited ${r.status}`)
    times[k].push(Number(process.hrtime.bigint() - start) / 1e6)
  })
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const floor = median(times[0])
console.log(`| command | median ms | min ms | × floor |`)
console.log(`|---|---:|---:|---:|`)
subjects.forEach((s, k) => {
  const m = median(times[k])
  console.log(`| \`${s.name}\` | ${m.toFixed(1)} | ${Math.min(...times[k]).toFixed(1)} | ${(m / floor).toFixed(2)} |`)
})
const ratio = median(times[1]) / floor
console.log(`\nflags validate start-up: ${ratio.toFixed(2)}x the floor (goal: under 2.5x) ${ratio < 2.5 ? 'MET' : 'NOT MET'}`)
