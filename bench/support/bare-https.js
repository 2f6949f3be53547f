// A bare Node HTTPS server answering `ok`: the baseline of the /readyz benchmark. Run as a
// child process (wrk blocks the benchmark's own event loop). argv: port cert key [headers]
// With `headers`, it also sends the response headers the server's /readyz sends (the same
// names and value sizes: a fresh Audit-Id, Cache-Control, the two priority-and-fairness UIDs,
// X-Content-Type-Options): the floor of a server that answers as the reference does.
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:https'

const [port, cert, key, mode] = process.argv.slice(2)
const schemaUid = randomUUID()
const levelUid = randomUUID()
const handler =
  mode === 'headers'
    ? (_req, res) => {
        res.setHeader('Audit-Id', randomUUID())
        res.setHeader('Cache-Control', 'no-cache, private')
        res.setHeader('X-Kubernetes-Pf-Flowschema-Uid', schemaUid)
        res.setHeader('X-Kubernetes-Pf-Prioritylevel-Uid', levelUid)
        res.setHeader('Content-Type', 'text/plain; charset=utf-8')
        res.setHeader('X-Content-Type-Options', 'nosniff')
        res.end('ok')
      }
    : (_req, res) => {
        res.setHeader('Content-Type', 'text/plain; charset=utf-8')
        res.end('ok')
      }
createServer({ cert: readFileSync(cert), key: readFileSync(key) }, handler).listen(Number(port), '127.0.0.1', () => process.send?.('listening'))
