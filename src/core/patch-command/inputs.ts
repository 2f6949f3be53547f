/**
 * The objects `patch -f` (files, directories with -R, `-`, URLs) and `-k` name, read the way
 * kubectl's resource builder reads them: paths checked first (`the path "x" does not exist`),
 * then each source in order as a YAML-or-JSON stream of documents, empty documents skipped,
 * each document decoded on its own (a bad one is an error for that object only).
 */
import fs from 'node:fs'
import path from 'node:path'
import type { PatchDeps, PatchIO, Value } from './types.js'

/** One object to patch, or the error the builder reports in its place. */
export type InputItem = { object: Record<string, Value>; source: string } | { error: string }

export interface Source {
  /** The name kubectl uses in messages: the path as given, `STDIN`, or the URL. */
  name: string
  read(): Promise<string>
}

const EXTENSIONS = new Set(['.json', '.yaml', '.yml'])

/** Expands `-f` values to sources; throws the first `the path "x" does not exist`. */
export function resolveSources(filenames: readonly string[], recursive: boolean, io: PatchIO): Source[] {
  const sources: Source[] = []
  for (const name of filenames) {
    if (name === '-') {
      sources.push({ name: 'STDIN', read: () => io.readStdin() })
      continue
    }
    if (/^https?:\/\//.test(name)) {
      sources.push({ name, read: () => io.fetchUrl(name) })
      continue
    }
    const full = path.resolve(io.cwd, name)
    let stat: fs.Stats
    try {
      stat = fs.statSync(full)
    } catch {
      throw new Error(`the path ${JSON.stringify(name)} does not exist`)
    }
    if (!stat.isDirectory()) {
      sources.push(fileSource(name, full))
      continue
    }
    // filepath.Walk: lexical order; subdirectories only with -R; only manifest extensions.
    const walk = (dir: string, shown: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => cmp(a.name, b.name))) {
        const p = path.join(dir, entry.name)
        const s = path.join(shown, entry.name)
        if (entry.isDirectory() || (entry.isSymbolicLink() && isDir(p))) {
          if (recursive) walk(p, s)
        } else if (EXTENSIONS.has(path.extname(entry.name))) {
          sources.push(fileSource(s, p))
        }
      }
    }
    walk(full, name)
  }
  return sources
}

const cmp = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b))
const isDir = (p: string) => {
  try {
    return fs.statSync(p).isDirectory()
  } catch {
    return false
  }
}

function fileSource(name: string, full: string): Source {
  return {
    name,
    read: async () => {
      try {
        return fs.readFileSync(full, 'utf8')
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code
        throw new Error(`open ${name}: ${code === 'EACCES' ? 'permission denied' : (err as Error).message}`)
      }
    },
  }
}

/** Splits a stream into raw documents: a JSON stream when it starts with `{`, else YAML split on `---` lines. */
export function splitStream(text: string): { text: string; json: boolean }[] {
  const trimmed = text.replace(/^[\s\uFEFF]+/, '')
  if (trimmed.startsWith('{')) return splitJsonStream(trimmed).map((t) => ({ text: t, json: true }))
  const docs: string[] = []
  let current: string[] = []
  for (const line of text.split(/(?<=\n)/)) {
    if (line.startsWith('---')) {
      const rest = line.slice(3).trim()
      if (rest === '' || rest.startsWith('#')) {
        if (current.length > 0) docs.push(current.join(''))
        current = []
        continue
      }
    }
    current.push(line)
  }
  if (current.length > 0) docs.push(current.join(''))
  return docs.map((t) => ({ text: t, json: false }))
}

/** Top-level JSON values written back to back (strings and nesting respected). */
function splitJsonStream(text: string): string[] {
  const out: string[] = []
  let i = 0
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i])) i++
    if (i >= text.length) break
    const start = i
    let depth = 0
    let inString = false
    for (; i < text.length; i++) {
      const c = text[i]
      if (inString) {
        if (c === '\\') i++
        else if (c === '"') inString = false
        continue
      }
      if (c === '"') inString = true
      else if (c === '{' || c === '[') depth++
      else if (c === '}' || c === ']') {
        depth--
        if (depth === 0) {
          i++
          break
        }
      } else if (depth === 0 && /\s/.test(c)) break
    }
    out.push(text.slice(start, i))
  }
  return out
}

