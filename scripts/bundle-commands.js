#!/usr/bin/env node
// Start-up time is part of the product, and most of it is module loading. So:
// 1. `@oclif/core` is bundled once into dist/vendor/oclif-core.mjs (one file instead of
//    ~150 CommonJS modules), and everything of ours imports it as `#oclif-core` (the
//    package's "imports" map), so there is one copy of the framework.
// 2. Each compiled command in dist/commands is replaced by one bundled file (plus shared
//    chunks in dist/commands/_chunks, loaded only when a command imports them at run time).
// 3. `patch`, `flags validate`, `health check`, `server start` and `auth` also get one CommonJS file each in dist/fast,
//    from src/fast/*.ts, which bin/run.js runs without oclif (see there why).
// Other npm packages stay external and load from node_modules as usual.
import { build } from 'esbuild'
import { spawn, spawnSync } from 'node:child_process'
import { request as httpsRequest } from 'node:https'
import { createServer } from 'node:net'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createRequire } from 'node:module'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(import.meta.url)

// 1. The framework.
const names = Object.keys(require('@oclif/core')).filter((name) => name !== 'default')
const entry = join(root, 'dist/vendor/oclif-core-entry.mjs')
mkdirSync(join(root, 'dist/vendor'), { recursive: true })
writeFileSync(entry, `import core from '@oclif/core'\nexport const { ${names.join(', ')} } = core\nexport default core\n`)
await build({
  entryPoints: [entry],
  outfile: join(root, 'dist/vendor/oclif-core.mjs'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Only needed for TypeScript development mode, which the built binary does not use.
  external: ['typescript', 'ts-node'],
  // The bundled CommonJS code still calls require and reads files next to its own sources.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; import { dirname as __dirnameOf } from 'node:path'; const require = __createRequire(import.meta.url); const __dirname = __dirnameOf(require.resolve('@oclif/core'));",
  },
  logLevel: 'warning',
})

// 2. The commands.
const commands = join(root, 'src/commands')
const entries = []
const walk = (dir) => {
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, item.name)
    if (item.isDirectory()) walk(path)
    else if (item.name.endsWith('.ts')) entries.push(path)
  }
}
walk(commands)

await build({
  entryPoints: entries,
  outdir: join(root, 'dist/commands'),
  outbase: commands,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  chunkNames: '_chunks/[name]-[hash]',
  allowOverwrite: true,
  // The server's log lines name the source file and line (klog style); maps lead back to src/.
  sourcemap: 'linked',
  logLevel: 'warning',
  plugins: [
    {
      name: 'vendored-oclif',
      setup(b) {
        b.onResolve({ filter: /^@oclif\/core$/ }, () => ({ path: '#oclif-core', external: true }))
      },
    },
  ],
})
/**
 * A generated artefact `{ ...tables, defs: { name: definition } }` as a data file in
 * `<outDir>/data/<name>.txt` and the module that reads it: the first line is the JSON of the
 * tables (the kinds' definition names), then one line per definition, sorted by name: its name,
 * a tab and its JSON. The module's default export reads the file (as bytes) on the first access
 * to any field; a definition is found by a binary search over the lines and parsed on its first
 * lookup (`defs[name]`, undefined for a name that is not there), so a run pays for the few
 * definitions it looks up, not for the 700 it does not.
 */
