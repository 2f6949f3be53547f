/**
 * Whole lists written while they are read (issue 13 item 7), on both stores: the answer is
 * the complete `<Kind>List` across store pages, in key order, filtered; and under ten times
 * the in-flight limit of clients listing a large collection without pause, probes on new
 * connections are still answered and memory comes back afterwards. The bounds are generous
 * (a shared 2-core machine); bench/overload.bench.js measures the figures.
 */
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request as httpsRequest } from 'node:https'
import { fileURLToPath } from 'node:url'
import { isDeepStrictEqual } from 'node:util'
import { load as parseYaml } from 'js-yaml'
import { loadProtobufCodec } from '../../../src/core/protobuf/index.js'
import { ApiServer } from '../../support/api-server.js'
import { requireTool } from '../../support/tools.js'
import { createConfigMaps } from '../../support/bulk-configmaps.js'
import { describeEachStore } from '../../support/stores.js'

const PATH = '/api/v1/namespaces/default/configmaps'
const LOAD_SCRIPT = fileURLToPath(new URL('../../../bench/support/list-load.js', import.meta.url))

function rssMiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024
}

/** A GET on a new TLS connection: its status, or 0 when nothing came within 5 s. */
function probe(port: number, path: string): Promise<number> {
  return new Promise((resolve) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path, agent: false, rejectUnauthorized: false }, (res) => {
      res.resume()
      resolve(res.statusCode!)
    })
    req.setTimeout(5000, () => {
      req.destroy()
      resolve(0)
    })
    req.on('error', () => resolve(0))
    req.end()
  })
}

const LOAD_TOKEN = 'loader-token'

/** A GET as the administrator whose body is kept as bytes (protobuf). */
function binaryGet(server: ApiServer, path: string, accept: string): Promise<{ contentType: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    httpsRequest({ host: '127.0.0.1', port: server.port, path, agent: false, rejectUnauthorized: false, headers: { accept }, ...server.tlsClient() }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ contentType: String(res.headers['content-type']), body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
      .on('error', reject)
      .end()
  })
}