/** The Go type names encoding/json uses in "cannot unmarshal X into ..." messages. */
function goJsonKind(v: Value): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'string') return 'string'
  if (typeof v === 'boolean') return 'bool'
  if (typeof v === 'object' && !isNumberLike(v)) return 'object'
  return 'number'
}

/** Numbers of the engine's model may be objects (tagged int64/float64); plain records have Object's prototype. */
function isNumberLike(v: object): boolean {
  const proto = Object.getPrototypeOf(v)
  return proto !== Object.prototype && proto !== null && !Array.isArray(v)
}

export function isRecord(v: Value): v is Record<string, Value> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !isNumberLike(v)
}

const META_STRINGS = ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion']

/** kubectl decodes the input's metadata into ObjectMeta: the common type errors. */
function checkMetadata(obj: Record<string, Value>): string | undefined {
  const meta = obj.metadata
  if (meta === undefined || meta === null) return undefined
  if (!isRecord(meta)) return `json: cannot unmarshal ${goJsonKind(meta)} into Go struct field ${obj.kind}.metadata of type v1.ObjectMeta`
  for (const key of META_STRINGS) {
    const v = meta[key]
    if (v !== undefined && v !== null && typeof v !== 'string') {
      return `json: cannot unmarshal ${goJsonKind(v)} into Go struct field ObjectMeta.metadata.${key} of type string`
    }
  }
  for (const key of ['labels', 'annotations']) {
    const m = meta[key]
    if (m === undefined || m === null) continue
    if (!isRecord(m)) return `json: cannot unmarshal ${goJsonKind(m)} into Go struct field ObjectMeta.metadata.${key} of type map[string]string`
    for (const v of Object.values(m)) {
      if (v !== null && typeof v !== 'string') return `json: cannot unmarshal ${goJsonKind(v)} into Go struct field ObjectMeta.metadata.${key} of type string`
    }
  }
  return undefined
}

/** Decodes one document the way the unstructured decoder does; `undefined` for an empty document. */
function decodeDocument(doc: { text: string; json: boolean }, source: string, deps: PatchDeps): InputItem[] | undefined {
  let value: Value
  let raw: string
  try {
    if (doc.json) {
      value = deps.decodeJson(doc.text)
      raw = doc.text.trim()
    } else {
      value = deps.decodeYaml(doc.text)
      if (value === null || value === undefined) return undefined
      raw = deps.compactJson(value)
    }
  } catch (err) {
    return [{ error: `error parsing ${source}: ${(err as Error).message}` }]
  }
  return toItems(value, raw, source, deps)
}

/** Objects (a `List` flattened into its items) or the decode error. */
export function toItems(value: Value, raw: string | (() => string), source: string, deps: PatchDeps): InputItem[] {
  const fail = (msg: string): InputItem[] => [{ error: `unable to decode ${JSON.stringify(source)}: ${msg}` }]
  if (!isRecord(value)) return fail(`json: cannot unmarshal ${goJsonKind(value)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`)
  // The document's compact JSON is only needed for this message (`validate` reads thousands).
  if (typeof value.kind !== 'string' || value.kind === '') return fail(`Object 'Kind' is missing in '${typeof raw === 'string' ? raw : raw()}'`)
  if (value.kind.endsWith('List') && Array.isArray(value.items)) {
    const items: InputItem[] = []
    for (const item of value.items) {
      if (!isRecord(item) || typeof item.kind !== 'string' || item.kind === '') {
        items.push(...fail(`Object 'Kind' is missing in '${deps.compactJson(item)}'`))
        continue
      }
      const problem = checkMetadata(item)
      items.push(problem ? { error: `unable to decode ${JSON.stringify(source)}: ${problem}` } : { object: item, source })
    }
    return items
  }
  const problem = checkMetadata(value)
  if (problem) return fail(problem)
  return [{ object: value, source }]
}

/** Reads every source in order into objects and per-object errors. */
export async function readSources(sources: readonly Source[], deps: PatchDeps): Promise<InputItem[]> {
  const items: InputItem[] = []
  for (const source of sources) {
    let text: string
    try {
      text = await source.read()
    } catch (err) {
      items.push({ error: (err as Error).message })
      continue
    }
    for (const doc of splitStream(text)) {
      if (doc.text.trim() === '') continue
      const decoded = decodeDocument(doc, source.name, deps)
      if (!decoded) continue
      items.push(...decoded)
      if (decoded.length === 1 && 'error' in decoded[0] && decoded[0].error.startsWith('error parsing ')) break
    }
  }
  return items
}
