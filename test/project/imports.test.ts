/**
 * The layout as docs/architecture.md describes it: no import cycle anywhere in src/, and no
 * import against the layering (docs/architecture.md, "Layers": a room imports itself and the
 * rooms of lower layers only); the patch pipeline's run.ts and server.ts share steps.ts instead
 * of importing each other; the security rooms exist with their files.
 */
import assert from 'node:assert/strict'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))

/**
 * The rooms of src/, top layer first; the same table as docs/architecture.md's "Layers". A room
 * is a folder (ending in `/`) or a single file; a file belongs to the longest room that holds
 * it. Rooms of one layer do not import each other.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['src/fast/'],
  ['src/commands/'],
  ['src/cli/'],
  ['src/server/main.ts'],
  ['src/server/server.ts'],
  ['src/server/assembly/', 'src/server/offline/'],
  ['src/server/filters/', 'src/server/simnodes/'],
  ['src/server/controllers/'],
  ['src/server/bootstrap/', 'src/server/peers/', 'src/server/scheduler/'],
  ['src/server/admission/', 'src/server/audit/', 'src/server/nodeagent/'],
  ['src/server/authentication/', 'src/server/authorization/', 'src/server/flowcontrol/', 'src/server/encryption/', 'src/server/aggregator/'],
  ['src/server/health/', 'src/server/paths/', 'src/server/version.ts', 'src/server/storage-metrics.ts'],
  ['src/server/api/'],
  ['src/server/http/', 'src/server/tls/', 'src/server/store/', 'src/server/config.ts', 'src/server/test-faults.ts'],
  ['src/server/tracing/'],
  ['src/server/egress/'],
  ['src/server/log/', 'src/server/lifecycle/'],
  ['src/core/'],
]

/** Each room's layer: 0 for the top one, higher further down. */
const layerOf = new Map(LAYERS.flatMap((rooms, layer) => rooms.map((room) => [room, layer] as const)))

/** The room a file (relative to the project) belongs to, or undefined. */
function roomOf(file: string): string | undefined {
  let best: string | undefined
  for (const room of layerOf.keys()) {
    const holds = room.endsWith('/') ? file.startsWith(room) : file === room
    if (holds && (best === undefined || room.length > best.length)) best = room
  }
  return best
}

/** Every .ts and .tsx file under a directory. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

/** A relative specifier as the file it loads (`.js` as `.ts`/`.tsx`, a folder as its index), or undefined. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier)
  const stem = base.replace(/\.jsx?$/, '')
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate
  }
  return undefined
}

/**
 * `import ... from`, `import '...'`, `export ... from` (type-only ones included: they tie the
 * rooms as much as the others) and `import('...')`.
 */
const IMPORT = /(?:^|[^\w$.])(?:import|export)\s+(?:type\s+)?(?:[\w$*{}\s,]+?\s*from\s*)?['"]([^'"\n]+)['"]|(?:^|[^\w$.])import\(\s*['"]([^'"\n]+)['"]/gm

/** The relative imports of a TypeScript file (static, re-exports and dynamic), as .ts/.tsx paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specifiers = [...text.matchAll(IMPORT)].map((m) => (m[1] ?? m[2])!).filter((s) => s.startsWith('.'))
  return [...new Set(specifiers.map((s) => resolveSpecifier(file, s)).filter((p): p is string => p !== undefined))]
}

/** The import graph of every file under a directory, by absolute path. */
function importGraph(dir: string): Map<string, string[]> {
  return new Map(sourceFiles(dir).map((file) => [file, importsOf(file)]))
}

/** The strongly connected components with a cycle (Tarjan), each as one cycle through its files. */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const components: string[][] = []
  const visit = (file: string): void => {
    index.set(file, index.size)
    low.set(file, index.get(file)!)
    stack.push(file)
    onStack.add(file)
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue
      if (!index.has(next)) {
        visit(next)
        low.set(file, Math.min(low.get(file)!, low.get(next)!))
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!))
    }
    if (low.get(file) !== index.get(file)) return
    const component: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== file)
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) components.push(component)
  }
  for (const file of graph.keys()) if (!index.has(file)) visit(file)
  return components.map((component) => cycleThrough(component, graph))
}

/** The shortest cycle from a component's first file back to it, inside the component. */
function cycleThrough(component: string[], graph: Map<string, string[]>): string[] {
  const members = new Set(component)
  const start = component.sort()[0]!
  const previous = new Map<string, string>()
  const queue = [start]
  while (queue.length > 0) {
    const file = queue.shift()!
    for (const next of graph.get(file) ?? []) {
      if (!members.has(next)) continue
      if (next === start) {
        const path = [file]
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!)
        return [...path, start]
      }
      if (!previous.has(next)) {
        previous.set(next, file)
        queue.push(next)
      }
    }
  }
  return [start, start]
}