function lazyDefinitions(outDir, name, artefact) {
  const { defs, ...tables } = artefact
  const names = Object.keys(defs).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const text = `${[JSON.stringify(tables), ...names.map((def) => `${def}\t${JSON.stringify(defs[def])}`)].join('\n')}\n`
  // Bytes read as latin1 are the same text for ASCII, and byte order is string order.
  if (/[^\x00-\x7f]/.test(text) || names.some((def) => /[\t\n]/.test(def))) throw new Error(`${name}: not ASCII, or a definition name with a tab or a newline`)
  mkdirSync(join(outDir, 'data'), { recursive: true })
  writeFileSync(join(outDir, 'data', `${name}.txt`), text)
  return `import { readFileSync } from 'node:fs'
import { join } from 'node:path'
let bytes
let tables
const parsed = new Map()
function load() {
  if (tables) return tables
  bytes = readFileSync(join(__dirname, 'data', ${JSON.stringify(`${name}.txt`)}))
  tables = JSON.parse(bytes.toString('latin1', 0, bytes.indexOf(10)))
  return tables
}
/** The JSON text of a definition: a binary search over the sorted lines after the first. */
function text(def) {
  let lo = bytes.indexOf(10) + 1
  let hi = bytes.length
  while (lo < hi) {
    const start = bytes.lastIndexOf(10, ((lo + hi) >>> 1) - 1) + 1
    const tab = bytes.indexOf(9, start)
    const end = bytes.indexOf(10, tab)
    const name = bytes.toString('latin1', start, tab)
    if (name === def) return bytes.toString('latin1', tab + 1, end)
    if (name < def) lo = end + 1
    else hi = start
  }
  return undefined
}
const defs = new Proxy({}, {
  get(_, def) {
    load()
    if (typeof def !== 'string') return undefined
    if (parsed.has(def)) return parsed.get(def)
    const found = text(def)
    const value = found === undefined ? undefined : JSON.parse(found)
    parsed.set(def, value)
    return value
  },
})
const artefact = { defs }
for (const key of ${JSON.stringify(Object.keys(tables))}) Object.defineProperty(artefact, key, { enumerable: true, get: () => load()[key] })
export default artefact
`
}

/** The JSON modules of a bundle written to `outDir`. */
function jsonParsePlugin(outDir) {
  return {
      // Other JSON as a JSON.parse of a string: V8 parses JSON text faster than it compiles and
      // runs the same object as a JavaScript literal.
      name: 'json-parse',
      setup(b) {
        // The protobuf descriptor (360 kB) is only imported when a codec is first needed
        // (src/core/protobuf/index.ts): it stays a file of its own (tsc copies it to dist/core),
        // read then, instead of making every fast entry read and compile it at start.
        b.onLoad({ filter: /k8s-descriptor\.json$/ }, () => ({
          contents: `export default require(require('node:path').join(__dirname, ${JSON.stringify(relative(outDir, join(root, 'dist/core/protobuf/generated/k8s-descriptor.json')))}))`,
          loader: 'js',
        }))
        // The patch metadata (727 definitions, 139 kB) and the apply schema (660, 113 kB) are
        // data files beside the bundle, read on their first lookup, each definition parsed when
        // it is first looked up: in the bundle they were a tenth of `patch`'s bytes to read and
        // compile at every start (and JSON.parse of the whole apply schema, thousands of small
        // objects, part of every server start), though most runs look up a few definitions or none.
        b.onLoad({ filter: /(patch-meta|apply-schema)\.json$/ }, (args) => {
          const name = args.path.endsWith('patch-meta.json') ? 'patch-meta' : 'apply-schema'
          return { contents: lazyDefinitions(outDir, name, JSON.parse(readFileSync(args.path, 'utf8'))), loader: 'js' }
        })
        b.onLoad({ filter: /\.json$/ }, (args) => ({ contents: `export default JSON.parse(${JSON.stringify(readFileSync(args.path, 'utf8'))})`, loader: 'js' }))
      },
    }
}

// 3. The fast entries. CommonJS, so that a CommonJS bin/run.js loads them without Node's ES
// loader; import.meta.url (used to find js-yaml and package.json) becomes the file's own URL.
const fastDir = join(root, 'src/fast')
const fastBanner =
  "const __import_meta_url = require('node:url').pathToFileURL(__filename).href; const __dynamicImport = typeof __fastImport === 'function' ? __fastImport : (specifier) => import(specifier); const __builtinESM = (mod) => Object.create(mod, { default: { value: mod, enumerable: true } }); const __sideRequire = typeof __fastImport === 'function' && __fastImport.sync ? __fastImport.sync : require;"
