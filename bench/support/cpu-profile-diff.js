// Compares V8 CPU profiles (.cpuprofile, from node --cpu-prof) function by function: self time
// per function summed over every profile of each side, as a share of the side's samples, and
// the difference. Used to find where a server with validation spends what one without does not.
//   node bench/support/cpu-profile-diff.js <dir-or-file A> <dir-or-file B> [top=40]
import fs from 'node:fs'
import path from 'node:path'

function files(target) {
  if (fs.statSync(target).isFile()) return [target]
  return fs.readdirSync(target, { recursive: true }).filter((f) => String(f).endsWith('.cpuprofile')).map((f) => path.join(target, String(f)))
}

/** Self time (µs) per function key over the profiles, and the total sampled time. */
function selfTimes(target) {
  const self = new Map()
  let total = 0
  for (const file of files(target)) {
    const profile = JSON.parse(fs.readFileSync(file, 'utf8'))
    const byId = new Map(profile.nodes.map((n) => [n.id, n]))
    for (let i = 0; i < profile.samples.length; i++) {
      const node = byId.get(profile.samples[i])
      const dt = profile.timeDeltas[i + 1] ?? 0
      const f = node.callFrame
      const key = `${f.functionName || '(anonymous)'} ${f.url ? `${path.basename(f.url)}:${f.lineNumber + 1}` : ''}`.trim()
      self.set(key, (self.get(key) ?? 0) + dt)
      total += dt
    }
  }
  return { self, total }
}

const [a, b, top = '40'] = process.argv.slice(2)
const A = selfTimes(a)
const B = selfTimes(b)
const busy = (s) => s.total - (s.self.get('(idle)') ?? 0)
console.log(`A ${a}: ${(A.total / 1e6).toFixed(1)} s sampled, ${(busy(A) / 1e6).toFixed(1)} s busy`)
console.log(`B ${b}: ${(B.total / 1e6).toFixed(1)} s sampled, ${(busy(B) / 1e6).toFixed(1)} s busy`)
const keys = new Set([...A.self.keys(), ...B.self.keys()])
const rows = [...keys].map((k) => {
  const ta = A.self.get(k) ?? 0
  const tb = B.self.get(k) ?? 0
  return { k, ta, tb, d: ta - tb }
})
rows.sort((x, y) => Math.abs(y.d) - Math.abs(x.d))
console.log('\n self ms A | self ms B | A - B ms | % of A busy | function')
for (const r of rows.slice(0, Number(top))) {
  console.log(`${(r.ta / 1e3).toFixed(0).padStart(10)} | ${(r.tb / 1e3).toFixed(0).padStart(9)} | ${(r.d / 1e3).toFixed(0).padStart(8)} | ${((100 * r.ta) / busy(A)).toFixed(2).padStart(6)} | ${r.k}`)
}
