// The watchers of bench/watch.bench.js, in their own process (forked), so that reading
// 100,000 events a second does not share an event loop with the bench's creates and timers.
// Messages from the parent: {open: {port, ca, cert, key, path, watchers, total, h2Connections}}
// → {opened}; {mark: true} (the measured creates start) → {cpuStart};
// {finish: {sentAt: [epoch ms per create], measuredFrom, drainMs, cpuStart}} → {result}.
// Each watcher is one HTTPS request: on its own HTTP/1.1 connection (h2Connections 0), or one
// stream of `h2Connections` HTTP/2 connections shared round-robin, as client-go multiplexes its
// watches over one connection (its transport's flow-control windows: 1 GiB per connection,
// 4 MiB per stream). It records when each watcher read each event (epoch ms:
// performance.timeOrigin + now(), comparable across processes) and does not parse the JSON:
// it scans the bytes of each line for the event type and the object's name (`w-<i>`), exact
// for the bench's own objects, without decoding them to a string first.
import http2 from 'node:http2'
import tls from 'node:tls'

let watchers = 0
let total = 0
let arrivals // Float64Array(total * watchers): when watcher k read create i's event (0: not yet)
let counts
let delivered = 0
let ended = 0
const closers = []
let onAll = () => {}
const epochNow = () => performance.timeOrigin + performance.now()

const ADDED = Buffer.from('{"type":"ADDED"')
const NAME = Buffer.from('"name":"w-')
const NEWLINE = 10
const QUOTE = 34
const ZERO = 48
const CR = 13

/** Records the ADDED events of watcher k in `buf` (whole lines from `start`); returns where the unfinished line starts. */
function scanLines(k, buf, at) {
  let start = 0
  let nl
  while ((nl = buf.indexOf(NEWLINE, start)) >= 0) {
    // {"type":"ADDED","object":{"kind":"ConfigMap",...,"metadata":{"name":"w-12",...
    if (nl - start > ADDED.length && buf.compare(ADDED, 0, ADDED.length, start, start + ADDED.length) === 0) {
      let p = buf.indexOf(NAME, start) + NAME.length
      let i = 0
      for (let c = buf[p]; c !== QUOTE; c = buf[++p]) i = i * 10 + (c - 48)
      if (i < total && arrivals[i * watchers + k] === 0) {
        arrivals[i * watchers + k] = at
        counts[k]++
        if (++delivered === total * watchers) onAll()
      }
    } else if (nl === start + 2 && buf[start] === ZERO && buf[start + 1] === CR) {
      // `0\r\n`: the last chunk of an HTTP/1.1 response (no other chunk is empty), the watch ended.
      ended++
    }
    start = nl + 1
  }
  return start
}

/** A 'data' listener for watcher k: lines may span chunks, so an unfinished one is kept. */
function reader(k) {
  let rest
  return (chunk) => {
    const at = epochNow()
    const buf = rest === undefined ? chunk : Buffer.concat([rest, chunk])
    const start = scanLines(k, buf, at)
    rest = start === buf.length ? undefined : buf.subarray(start)
  }
}

/**
 * Watcher k on its own HTTP/1.1 connection, read from the TLS socket without Node's HTTP
 * client: the response head is checked for a 200, and the chunked body is scanned as it is,
 * line by line. The server writes whole frames in each chunk, so a chunk's framing
 * (`\r\n<size>\r\n`) comes between lines and never starts with an event; the chunk
 * decoding and the response stream that Node's client adds per read are the watchers'
 * process's own cost, not the server's.
 */