const fastEntries = readdirSync(fastDir)
  .filter((name) => name.endsWith('.ts') && !['outcome.ts', 'oclif-lite.ts'].includes(name))
  .map((name) => join(fastDir, name))
// The packages are bundled in too, so that a fast entry is one file that Node neither resolves
// module by module (each package.json read, each path probed) nor compiles from scratch (the
// code cache below covers the whole file), better-sqlite3's JavaScript included (its addon is
// loaded from its build directory, see the plugin below). Left outside: etcd3 (required on first
// use of an etcd store; gRPC reads its .proto files from its own directory) and ink and React
// (the live view of health watch, not in these entries).
// Packages that the entries only import dynamically and that most runs never reach are side
// bundles of their own (dist/fast/side/, loaded by bin/load-fast.js on the first import()):
// reading and compiling a bundle costs in proportion to its bytes, used or not.
// (The REST client no longer uses got: Node's http/https, src/core/client/http-exchange.ts.)
// @peculiar/x509 (with asn1js, tsyringe, reflect-metadata) a seventh of `server start`, which
// reaches it only to generate a certificate.
// js-yaml, which `patch` needs only for YAML input and the server for its kubeconfig and
// configuration files, is one too, required synchronously (src/core/util/yaml.ts loads it on first
// use): from node_modules it cost the server's start a tenth of a second to resolve and compile.
const sidePackages = ['@peculiar/x509', 'js-yaml']
// Modules of ours in the same way, reached only by import() (a static import of the same module
// keeps it in the entry): the OpenAPI document (a tenth of `server start`, read on the first
// /openapi request) and the server's configuration-file parsers with the CEL engine (three
// quarters of `flags validate`, which needs them only for a command line that names such a
// file). A side bundle has its own copy of what it imports, so one is only a module whose
// callers do not share state with it beyond what it returns.
const sideModules = {
  'openapi-data': 'src/server/api/generated/openapi-data.ts',
  // Its definitions without descriptions, which decoding a request body needs (every write).
  'openapi-definitions': 'src/server/api/generated/openapi-definitions.ts',
  'config-file-parsers': 'src/core/flags/rules/config-file-parsers.ts',
  // `patch` against a server (with the connection and REST client code, a fifth of the `patch`
  // bundle), which `patch --local` never reaches. It shares the engine and printers through the
  // arguments it is given; its errors for the command line are LocalError, which `instanceof`
  // recognizes across the two copies (src/core/patch-command/steps.ts).
  'patch-server': 'src/core/patch-command/server.ts',
  // The external JWT signer's gRPC client (with gRPC, its loader and the protobuf parser), which
  // only --service-account-signing-endpoint reaches.
  'external-jwt-client': 'src/server/authentication/externaljwt/client.ts',
  // Every served kind (with every kind's strategy: nine tenths of `auth can-i`), which the offline
  // auth commands read only for a type the generated table of built-in resources lacks.
  'served-kinds': 'src/cli/served-kinds.ts',
}
// Also outside: what only an option or a request that few runs have loads, on first use: gRPC
// with its .proto files (the external JWT signer, the OTLP exporter), OpenTelemetry (tracing),
// ws (exec, attach and port-forward streams), node-unix-socket's addon (--permit-port-sharing).
const lazyPackages = ['@grpc/grpc-js', '@grpc/proto-loader', '@opentelemetry', 'ws', 'node-unix-socket-linux-x64-gnu', 'node-unix-socket-linux-x64-musl']
const fastExternal = ['etcd3', 'ink', 'react', 'better-sqlite3/package.json', ...lazyPackages, ...sidePackages].flatMap((name) => [name, `${name}/*`])
await build({
  entryPoints: fastEntries,
  outdir: join(root, 'dist/fast'),
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: fastExternal,
  // The server's log lines name the source file and line (src/server/log/klog-format.ts).
  // Only positions are read from the maps: without the sources' text they are a fraction of the size.
  sourcemap: 'linked',
  sourcesContent: false,
  define: { 'import.meta.url': '__import_meta_url' },
  banner: { js: fastBanner },
  logLevel: 'warning',
  plugins: [
    jsonParsePlugin(join(root, 'dist/fast')),
    {
      // better-sqlite3's JavaScript is bundled (from node_modules its dozen files were resolved and
      // compiled one by one at every start); its addon is required from the package's build
      // directory, where its install puts it, in place of the bindings package, which probes a
      // list of directories and reads the stack to find the package, neither of which works
      // from a bundle.
      name: 'sqlite-addon',
      setup(b) {
        b.onResolve({ filter: /^bindings$/ }, (args) => (args.importer.includes(`${sep}better-sqlite3${sep}`) ? { path: 'better-sqlite3-addon', namespace: 'sqlite-addon' } : undefined))
        b.onLoad({ filter: /.*/, namespace: 'sqlite-addon' }, () => ({
          contents:
            "const { dirname, join } = require('node:path')\nmodule.exports = (name) => require(join(dirname(require.resolve('better-sqlite3/package.json')), 'build', 'Release', name))\n",
          loader: 'js',
        }))
      },
    },
    {
      // A dynamic import() of a side module: `client-side:<name>`, which bin/load-fast.js loads.
      name: 'side-modules',
      setup(b) {
        b.onResolve({ filter: /^\.\.?\/.*\.js$/ }, (args) => {
          if (args.kind !== 'dynamic-import') return undefined
          const target = join(args.resolveDir, args.path).replace(/\.js$/, '.ts')
          const name = Object.keys(sideModules).find((n) => join(root, sideModules[n]) === target)
          return name ? { path: `client-side:${name}`, external: true } : undefined
        })
      },
    },
    {
      // The commands' oclif base class and flag builders, without oclif (src/fast/oclif-lite.ts).
      name: 'oclif-lite',
      setup(b) {
        b.onResolve({ filter: /^@oclif\/core$/ }, () => ({ path: join(fastDir, 'oclif-lite.ts') }))
      },
    },
  ],
})

