// The watchers of bench/watch.bench.js, in their own process (forked), so that reading
// 100,000 events a second does not share an event loop with the bench's creates and timers.
// Messages from the parent: {open: {port, ca, cert, key, path, watchers}} → {opened};
// {finish: {sentAt: [epoch ms per create], total, drainMs}} → {result}. It records when each
// watcher read each event (epoch ms: performance.timeOrigin + now(), comparable across
// processes) and only looks for each event's name in the line; it does not parse the JSON.
import https from 'node:https'

let watchers = 0
let total = 0
let arrivals // Float64Array(total * watchers): when watcher k read create i's event (0: not yet)
let counts
let delivered = 0
let ended = 0
const requests = []
let onAll = () => {}
const epochNow = () => performance.timeOrigin + performance.now()

function openWatch(o, k) {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: o.port, path: o.path, agent: false, ca: o.ca, cert: o.cert, key: o.key, headers: { accept: 'application/json' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume()
        reject(new Error(`watch ${o.path}: ${res.statusCode}`))
        return
      }
      let buffered = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => {
        const at = epochNow()
        buffered += chunk
        let start = 0
        let nl
        while ((nl = buffered.indexOf('\n', start)) >= 0) {
          // {"type":"ADDED","object":{"kind":"ConfigMap",...,"metadata":{"name":"w-12",...
          if (buffered.startsWith('{"type":"ADDED"', start)) {
            const at0 = buffered.indexOf('"name":"w-', start) + 10
            const i = Number(buffered.slice(at0, buffered.indexOf('"', at0)))
            if (i < total && arrivals[i * watchers + k] === 0) {
              arrivals[i * watchers + k] = at
              counts[k]++
              if (++delivered === total * watchers) onAll()
            }
          }
          start = nl + 1
        }
        buffered = buffered.slice(start)
      })
      res.on('error', () => {})
      res.on('end', () => ended++)
      resolve(req)
    })
    req.on('error', reject)
    req.end()
  })
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]

process.on('message', async (msg) => {
  if (msg.open) {
    const o = { ...msg.open, ca: Buffer.from(msg.open.ca, 'base64'), cert: Buffer.from(msg.open.cert, 'base64'), key: Buffer.from(msg.open.key, 'base64') }
    watchers = o.watchers
    total = o.total
    arrivals = new Float64Array(total * watchers)
    counts = new Array(watchers).fill(0)
    // Open in groups, so that 1,000 TLS handshakes do not all wait on one another.
    for (let i = 0; i < watchers; i += 50) {
      const group = []
      for (let k = i; k < Math.min(watchers, i + 50); k++) group.push(openWatch(o, k))
      requests.push(...(await Promise.all(group)))
    }
    process.send({ opened: true, cpuStart: process.cpuUsage() })
  } else if (msg.finish) {
    const { sentAt, drainMs, cpuStart } = msg.finish
    const drained = delivered === total * watchers || (await Promise.race([new Promise((r) => (onAll = () => r(true))), new Promise((r) => setTimeout(() => r(false), drainMs))]))
    const cpu = process.cpuUsage(cpuStart)
    for (const r of requests) r.destroy()
    const latencies = new Float64Array(delivered)
    let n = 0
    for (let i = 0; i < total; i++) {
      for (let k = 0; k < watchers; k++) {
        const at = arrivals[i * watchers + k]
        if (at !== 0) latencies[n++] = at - sentAt[i]
      }
    }
    latencies.sort()
    process.send({
      result: {
        delivered,
        drained,
        ended,
        short: counts.filter((c) => c !== total).length,
        p50: quantile(latencies, 0.5),
        p99: quantile(latencies, 0.99),
        max: latencies[latencies.length - 1],
        cpuMs: (cpu.user + cpu.system) / 1000,
      },
    })
  }
})
