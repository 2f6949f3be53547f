/**
 * The layout as docs/architecture.md describes it: no module cycles in the patch pipeline
 * (run.ts, the local path, and server.ts, the server path, share steps.ts instead of importing
 * each other), and the security rooms exist with their files.
 */
import assert from 'node:assert/strict'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** The relative imports of a TypeScript file (static and dynamic), as .ts paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specifiers = [...text.matchAll(/(?:from\s+|import\()\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!)
  return specifiers.map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts'))).filter((p) => existsSync(p))
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

describe('project layout', () => {
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