// The side bundles: one CommonJS file per package, its exports those of the package's import().
mkdirSync(join(root, 'dist/fast/side'), { recursive: true })
for (const name of sidePackages) {
  await build({
    stdin: { contents: `module.exports = require(${JSON.stringify(name)})`, resolveDir: root, sourcefile: `side-${name}.js` },
    outfile: join(root, 'dist/fast/side', `${name.replace(/^@/, '').replace(/\//g, '+')}.cjs`),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    banner: { js: fastBanner },
    logLevel: 'warning',
  })
}

for (const [name, entry] of Object.entries(sideModules)) {
  await build({
    entryPoints: [join(root, entry)],
    outfile: join(root, 'dist/fast/side', `${name}.cjs`),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: fastExternal,
    define: { 'import.meta.url': '__import_meta_url' },
    banner: { js: fastBanner },
    logLevel: 'warning',
    // The gRPC loader require()s its descriptors' JSON, which the plugin's ES module form does not give.
    plugins: name === 'external-jwt-client' ? [] : [jsonParsePlugin(join(root, 'dist/fast/side'))],
  })
}

// bin/run.js compiles these files with node:vm (for the code cache), where import() itself
// is not allowed: the bundles' dynamic imports of packages call the loader's instead.
const fastFiles = [
  ...readdirSync(join(root, 'dist/fast')).filter((n) => n.endsWith('.cjs')),
  ...readdirSync(join(root, 'dist/fast/side')).filter((n) => n.endsWith('.cjs')).map((n) => `side/${n}`),
]
for (const name of fastFiles) {
  const file = join(root, 'dist/fast', name)
  const text = readFileSync(file, 'utf8')
  // A side package reached by a static import or a require is loaded from its side bundle too
  // (__sideRequire, below): a package from node_modules would be resolved and compiled module
  // by module (and got, an ES module, cannot be required by Node 20). A subpath of a side package
  // has no side bundle.
  let sided = text
  for (const side of sidePackages) {
    if (text.includes(`require("${side}/`)) throw new Error(`${name}: a subpath of ${side}, which has a side bundle for the package only`)
    sided = sided
      .replaceAll(`require("${side}")`, `__sideRequire("${side}")`)
      .replace(new RegExp(`\\(0, import_node_module\\d*\\.createRequire\\)\\(__import_meta_url\\)\\("${side.replace('/', '\\/')}"\\)`, 'g'), `__sideRequire("${side}")`)
  }
  // Pure ASCII, as esbuild makes strings but not regular expressions and comments: V8 keeps an
  // ASCII source as a one-byte string, which Node reads, and V8 scans and checks against the code
  // cache, in about half the time of a two-byte one. A \u escape means the same character in a
  // regular expression, a string or a comment.
  if (/\\[^\x00-\x7f]/.test(sided)) throw new Error(`${name}: a non-ASCII character after a backslash, which its escape would change`)
  const ascii = sided.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  // A built-in module imported by our code becomes esbuild's __toESM(require("node:fs"), 1): a
  // copy of the module with one getter per export, made again in every module that imports it
  // (node:fs has about a hundred), a few milliseconds of every start. The same view for what
  // the code reads from it (named exports, `default`) at no cost: an object that inherits the
  // module's exports and has the module as `default`.
  const rewritten = ascii
    .replace(/\bimport\(("[^"./][^"]*")\)/g, '__dynamicImport($1)')
    .replace(/__toESM\(require\(("node:[a-z_/]+")\), 1\)/g, '__builtinESM(require($1))')
  // (A call `x.import(...)` or a method named import, as in bundled packages, is not one.)
  if (/(?<![.\w$])import\((?!specifier\))(?![^)]*\)\s*\{)/.test(rewritten)) throw new Error(`${name}: a dynamic import() that is not of a package name is left`)
  // Written inside the function Node's CommonJS loader would wrap it in (bin/load-fast.js), on
  // the first line, so that lines keep their numbers for the source map: bin/load-fast.js then
  // compiles the file as it is instead of a copy with the wrapper added.
  writeFileSync(file, `(function (exports, require, module, __filename, __dirname, __fastImport) {${rewritten}\n})`)
}

