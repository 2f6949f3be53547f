/**
 * What the `patch` pipeline needs from the patch engine (`src/core/patch`) and the printers
 * (`src/core/printers`), as structural types, so the pipeline can be exercised with stand-ins.
 * `index.ts` is the one place wiring the real modules in.
 */
import type { PatchTypeName } from './options.js'

/** A decoded JSON value in the engine's model (objects are plain records, strings are strings). */
export type Value = unknown

export interface PatchDeps {
  /** One YAML document (YAML 1.1 scalars, as kubectl's YAML→JSON step reads it); `null` for an empty document. Throws with the YAML error text. */
  decodeYaml(text: string): Value
  /** One JSON text; throws with Go's encoding/json error text. */
  decodeJson(text: string): Value
  /** Compact JSON, keys sorted, as Go's json.Marshal of a decoded object. */
  compactJson(value: Value): string
  /** The patch text after kubectl's "to JSON" step, parsed for `applyPatch`. Throws a message. */
  parsePatch(text: string, type: PatchTypeName, fromFile: boolean): unknown
  /** Applies a parsed patch; throws with kubectl's message. */
  applyPatch(original: Value, patch: unknown, type: PatchTypeName): Value
  /** Whether kubectl has a Go type (hence strategic merge metadata) for this kind. */
  isBuiltIn(apiVersion: string, kind: string): boolean
  /** Deep equality of decoded values, number kinds (int64 vs float64) included. */
  equal(a: Value, b: Value): boolean
  createPrinter(options: PrinterOptions): Printer
}

export interface PrinterOptions {
  output: string
  template: string | undefined
  allowMissingTemplateKeys: boolean
  showManagedFields: boolean
  readFile(path: string): string
}

export interface Printer {
  /** The text to print for one object; `resource` is `<kind lowercased>[.<group>]`. */
  print(object: Value, context: { resource: string }): string
}

export interface PatchIO {
  cwd: string
  readStdin(): Promise<string>
  out(text: string): void
  err(text: string): void
  /** HTTP(S) GET for `-f <url>`: the body, or a thrown Error with the message to print. */
  fetchUrl(url: string): Promise<string>
  /** The environment (`HOME`, `CLIENTRC`); the process's when absent. */
  env?: NodeJS.ProcessEnv
}

export interface RunResult {
  exitCode: number
  /** Set when `-h`/`--help` was asked for: the caller shows the command's help. */
  help?: boolean
}
