// A bare Node HTTPS server doing the least an API server must: the baseline of the API-path
// bench. POST parses the JSON body and answers 201 with it; GET answers one object's JSON.
// Run as a child process (wrk must not share the bench's event loop). argv: port cert key
import { readFileSync } from 'node:fs'
import { createServer } from 'node:https'

const [port, cert, key] = process.argv.slice(2)
const stored = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'one', namespace: 'bench', uid: '5f1c3a52-0b0e-4d5b-9d7b-1b2c3d4e5f60', resourceVersion: '2', creationTimestamp: '2026-01-01T00:00:00Z', labels: { app: 'bench' } },
  data: { payload: 'x'.repeat(900) },
}
createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (req, res) => {
  if (req.method === 'GET') {
    res.setHeader('Content-Type', 'application/json')
    res.end(JSON.stringify(stored))
    return
  }
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    const obj = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    res.statusCode = 201
    res.setHeader('Content-Type', 'application/json')
    res.end(JSON.stringify(obj))
  })
}).listen(Number(port), '127.0.0.1', () => process.send?.('listening'))
