// The load side of bench/overload.bench.js and of the overload test: `concurrency` clients
// that each list a collection again and again over kept-alive connections, reading and
// discarding every body, for `seconds`. Runs as a child process so that its own work does
// not delay the probes measured by the parent. Prints one JSON line of counts when done.
//
//     node list-load.js <url> <concurrency> <seconds> [bearer-token]
import { Agent, request } from 'node:https'

const [url, concurrencyArg, secondsArg, token] = process.argv.slice(2)
const concurrency = Number(concurrencyArg)
const deadline = Date.now() + Number(secondsArg) * 1000
const agent = new Agent({ keepAlive: true, maxSockets: concurrency, rejectUnauthorized: false })
const counts = { ok: 0, tooManyRequests: 0, otherStatus: 0, errors: 0, bytes: 0 }

function once() {
  return new Promise((resolve) => {
    const req = request(url, { agent, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
      if (res.statusCode === 200) counts.ok++
      else if (res.statusCode === 429) counts.tooManyRequests++
      else counts.otherStatus++
      res.on('data', (chunk) => (counts.bytes += chunk.length))
      res.on('end', resolve)
      res.on('error', () => {
        counts.errors++
        resolve()
      })
    })
    req.setTimeout(60_000, () => req.destroy(new Error('timeout')))
    req.on('error', () => {
      counts.errors++
      resolve()
    })
    req.end()
  })
}

async function client() {
  while (Date.now() < deadline) {
    await once()
    // A refused request comes back at once; a short pause keeps the refusals from being
    // nothing but a busy loop of this process.
    await new Promise((r) => setTimeout(r, 20))
  }
}

await Promise.all(Array.from({ length: concurrency }, client))
agent.destroy()
process.stdout.write(`${JSON.stringify(counts)}\n`)