describeEachStore('lists written as they are read', 'list-stream', function (store) {
  this.timeout(240_000)
  let server: ApiServer

  before(async function () {
    this.timeout(120_000)
    // The load is a token user's bound to `view`: the administrator (system:masters) is exempt from the limits.
    const tokens = join(mkdtempSync(join(tmpdir(), 'list-stream-')), 'tokens.csv')
    writeFileSync(tokens, `${LOAD_TOKEN},loader,loader-uid\n`)
    server = await ApiServer.start({ args: [...store.args, '--max-requests-inflight=5', '--max-mutating-requests-inflight=5', `--token-auth-file=${tokens}`], waitFor: 'ready' })
    const binding = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'loader-view' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'loader' }] }
    const bound = await server.get('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { 'content-type': 'application/json' }, 'POST', JSON.stringify(binding))
    assert.equal(bound.status, 201, bound.body)
    // 250 objects: three store pages of 100.
    await createConfigMaps(server, { prefix: 'cm', count: 250, bytes: 10_000, labels: (i) => ({ parity: i % 2 === 0 ? 'even' : 'odd' }), concurrency: 4 })
  })
  after(async () => {
    await server?.stop()
  })

  it('answers the whole list across store pages, in order, filtered, at one resourceVersion', async () => {
    for (const [query, expected] of [
      ['', 250],
      ['?labelSelector=parity%3Deven', 125],
      ['?resourceVersion=0', 250],
    ] as const) {
      const reply = await server.get(`${PATH}${query}`)
      assert.equal(reply.status, 200)
      assert.equal(reply.headers['content-type'], 'application/json')
      const list = JSON.parse(reply.body)
      assert.equal(list.kind, 'ConfigMapList')
      assert.equal(list.apiVersion, 'v1')
      assert.match(list.metadata.resourceVersion, /^\d+$/)
      assert.deepEqual(Object.keys(list), ['kind', 'apiVersion', 'metadata', 'items'])
      const names = list.items.map((o: { metadata: { name: string } }) => o.metadata.name)
      assert.equal(names.length, expected, `${query}: ${names.length} items`)
      assert.deepEqual(names, [...names].sort(), `${query}: key order`)
      assert.equal(new Set(names).size, names.length, `${query}: no duplicates`)
      for (const item of list.items) assert.equal(Number(item.metadata.resourceVersion) <= Number(list.metadata.resourceVersion), true)
    }
  })

  it('answers every format of the same list: kubectl tables and YAML, metadata only, protobuf, whole and in pages', async function () {
    const kubectl = requireTool(this, 'kubectl')
    const cache = mkdtempSync(join(tmpdir(), 'list-stream-kubectl-'))
    const run = (...args: string[]) =>
      new Promise<string>((resolve, reject) =>
        execFile(kubectl, [`--kubeconfig=${server.adminKubeconfig}`, `--cache-dir=${cache}`, '-n', 'default', ...args], { maxBuffer: 64 * 2 ** 20, env: { ...process.env, HOME: cache } }, (err, stdout, stderr) =>
          err ? reject(new Error(`kubectl ${args.join(' ')}: ${stderr}`)) : resolve(stdout),
        ),
      )
    const whole = JSON.parse((await server.get(PATH)).body) as { metadata: { resourceVersion: string }; items: { metadata: { name: string } }[] }
    const names = whole.items.map((o) => o.metadata.name)
    assert.equal(names.length, 250)
    // kubectl get asks for Tables: whole (--chunk-size=0) and in pages of 100 (limit and continue).
    for (const chunk of ['0', '100', '500']) {
      const table = await run('get', 'configmaps', `--chunk-size=${chunk}`, '--no-headers')
      const rows = table.trim().split('\n').map((line) => line.split(/\s+/)[0])
      assert.deepEqual(rows.filter((n) => n!.startsWith('cm-')), names, `table, chunk ${chunk}`)
      const yaml = await run('get', 'configmaps', `--chunk-size=${chunk}`, '-o', 'yaml')
      const listed = [...yaml.matchAll(/^    name: (cm-\S+)$/gm)].map((m) => m[1])
      assert.deepEqual(listed, names, `kubectl -o yaml, chunk ${chunk}`)
    }
    const raw = JSON.parse(await run('get', '--raw', PATH)) as typeof whole
    assert.deepEqual(raw.items.map((o) => o.metadata.name), names)
    // The server's own YAML, metadata only and protobuf, at the JSON list's revision.
    const at = `${PATH}?resourceVersion=${whole.metadata.resourceVersion}&resourceVersionMatch=Exact`
    const yamlReply = await server.get(at, { accept: 'application/yaml' })
    assert.equal(yamlReply.headers['content-type'], 'application/yaml')
    assert.ok(isDeepStrictEqual(parseYaml(yamlReply.body), whole), 'the YAML list differs from the JSON one')
    const partial = JSON.parse((await server.get(at, { accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' })).body)
    assert.equal(partial.kind, 'PartialObjectMetadataList')
    assert.deepEqual(partial.items.map((o: { metadata: unknown }) => o.metadata), whole.items.map((o) => o.metadata))
    const codec = await loadProtobufCodec()
    for (const query of [at, `${PATH}?limit=100`]) {
      const pb = await binaryGet(server, query, 'application/vnd.kubernetes.protobuf')
      assert.equal(pb.contentType, 'application/vnd.kubernetes.protobuf')
      const decoded = codec.decode(pb.body) as typeof whole
      // Protobuf list items carry no apiVersion and kind (Go's TypeMeta is not a protobuf field).
      const expected = (query === at ? whole.items : whole.items.slice(0, 100)).map(({ apiVersion: _a, kind: _k, ...rest }: Record<string, unknown>) => rest)
      assert.equal(decoded.items.length, expected.length)
      assert.ok(isDeepStrictEqual(decoded.items, expected), `${query}: the protobuf items differ from the JSON ones`)
      if (query === at) assert.deepEqual(decoded.metadata, whole.metadata)
    }
  })

  it('answers probes on new connections under 10x the in-flight limit of listing clients, and memory comes back', async () => {
    const idle = rssMiB(server.pid)
    const load = spawn(process.execPath, [LOAD_SCRIPT, `https://127.0.0.1:${server.port}${PATH}`, '50', '12', LOAD_TOKEN], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    load.stdout!.on('data', (d) => (out += d))
    const done = new Promise<void>((resolve) => load.once('exit', () => resolve()))
    const statuses: number[] = []
    let peak = idle
    try {
      await new Promise((r) => setTimeout(r, 1500))
      while (load.exitCode === null) {
        statuses.push(await probe(server.port, '/livez'))
        peak = Math.max(peak, rssMiB(server.pid))
        await new Promise((r) => setTimeout(r, 500))
      }
    } finally {
      await done
    }
    const counts = JSON.parse(out) as { ok: number; tooManyRequests: number; errors: number }
    assert.ok(counts.ok > 0, `the load listed nothing: ${out}`)
    assert.ok(statuses.length >= 3, `only ${statuses.length} probes ran`)
    assert.deepEqual(statuses.filter((s) => s !== 200), [], `probes without a 200 in 5 s: ${statuses.join(' ')}`)
    let after = Infinity
    for (let i = 0; i < 30 && after >= 2 * idle + 100; i++) {
      await new Promise((r) => setTimeout(r, 500))
      after = Math.min(after, rssMiB(server.pid))
    }
    assert.ok(after < 2 * idle + 100, `RSS after ${after.toFixed(0)} MiB (idle ${idle.toFixed(0)}, peak ${peak.toFixed(0)})`)
  })
})
