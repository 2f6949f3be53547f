// A bare Node HTTPS server answering `ok`: the baseline of the /readyz benchmark. Run as a
// child process (wrk blocks the benchmark's own event loop). argv: port cert key
import { readFileSync } from 'node:fs'
import { createServer } from 'node:https'

const [port, cert, key] = process.argv.slice(2)
createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (_req, res) => {
  res.setHeader('Content-Type', 'text/plain; charset=utf-8')
  res.end('ok')
}).listen(Number(port), '127.0.0.1', () => process.send?.('listening'))
