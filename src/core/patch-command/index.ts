/**
 * `client patch`: the pipeline (run.ts) wired to the patch engine and the printers. This file
 * is the single integration point with `src/core/patch` and `src/core/printers`; both are
 * loaded on first use, after the command line has been validated.
 */
import { runPatch, type RunResult } from './run.js'
import type { PatchDeps, PatchIO, Value } from './types.js'

export type { RunResult } from './run.js'
export type { PatchIO } from './types.js'

export function runPatchCommand(argv: readonly string[], program: string, io: PatchIO): Promise<RunResult> {
  return runPatch(argv, program, io, loadDeps)
}

/** The engine and the printers, loaded when a patch runs (they are the heavy part). */
async function loadDeps(): Promise<PatchDeps> {
  const engine = await import('../patch/index.js')
  const printers = await import('../printers/index.js')
  return {
    decodeYaml: (text) => engine.parseGoYaml(text) as Value,
    decodeJson: (text) => engine.parseGoJson(text) as Value,
    compactJson: (value) => engine.goMarshal(value),
    parsePatch: (text, type, fromFile) => engine.parsePatch(text, type, { fromFile }),
    // kubectl re-decodes the patched JSON, so whole-valued floats come back as integers.
    applyPatch: (original, patch, type) => engine.parseGoJson(engine.goMarshal(engine.applyPatch(original as Record<string, unknown>, patch, type))) as Value,
    isBuiltIn: (apiVersion, kind) => engine.isBuiltIn(apiVersion, kind),
    equal: (a, b) => engine.deepEqual(a, b),
    createPrinter: (options) => {
      const printer = printers.createPrinter(options)
      // kubectl prints what it decodes after a JSON round trip: whole-valued floats are integers by then.
      return { print: (object, context) => printer.print(asPrinted(object, engine.GoFloat) as Record<string, unknown>, context) }
    },
  }
}

function asPrinted(value: unknown, GoFloat: new (v: number) => { value: number }): unknown {
  if (value instanceof GoFloat) return value.value
  if (Array.isArray(value)) return value.map((v) => asPrinted(v, GoFloat))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asPrinted(v, GoFloat)]))
  }
  return value
}

export { processIO } from './process-io.js'