function openHttp1(o, k) {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: o.port, ca: o.ca, cert: o.cert, key: o.key, ALPNProtocols: ['http/1.1'] })
    let head = Buffer.alloc(0)
    let read
    socket.on('secureConnect', () => socket.write(`GET ${o.path} HTTP/1.1\r\nHost: 127.0.0.1:${o.port}\r\nAccept: application/json\r\n\r\n`))
    socket.on('data', (chunk) => {
      if (read !== undefined) return read(chunk)
      head = Buffer.concat([head, chunk])
      const end = head.indexOf('\r\n\r\n')
      if (end < 0) return
      const status = head.subarray(0, head.indexOf('\r\n')).toString('latin1')
      if (!/^HTTP\/1\.1 200 /.test(status) || !/\r\ntransfer-encoding: chunked\r\n/i.test(head.subarray(0, end + 2).toString('latin1'))) {
        socket.destroy()
        reject(new Error(`watch ${o.path}: ${status}`))
        return
      }
      read = reader(k)
      closers.push(() => socket.destroy())
      resolve()
      if (head.length > end + 4) read(head.subarray(end + 4))
    })
    socket.on('error', reject)
  })
}

function connectHttp2(o) {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`https://127.0.0.1:${o.port}`, { ca: o.ca, cert: o.cert, key: o.key, settings: { initialWindowSize: 4 * 1024 * 1024 } })
    session.once('error', reject)
    session.once('connect', () => {
      session.setLocalWindowSize(1024 * 1024 * 1024)
      session.off('error', reject)
      session.on('error', () => {})
      closers.push(() => session.destroy())
      resolve(session)
    })
  })
}

function openHttp2(o, session, k) {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': o.path, accept: 'application/json' })
    stream.once('response', (headers) => {
      if (headers[':status'] !== 200) {
        stream.resume()
        reject(new Error(`watch ${o.path}: ${headers[':status']}`))
        return
      }
      stream.on('data', reader(k))
      stream.on('end', () => ended++)
      resolve()
    })
    stream.on('error', reject)
    stream.end()
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
    const sessions = []
    for (let c = 0; c < (o.h2Connections ?? 0); c++) sessions.push(await connectHttp2(o))
    const open = (k) => (sessions.length > 0 ? openHttp2(o, sessions[k % sessions.length], k) : openHttp1(o, k))
    // Open in groups, so that 1,000 TLS handshakes do not all wait on one another.
    for (let i = 0; i < watchers; i += 50) {
      const group = []
      for (let k = i; k < Math.min(watchers, i + 50); k++) group.push(open(k))
      await Promise.all(group)
    }
    process.send({ opened: true, cpuStart: process.cpuUsage() })
  } else if (msg.mark) {
    // The measured seconds start: the CPU counted from here.
    process.send({ cpuStart: process.cpuUsage() })
  } else if (msg.finish) {
    // Every event counts for delivery; the latencies are those of the creates from measuredFrom.
    const { sentAt, measuredFrom, drainMs, cpuStart } = msg.finish
    const drained = delivered === total * watchers || (await Promise.race([new Promise((r) => (onAll = () => r(true))), new Promise((r) => setTimeout(() => r(false), drainMs))]))
    const cpu = process.cpuUsage(cpuStart)
    for (const close of closers) close()
    const latencies = new Float64Array(delivered)
    let n = 0
    for (let i = measuredFrom; i < total; i++) {
      for (let k = 0; k < watchers; k++) {
        const at = arrivals[i * watchers + k]
        if (at !== 0) latencies[n++] = at - sentAt[i]
      }
    }
    const measured = latencies.subarray(0, n).sort()
    const warm = []
    for (let i = 0; i < measuredFrom; i++) {
      for (let k = 0; k < watchers; k++) {
        const at = arrivals[i * watchers + k]
        if (at !== 0) warm.push(at - sentAt[i])
      }
    }
    const warmup = Float64Array.from(warm).sort()
    process.send({
      result: {
        delivered,
        deliveredMeasured: n,
        drained,
        ended,
        short: counts.filter((c) => c !== total).length,
        p50: quantile(measured, 0.5),
        p99: quantile(measured, 0.99),
        max: measured[measured.length - 1],
        warmupP99: warmup.length > 0 ? quantile(warmup, 0.99) : undefined,
        cpuMs: (cpu.user + cpu.system) / 1000,
      },
    })
  }
})
