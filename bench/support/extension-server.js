// A minimal extension API server for the aggregator bench, in its own process (so its CPU is not
// the load generator's): HTTPS on loopback with the certificate and key given, answering its
// group version's APIResourceList and one Flunder of about the size of the bench's ConfigMap.
// Prints its port on stdout once listening.
//   node bench/support/extension-server.js <cert file> <key file>
import { readFileSync } from 'node:fs'
import { createServer } from 'node:https'

const [certFile, keyFile] = process.argv.slice(2)
const GV = 'wardle.example.com/v1alpha1'
const list = JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: GV, resources: [{ name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list'] }] })
const flunder = JSON.stringify({ apiVersion: GV, kind: 'Flunder', metadata: { name: 'f1', namespace: 'default', uid: '5f1c3a52-0b0e-4d5b-9d7b-1b2c3d4e5f60', resourceVersion: '1', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { payload: 'x'.repeat(900) } })
const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile), keepAliveTimeout: 60_000 }, (req, res) => {
  const path = (req.url ?? '').split('?')[0]
  const body = path === `/apis/${GV}` ? list : path === `/apis/${GV}/namespaces/default/flunders/f1` ? flunder : undefined
  res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' })
  res.end(body ?? '{}')
})
server.listen(0, '127.0.0.1', () => console.log(server.address().port))
