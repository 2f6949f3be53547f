import { startEtcd } from '../bench/support/etcd.js'
import { startServer } from '../bench/support/server.js'
import fs from 'node:fs'
const etcd = await startEtcd()
const dir = fs.mkdtempSync('/tmp/ps-count-')
const s = await startServer(dir, [`--store-servers=${etcd.clientUrl}`])
const metrics = async () => {
  const text = await (await fetch(`${etcd.clientUrl}/metrics`)).text()
  const m = {}
  for (const line of text.split('\n')) {
    const r = /^grpc_server_handled_total\{.*grpc_method="(\w+)".*\} (\d+)/.exec(line)
    if (r) m[r[1]] = (m[r[1]] ?? 0) + Number(r[2])
  }
  return m
}
await s.admin('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } } })
await s.admin('POST', '/api/v1/namespaces/bench/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'warm' } } })
await new Promise(r => setTimeout(r, 1500))
for (const [what, op] of [['create', i => s.admin('POST', '/api/v1/namespaces/bench/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` } } })], ['get', i => s.admin('GET', `/api/v1/namespaces/bench/configmaps/c${i}`)]]) {
  const a = await metrics()
  for (let i = 0; i < 100; i++) await op(i)
  const b = await metrics()
  console.log(what, Object.fromEntries(Object.keys(b).map(k => [k, (b[k] - (a[k] ?? 0)) / 100]).filter(([, v]) => v > 0)))
}
await s.stop(); await etcd.stop(); fs.rmSync(dir, { recursive: true, force: true })