// Checkpoints in each fast entry's source map, so that naming a log line's source at run time
// decodes a few lines of the map instead of all of it (src/server/log/klog-format.ts).
// And an index beside each map (`<map>.index`: its sources, the checkpoints, where the mappings
// are in the file), so that the server's first lookups read a few lines of the mappings instead
// of reading and parsing the whole map (1.8 MB) on the path of the first /readyz.
const { sourceMapCheckpoints, sourceMapIndex } = await import(new URL('../dist/server/log/klog-format.js', import.meta.url).href)
for (const name of readdirSync(join(root, 'dist/fast')).filter((n) => n.endsWith('.cjs.map'))) {
  const file = join(root, 'dist/fast', name)
  const map = JSON.parse(readFileSync(file, 'utf8'))
  map.x_client_checkpoints = sourceMapCheckpoints(map.mappings, 64)
  const text = JSON.stringify(map)
  writeFileSync(file, text)
  writeFileSync(`${file}.index`, JSON.stringify(sourceMapIndex(text, 64)))
}

// The code cache of each fast entry, from a training run of a typical command line through
// bin/run.js (which writes it when CLIENT_WRITE_CODE_CACHE=1). The run's own exit status does
// not matter (health check has no server to reach); a cache that is not written only means a
// slower start.
const training = mkdtempSync(join(tmpdir(), 'client-code-cache-'))
writeFileSync(join(training, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: "1"\n')
writeFileSync(
  join(training, 'deploy.json'),
  JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { app: 'web' } }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] } } } }),
)
const trainingRuns = {
  // YAML and JSON input, a strategic merge of a map and of a list merged by key, YAML output of
  // both: what a typical `patch --local` compiles (a function the training did not run is
  // compiled at first call, which costs more than reading it from the cache).
  'patch.cjs': ['patch', '--local', '-f', 'cm.yaml', '-f', 'deploy.json', '-p', '{"spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}}', '-o', 'yaml'],
  'flags-validate.cjs': ['flags', 'validate', '--', '--secure-port=6443', '--authorization-mode=Node,RBAC'],
  // Both documents through the offline server: the API's create path, admission, the store.
  'validate.cjs': ['validate', '-f', 'cm.yaml', '-f', 'deploy.json'],
  'health-check.cjs': ['health', 'check', '--server', 'https://127.0.0.1:1', '--insecure-skip-tls-verify', '--request-timeout', '1s'],
  // An answer from the default policy (resolved aggregation included) and a file read.
  'auth.cjs': ['auth', 'can-i', 'list', 'deployments.apps', '-n', 'dev', '--as', 'system:serviceaccount:dev:ci', '--rbac-from', 'cm.yaml'],
}
for (const [name, args] of Object.entries(trainingRuns)) {
  if (!existsSync(join(root, 'dist/fast', name))) continue
  spawnSync(process.execPath, [join(root, 'bin/run.js'), ...args], { cwd: training, stdio: 'ignore', timeout: 60_000, env: { ...process.env, CLIENT_WRITE_CODE_CACHE: '1', HOME: training, KUBECONFIG: join(training, 'none') } })
}
// The server's cache: a start on a free port until /readyz answers 200, then SIGTERM (the
// cache is written when the server has shut down). A first start (which writes the cache of the
// certificate library's side bundle), then a start with its certificates present, the usual
// case, whose cache of the entry is the one kept: smaller without the generation code, which a
// first start compiles when it needs it.
if (existsSync(join(root, 'dist/fast/server-start.cjs'))) {
  await trainServerStart(training)
  await trainServerStart(training)
}
// The same for `cluster start` (its own bundle of the server, with the simulated nodes).
if (existsSync(join(root, 'dist/fast/cluster-start.cjs'))) {
  await trainServerStart(training, 'cluster')
  await trainServerStart(training, 'cluster')
}
rmSync(training, { recursive: true, force: true })

