// Discovery and OpenAPI documents as the kind count doubles: requests per second for the
// aggregated discovery document (/apis, kubectl's first request) in full and as 304 on its
// ETag, and for /openapi/v2 as 304, with the built-in kinds alone (the baseline, measured in
// the same run) and again after as many custom resource kinds as there are built-in ones
// (60 CRDs). The documents are built once per set of kinds and served from memory, so the
// ratios stay near 1 (the full /apis answer grows with the document, and a CRD list is read
// per request to know the current set).
// Needs the build (npm run build).   node bench/discovery.bench.js   (BENCH_SCALE=0.2: quick)
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { report } from './support/report.js'
import { startServer } from './support/server.js'
import { rate } from './support/store-bench.js'

const scale = Number(process.env.BENCH_SCALE ?? 1)
const count = Math.max(50, Math.round(2000 * scale))
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-discovery-'))
// As the administrator: discovery is not for anonymous users. Any answer other than 2xx or
// the 304 a conditional request asks for fails the bench.
const server = await startServer(dir, [], { maxSockets: 16 })

async function request(method, urlPath, headers = {}, body) {
  const r = await server.admin.raw(method, urlPath, { headers, body, accept: headers.accept ?? 'application/json' })
  if (!(r.status >= 200 && r.status < 300) && !(r.status === 304 && headers['if-none-match'])) throw new Error(`${method} ${urlPath}: ${r.status} ${r.body.toString('utf8').slice(0, 300)}`)
  return r
}

async function measure() {
  const apis = await request('GET', '/apis', { accept: AGGREGATED })
  const openapi = await request('GET', '/openapi/v2', { accept: 'application/json' })
  const figures = {
    kinds: JSON.parse(apis.body).items.reduce((n, g) => n + g.versions.reduce((m, v) => m + v.resources.length, 0), 0),
    bytes: apis.body.length,
    full: await rate(count, 8, async () => request('GET', '/apis', { accept: AGGREGATED })),
    notModified: await rate(count, 8, async () => {
      const r = await request('GET', '/apis', { accept: AGGREGATED, 'if-none-match': apis.headers.etag })
      if (r.status !== 304) throw new Error(`/apis answered ${r.status} to its own ETag`)
    }),
    openapiNotModified: await rate(count, 8, async () => {
      const r = await request('GET', '/openapi/v2', { accept: 'application/json', 'if-none-match': openapi.headers.etag })
      if (r.status !== 304) throw new Error(`/openapi/v2 answered ${r.status} to its own ETag`)
    }),
  }
  return figures
}

function crd(i) {
  const plural = `widget${i}s`
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.bench${i}.example.com` },
    spec: {
      group: `bench${i}.example.com`,
      scope: 'Namespaced',
      names: { plural, singular: `widget${i}`, kind: `Widget${i}`, listKind: `Widget${i}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
    },
  }
}

try {
  const base = await measure()
  for (let i = 0; i < base.kinds; i++) {
    const r = await request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {}, crd(i))
    if (r.status !== 201) throw new Error(`CRD ${i}: ${r.status} ${r.body}`)
  }
  const doubled = await measure()
  const row = (what, a, b) => console.log(`  ${what.padEnd(34)} ${String(Math.round(a)).padStart(8)} ${String(Math.round(b)).padStart(8)}   x${(b / a).toFixed(2)}`)
  console.log(`  ${''.padEnd(34)} ${`${base.kinds} kinds`.padStart(8)} ${`${doubled.kinds} kinds`.padStart(8)}   ratio`)
  row('GET /apis (aggregated) req/s', base.full, doubled.full)
  row('GET /apis, 304 on the ETag req/s', base.notModified, doubled.notModified)
  row('GET /openapi/v2, 304 req/s', base.openapiNotModified, doubled.openapiNotModified)
  row('/apis document bytes', base.bytes, doubled.bytes)
  const reportRow = (subject, a, b) => ({ subject: `${subject}, ${doubled.kinds} kinds`, figure: b, unit: 'requests/s', baseline: `${base.kinds} kinds`, baselineFigure: a })
  report(import.meta.url, [
    reportRow('GET /apis (aggregated)', base.full, doubled.full),
    reportRow('GET /apis, 304 on the ETag', base.notModified, doubled.notModified),
    reportRow('GET /openapi/v2, 304 on the ETag', base.openapiNotModified, doubled.openapiNotModified),
  ])
} finally {
  await server.stop()
  fs.rmSync(dir, { recursive: true, force: true })
}