/** A cycle reachable from `start` among files under `dir`, or undefined. */
function cycleFrom(start: string, dir: string): string[] | undefined {
  const stack: string[] = []
  const done = new Set<string>()
  const visit = (file: string): string[] | undefined => {
    const at = stack.indexOf(file)
    if (at !== -1) return [...stack.slice(at), file]
    if (done.has(file) || !file.startsWith(dir)) return undefined
    stack.push(file)
    for (const next of importsOf(file)) {
      const cycle = visit(next)
      if (cycle) return cycle
    }
    stack.pop()
    done.add(file)
    return undefined
  }
  return visit(start)
}

/** Every import from a room to a room of the same or a higher layer, as one line each. */
function upwardImports(graph: Map<string, string[]>): string[] {
  const found: string[] = []
  for (const [file, imports] of graph) {
    const from = relative(root, file)
    const fromRoom = roomOf(from)
    for (const imported of imports) {
      const to = relative(root, imported)
      const toRoom = roomOf(to)
      if (fromRoom === undefined || toRoom === undefined || fromRoom === toRoom) continue
      if (layerOf.get(toRoom)! > layerOf.get(fromRoom)!) continue
      const how = layerOf.get(toRoom) === layerOf.get(fromRoom) ? 'the same layer' : 'a higher layer'
      found.push(`${from} (room ${fromRoom}) imports ${to} (room ${toRoom}, ${how})`)
    }
  }
  return found.sort()
}

describe('project layout', () => {
  const graph = importGraph(join(root, 'src'))

  it('every file in src/ belongs to a room of the layer table', () => {
    const homeless = [...graph.keys()].map((file) => relative(root, file)).filter((file) => roomOf(file) === undefined)
    assert.deepEqual(homeless, [], `files in no room (add the room to LAYERS here and to docs/architecture.md's "Layers"):\n${homeless.join('\n')}`)
  })

  it('src/ has no import cycle', () => {
    const found = cycles(graph).map((cycle) => cycle.map((file) => relative(root, file)).join(' -> '))
    assert.deepEqual(found, [], `import cycles:\n${found.join('\n')}`)
  })

  it('no room imports a room of its own or a higher layer (docs/architecture.md, "Layers")', () => {
    const found = upwardImports(graph)
    assert.deepEqual(found, [], `imports against the layering:\n${found.join('\n')}`)
  })

  it('docs/architecture.md lists the same layers as this test', () => {
    const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8')
    const section = doc.slice(doc.indexOf('## Layers'))
    const rows = [...section.matchAll(/^\| (\d+) \| ([^|]+) \|/gm)].map((m) => [Number(m[1]), [...m[2]!.matchAll(/`([^`]+)`/g)].map((r) => r[1]!)] as const)
    assert.deepEqual(
      rows.map(([layer, rooms]) => [layer, rooms]),
      LAYERS.map((rooms, layer) => [layer + 1, [...rooms]]),
    )
  })

  it('finds a cycle and an upward import when there is one (the checks themselves)', () => {
    const a = join(root, 'src/server/http/a.ts')
    const b = join(root, 'src/server/http/b.ts')
    const upper = join(root, 'src/server/filters/c.ts')
    const made = new Map([
      [a, [b]],
      [b, [a, upper]],
      [upper, [a]],
    ])
    assert.deepEqual(
      cycles(made).map((cycle) => cycle.map((file) => relative(root, file))),
      [['src/server/filters/c.ts', 'src/server/http/a.ts', 'src/server/http/b.ts', 'src/server/filters/c.ts']],
    )
    assert.deepEqual(upwardImports(made), ['src/server/http/b.ts (room src/server/http/) imports src/server/filters/c.ts (room src/server/filters/, a higher layer)'])
  })

  it('the patch pipeline has no import cycle (run.ts and server.ts share steps.ts)', () => {
    const dir = join(root, 'src/core/patch-command')
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const cycle = cycleFrom(join(dir, file), dir)
      assert.equal(cycle, undefined, `import cycle: ${cycle?.map((f) => f.slice(dir.length + 1)).join(' -> ')}`)
    }
  })

  it('run.ts loads server.ts, which does not import run.ts back', () => {
    // run.ts imports server.ts dynamically; server.ts importing run.ts again would be a cycle.
    const run = join(root, 'src/core/patch-command/run.ts')
    assert.ok(importsOf(run).some((f) => f.endsWith('/server.ts')), 'run.ts loads server.ts for the server path')
    assert.ok(!importsOf(join(root, 'src/core/patch-command/server.ts')).some((f) => f.endsWith('/run.ts')), 'server.ts does not import run.ts')
  })

  it('the admission, audit and validation rooms hold one file per plugin, backend and API group', () => {
    for (const file of [
      'src/server/admission/namespace-lifecycle.ts',
      'src/server/audit/backend.ts',
      'src/server/api/validation/core.ts',
      'src/server/api/validation/apps.ts',
      'src/server/api/validation/batch.ts',
      'src/server/api/validation/rbac.ts',
      'src/server/api/validation/scheduling.ts',
      'src/server/api/validation/apiextensions.ts',
    ]) {
      assert.ok(existsSync(join(root, file)), `${file} is missing`)
    }
  })
})