async function trainServerStart(dir, command = 'server') {
  const port = await new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
    probe.on('error', reject)
  })
  const env = { ...process.env, CLIENT_WRITE_CODE_CACHE: '1', HOME: dir, KUBECONFIG: join(dir, 'none') }
  const args = [command, 'start', '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${dir}/${command}-certs`, `--data-dir=${dir}/${command}-data`, `--write-kubeconfig=${dir}/kubeconfig`]
  const child = spawn(process.execPath, [join(root, 'bin/run.js'), ...args], { cwd: dir, stdio: 'ignore', env })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const deadline = Date.now() + 60_000
  let ready = false
  while (!ready && child.exitCode === null && Date.now() < deadline) {
    ready = await new Promise((resolve) => {
      const req = httpsRequest(`https://127.0.0.1:${port}/readyz`, { rejectUnauthorized: false, agent: false, timeout: 2_000 }, (res) => {
        res.resume()
        resolve(res.statusCode === 200)
      })
      req.on('error', () => resolve(false))
      req.on('timeout', () => req.destroy())
      req.end()
    })
    if (!ready) await new Promise((r) => setTimeout(r, 50))
  }
  child.kill(ready ? 'SIGTERM' : 'SIGKILL')
  await exited
}

console.log(`bundled @oclif/core and ${entries.length} commands: ${entries.map((e) => relative(commands, e)).join(', ')}; fast entries: ${fastEntries.map((e) => relative(fastDir, e)).join(', ')}`)
