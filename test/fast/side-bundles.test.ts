/**
 * The built fast entries keep what most runs never reach out of their bundles (side bundles,
 * scripts/bundle-commands.js): a static import that pulled one of these back in would make
 * every run read and compile it again. Checked on the build's output, with a run of each
 * command through bin/run.js showing which side bundles it loaded.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BIN } from '../support/api-server.js'

const FAST = fileURLToPath(new URL('../../dist/fast/', import.meta.url))

/** The bundled sources of a fast file (esbuild names each with a `// path` comment). */
function sources(name: string): string[] {
  return [...readFileSync(join(FAST, name), 'utf8').matchAll(/^\/\/ ((?:src|node_modules)\/\S+)$/gm)].map((m) => m[1]!)
}

describe('fast: side bundles (built binary)', function () {
  this.timeout(60_000)

  it('leaves got (no longer used), @peculiar/x509, js-yaml, OpenTelemetry, gRPC, the OpenAPI document and the configuration parsers out of the entries', () => {
    const left: Record<string, RegExp> = {
      'patch.cjs': /^(node_modules\/(got|@peculiar|js-yaml)\/|src\/core\/patch-command\/server\.ts|src\/core\/client\/(kubeconfig|connection|rest-client)\.ts)/,
      'health-check.cjs': /^node_modules\/(got|js-yaml)\//,
      'flags-validate.cjs': /^(node_modules\/(@marcbachmann\/cel-js|js-yaml)\/|src\/server\/authentication\/authentication-config\.ts)/,
      // OpenTelemetry and gRPC: only --tracing-config-file and a GRPC egress selection import them.
      'server-start.cjs': /^(node_modules\/(@peculiar\/x509|asn1js|js-yaml|@opentelemetry\/[^/]+|@grpc\/[^/]+)\/|src\/server\/api\/generated\/openapi-data\.ts)/,
    }
    // The patch metadata and the apply schema are data files read on first lookup, not bundle text.
    for (const file of ['patch.cjs', 'server-start.cjs']) {
      const text = readFileSync(join(FAST, file), 'utf8')
      assert.ok(!text.includes('"core.v1.PodSpec":'), `${file} holds the patch metadata or the apply schema`)
    }
    for (const data of ['patch-meta', 'apply-schema']) assert.ok(existsSync(join(FAST, 'data', `${data}.txt`)), `data/${data}.txt`)
    for (const [file, pattern] of Object.entries(left)) {
      const found = sources(file).filter((s) => pattern.test(s))
      assert.deepEqual(found, [], `${file} bundles ${found.join(', ')}`)
    }
    for (const side of ['peculiar+x509', 'js-yaml', 'openapi-data', 'config-file-parsers', 'patch-server', 'external-jwt-client']) {
      assert.ok(existsSync(join(FAST, 'side', `${side}.cjs`)), `side/${side}.cjs`)
    }
    // better-sqlite3's JavaScript is in the server's entry, its addon found without the bindings package.
    assert.ok(sources('server-start.cjs').some((s) => s.startsWith('node_modules/better-sqlite3/lib/')))
    assert.ok(!sources('server-start.cjs').some((s) => s.startsWith('node_modules/bindings/')))
  })

  it('loads a side bundle only for the runs that need it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'side-bundles-'))
    try {
      writeFileSync(join(dir, 'cm.json'), '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}}')
      writeFileSync(join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: "1"\n')
      // bin/load-fast.js reads a side bundle with fs.readFileSync (it compiles it with node:vm,
      // which Node's module tracing does not see): a preloaded hook names each one read.
      const hook = join(dir, 'trace.cjs')
      writeFileSync(
        hook,
        "const fs = require('node:fs'); const read = fs.readFileSync; fs.readFileSync = function (file, ...rest) { if (typeof file === 'string' && /side[\\\\/][^\\\\/]+\\.cjs$/.test(file)) process.stderr.write('SIDE ' + file.replace(/^.*side[\\\\/]/, '') + '\\n'); return read.call(this, file, ...rest) }\n",
      )
      const run = (...args: string[]) => {
        const r = spawnSync(process.execPath, ['--require', hook, BIN, ...args], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir, KUBECONFIG: join(dir, 'none') }, encoding: 'utf8' })
        return [...r.stderr.matchAll(/^SIDE (\S+)$/gm)].map((m) => m[1]!).sort()
      }
      assert.deepEqual(run('patch', '--local', '-f', 'cm.json', '-p', '{"data":{"b":"2"}}', '-o', 'json'), [])
      assert.deepEqual(run('patch', '--local', '-f', 'cm.yaml', '-p', '{"data":{"b":"2"}}', '-o', 'json'), ['js-yaml.cjs'])
      // Without --local, the server half (which then fails: no kubeconfig, no server).
      assert.deepEqual(run('patch', '-f', 'cm.json', '-p', '{"data":{"b":"2"}}'), ['patch-server.cjs'])
      assert.deepEqual(run('flags', 'validate', '--', '--secure-port=6443'), [])
      // A request needs no side bundle: the REST client is Node's http/https.
      assert.deepEqual(run('health', 'check', '--server', 'https://127.0.0.1:1', '--insecure-skip-tls-verify'), [])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
