/**
 * The manifests `client validate` reads: `-f` files, directories (their files with the
 * manifest extensions, in lexical order; their subdirectories too with -R, as kubectl) and `-`
 * (standard input), each a stream of YAML
 * or JSON documents (a `List` flattened into its items), or `-k` a kustomization directory.
 * kubectl's reading rules and messages (src/core/patch-command/inputs.ts, kustomize.ts); each
 * document keeps its source, its index in the source and the line it starts on, for the report.
 */
import path from 'node:path'
import { goMarshal, parseGoJson, parseGoYaml } from '../patch/index.js'
import { buildKustomization } from '../patch-command/kustomize.js'
import { type Source, resolveSources, splitStream, toItems } from '../patch-command/inputs.js'
import type { PatchDeps, PatchIO } from '../patch-command/types.js'

/** One object of the input, or why a document could not be read as one. */
export interface Manifest {
  /** The path as given (`STDIN` for `-`), or the kustomization directory. */
  source: string
  /** The document's position in its source, from 1 (a List's items share their document's). */
  document: number
  /** The line the document starts on, from 1 (undefined for a kustomization's output). */
  line?: number
  object?: Record<string, unknown>
  /** The reading error that stands for this document (the object is then absent). */
  error?: string
}

/** Decoding as kubectl's: YAML 1.1 scalars, Go's JSON numbers and errors. */
const DECODE: Pick<PatchDeps, 'decodeYaml' | 'decodeJson' | 'compactJson'> = {
  decodeYaml: (text) => parseGoYaml(text),
  decodeJson: (text) => parseGoJson(text),
  compactJson: (value) => goMarshal(value),
}

/**
 * The JSON kubectl sends for a decoded object: its keys sorted, as Go marshals a map (the
 * server reports a schema's errors in the order it meets the fields). The decoder's floats
 * print as Go prints them (GoFloat.toJSON), so JSON.stringify gives the same value as Go's
 * marshalling at a fraction of the cost; a value it cannot print (an int64 beyond 2^53) takes
 * the full marshaller.
 */
export function manifestJson(object: Record<string, unknown>): string {
  try {
    return JSON.stringify(object, sortedKeys)
  } catch {
    return goMarshal(object)
  }
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.getPrototypeOf(value) !== Object.prototype) return value
  const keys = Object.keys(value)
  let sorted = true
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1]! < keys[i]!
  if (sorted) return value
  const out: Record<string, unknown> = {}
  for (const k of keys.sort()) out[k] = (value as Record<string, unknown>)[k]
  return out
}

/**
 * Reads `-f` paths in order, a directory's subdirectories only when `recursive` (-R); throws
 * `the path "x" does not exist` for a missing one.
 */
export async function readManifests(filenames: readonly string[], recursive: boolean, io: Pick<PatchIO, 'cwd' | 'readStdin' | 'fetchUrl'>): Promise<Manifest[]> {
  const sources = resolveSources(filenames, recursive, io as PatchIO)
  const out: Manifest[] = []
  for (const source of sources) out.push(...(await readSource(source)))
  return out
}

async function readSource(source: Source): Promise<Manifest[]> {
  let text: string
  try {
    text = await source.read()
  } catch (err) {
    return [{ source: source.name, document: 1, error: (err as Error).message }]
  }
  const out: Manifest[] = []
  let document = 0
  let searchFrom = 0
  for (const doc of splitStream(text)) {
    const at = text.indexOf(doc.text, searchFrom)
    const line = at < 0 ? undefined : lineOf(text, at + leadingBlank(doc.text))
    if (at >= 0) searchFrom = at + doc.text.length
    if (doc.text.trim() === '') continue
    document++
    const base = { source: source.name, document, ...(line !== undefined ? { line } : {}) }
    let value: unknown
    try {
      value = doc.json ? DECODE.decodeJson(doc.text) : DECODE.decodeYaml(doc.text)
    } catch (err) {
      // kubectl stops reading a stream at a document it cannot parse.
      out.push({ ...base, error: `error parsing ${source.name}: ${(err as Error).message}` })
      break
    }
    if (value === null || value === undefined) {
      document--
      continue
    }
    for (const item of toItems(value, () => DECODE.compactJson(value), source.name, DECODE as PatchDeps)) {
      out.push('error' in item ? { ...base, error: item.error } : { ...base, object: item.object as Record<string, unknown> })
    }
  }
  return out
}

/** The length of the blank and comment lines a document starts with (its object starts after). */
function leadingBlank(text: string): number {
  const m = /^(?:[ \t]*(?:#[^\n]*)?\r?\n)*/.exec(text)
  return m ? m[0].length : 0
}

function lineOf(text: string, offset: number): number {
  let line = 1
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++
  return line
}

/** `-k DIR`: the kustomization's objects, in its output order; throws its error. */
export function readKustomization(dir: string, cwd: string): Manifest[] {
  const built = buildKustomization(path.resolve(cwd, dir), dir, DECODE as PatchDeps)
  if ('error' in built) throw new Error(built.error)
  return built.objects.map((object, i) => ({ source: dir, document: i + 1, object: object as Record<string, unknown> }))
}
