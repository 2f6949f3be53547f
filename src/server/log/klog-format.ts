/**
 * The reference's text log line: `Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg`, e.g.
 * `I1121 22:44:39.123456   1234 server.ts:12] Serving securely on 127.0.0.1:6443`.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs'
import { basename } from 'node:path'
import { fileURLToPath } from 'node:url'

export type Severity = 'I' | 'W' | 'E' | 'F'

const pad = (n: number, width: number) => String(n).padStart(width, '0')

/** `when` in microseconds since the epoch. */
export function formatLine(severity: Severity, whenMicros: number, pid: number, source: string, message: string): string {
  const when = new Date(Math.floor(whenMicros / 1000))
  const stamp =
    `${pad(when.getMonth() + 1, 2)}${pad(when.getDate(), 2)} ` +
    `${pad(when.getHours(), 2)}:${pad(when.getMinutes(), 2)}:${pad(when.getSeconds(), 2)}.${pad(Math.floor(whenMicros % 1_000_000), 6)}`
  const body = message.endsWith('\n') ? message : `${message}\n`
  return `${severity}${stamp} ${String(pid).padStart(7)} ${source}] ${body}`
}

/**
 * Where the code that called the logger is, read from a stack trace: the raw `path:line:column`
 * of the running file (a bundle in dist/), to be named later by `sourceName`. Node's own source
 * maps stay off: with them on, Node reads and parses the map of every module it loads, a sixth
 * of the server's start-up, for the few lines logged before the first flush.
 */
export function callerSource(depth: number): string {
  const stack = new Error().stack?.split('\n') ?? []
  const frame = stack[depth + 1] ?? ''
  const m = /\(?((?:file:\/\/)?[^()\s]+:\d+:\d+)\)?$/.exec(frame)
  return m ? m[1] : '???:1:1'
}

/**
 * A bundle's source map, read for one question: which source file and line a generated line
 * and column come from. A lookup decodes the asked line from the running source, line and
 * column at its start. Those are sums over every segment before it, so they come from the
 * nearest checkpoint the build stored in the map (`x_client_checkpoints`, see
 * `sourceMapCheckpoints`), or, in a map without them, from one pass over the whole mappings
 * string. (Node's own SourceMap class decodes every segment into objects: about a quarter of
 * a second for the server's bundle, and one pass over its mappings a sixth of a second, on the
 * path of the first /readyz, whose log check flushes the log.)
 */
class LineMap {
  /** Per checkpoint, flat: offset in the mappings, source, line, column, mapped (0 or 1). */
  private readonly checkpoints: number[]
  private readonly every: number

  /**
   * `mappings` is the whole mappings string, or (with stored checkpoints) a reader of the part
   * between two offsets in it, so that a lookup reads only the lines it decodes.
   */
  constructor(
    private readonly sources: string[],
    private readonly mappings: string | { length: number; slice(from: number, to: number): string },
    stored?: Checkpoints,
  ) {
    if (stored && stored.every > 0 && Array.isArray(stored.at)) {
      this.every = stored.every
      this.checkpoints = stored.at
    } else {
      this.every = 1
      this.checkpoints = sourceMapCheckpoints(mappings as string, 1).at
    }
  }

  /**
   * The source file and (0-based) line of a 0-based generated line and column: those of the last
   * mapped segment at or before it, as Node's SourceMap.findEntry answers.
   */
  find(line: number, column: number): { source: string; line: number } | undefined {
    const k = Math.floor(line / this.every)
    if (k * 5 >= this.checkpoints.length) return undefined
    const fields = [0, 0, 0, 0, 0]
    // The asked line lies before the next checkpoint's: the text up to there is all it reads.
    const from = this.checkpoints[k * 5]!
    const text = typeof this.mappings === 'string' ? this.mappings : this.mappings.slice(from, (k + 1) * 5 < this.checkpoints.length ? this.checkpoints[(k + 1) * 5]! : this.mappings.length)
    let i = typeof this.mappings === 'string' ? from : 0
    let source = this.checkpoints[k * 5 + 1]!
    let original = this.checkpoints[k * 5 + 2]!
    let mapped = this.checkpoints[k * 5 + 4] === 1
    // From the checkpoint's line to the asked one: the running sums at each line start.
    for (let at = k * this.every; at < line; at++) {
      while (i < text.length && text.charCodeAt(i) !== 59) {
        if (text.charCodeAt(i) === 44) {
          i++
          continue
        }
        const [next, count] = decodeSegment(text, i, fields)
        i = next
        if (count >= 4) {
          source += fields[1]!
          original += fields[2]!
          mapped = true
        }
      }
      if (i >= text.length) return undefined
      i++
    }
    let generated = 0
    let found = mapped ? { source: this.sources[source]!, line: original } : undefined
    for (; i < text.length; ) {
      const c = text.charCodeAt(i)
      if (c === 59) break
      if (c === 44) {
        i++
        continue
      }
      const [next, count] = decodeSegment(text, i, fields)
      i = next
      generated += fields[0]!
      if (generated > column) break
      if (count >= 4) {
        source += fields[1]!
        original += fields[2]!
        found = { source: this.sources[source]!, line: original }
      }
    }
    return found
  }
}

/** Stored in a bundle's map by the build (scripts/bundle-commands.js) as `x_client_checkpoints`. */
export interface Checkpoints {
  /** A checkpoint every this many generated lines. */
  every: number
  /** Per checkpoint, flat: offset in the mappings, source, line, column, mapped (0 or 1). */
  at: number[]
}

/**
 * The running source, line and column (and whether a mapped segment came before) at the start of
 * every `every`-th generated line of a source map's mappings: one pass over them, done by the
 * build so that a lookup at run time decodes at most `every` lines.
 */
export function sourceMapCheckpoints(mappings: string, every: number): Checkpoints {
  const at: number[] = [0, 0, 0, 0, 0]
  let source = 0
  let line = 0
  let column = 0
  let mapped = 0
  let generatedLine = 0
  const fields = [0, 0, 0, 0, 0]
  for (let i = 0; i < mappings.length; ) {
    const c = mappings.charCodeAt(i)
    if (c === 59 /* ; */) {
      i++
      generatedLine++
      if (generatedLine % every === 0) at.push(i, source, line, column, mapped)
    } else if (c === 44 /* , */) i++
    else {
      const [next, count] = decodeSegment(mappings, i, fields)
      i = next
      if (count >= 4) {
        source += fields[1]!
        line += fields[2]!
        column += fields[3]!
        mapped = 1
      }
    }
  }
  return { every, at }
}

const BASE64 = new Int8Array(128).fill(-1)
for (const [i, ch] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].entries()) BASE64[ch.charCodeAt(0)] = i

/** Decodes one segment's base64 VLQ fields into `fields`; returns the next index and the field count. */
function decodeSegment(text: string, start: number, fields: number[]): [number, number] {
  let i = start
  let count = 0
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c === 44 || c === 59) break
    let value = 0
    let shift = 0
    let digit: number
    do {
      digit = BASE64[text.charCodeAt(i++)]
      value += (digit & 31) * 2 ** shift
      shift += 5
    } while (digit & 32)
    fields[count++] = value & 1 ? -Math.floor(value / 2) : Math.floor(value / 2)
  }
  return [i, count]
}

// The maps of the bundles that have logged, read once each (null: no map).
const maps = new Map<string, LineMap | null>()

function mapOf(file: string): LineMap | null {
  let map = maps.get(file)
  if (map === undefined) {
    map = indexedMap(file)
    if (map === undefined) {
      try {
        const json = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[]; mappings: string; x_client_checkpoints?: Checkpoints }
        map = new LineMap(json.sources, json.mappings, json.x_client_checkpoints)
      } catch {
        map = null
      }
    }
    maps.set(file, map)
  }
  return map
}

/**
 * Where the build put a map's parts (`<bundle>.map.index`, see `sourceMapIndex`): its sources,
 * checkpoints, and the byte offset and length of the mappings in the map file, so that a lookup
 * reads a few lines of the mappings from the file instead of the whole map (1.8 MB for the
 * server, read and parsed on the path of the first /readyz).
 */
export interface SourceMapIndex {
  sources: string[]
  checkpoints: Checkpoints
  mappingsOffset: number
  mappingsLength: number
  /** The map file's size when the index was made: another size means another map. */
  mapSize: number
}

/** The index of a source map file's text (the build writes it beside the map). */
export function sourceMapIndex(mapText: string, every: number): SourceMapIndex {
  const map = JSON.parse(mapText) as { sources: string[]; mappings: string }
  const key = '"mappings":"'
  const at = mapText.indexOf(key)
  // The mappings are base64 digits, commas and semicolons: the same bytes in the file as in the string.
  if (at === -1 || mapText.slice(at + key.length, at + key.length + map.mappings.length) !== map.mappings) throw new Error('the mappings are not written as one plain string')
  return {
    sources: map.sources,
    checkpoints: sourceMapCheckpoints(map.mappings, every),
    mappingsOffset: Buffer.byteLength(mapText.slice(0, at + key.length)),
    mappingsLength: map.mappings.length,
    mapSize: Buffer.byteLength(mapText),
  }
}

/** The LineMap of a bundle with an index beside its map, reading the mappings on demand; undefined without one. */
function indexedMap(file: string): LineMap | undefined {
  let index: SourceMapIndex
  try {
    index = JSON.parse(readFileSync(`${file}.map.index`, 'latin1')) as SourceMapIndex
  } catch {
    return undefined
  }
  const mapFile = `${file}.map`
  const mappings = {
    length: index.mappingsLength,
    /** The mappings from `from` to `to`; nothing (so no name from the map) when the map is gone or changed. */
    slice(from: number, to: number): string {
      let fd: number | undefined
      try {
        fd = openSync(mapFile, 'r')
        if (fstatSync(fd).size !== index.mapSize) return ''
        const bytes = Buffer.alloc(Math.max(0, to - from))
        let read = 0
        while (read < bytes.length) {
          const n = readSync(fd, bytes, read, bytes.length - read, index.mappingsOffset + from + read)
          if (n === 0) break
          read += n
        }
        return bytes.toString('latin1', 0, read)
      } catch {
        return ''
      } finally {
        if (fd !== undefined) closeSync(fd)
      }
    },
  }
  return new LineMap(index.sources, mappings, index.checkpoints)
}

/**
 * `file.ts:line` for a `callerSource` location: through the bundle's source map when there is
 * one (the dist/ bundles are built with linked maps), else the file's own name with `.js` read as
 * `.ts` (the test runner already runs the sources).
 */
export function sourceName(raw: string): string {
  const m = /^(.*):(\d+):(\d+)$/.exec(raw)
  if (!m) return raw
  const [, location, line, column] = m
  const file = location.startsWith('file://') ? fileURLToPath(location) : location
  if (/\.c?js$/.test(file)) {
    const entry = mapOf(file)?.find(Number(line) - 1, Number(column) - 1)
    if (entry) return `${basename(entry.source)}:${entry.line + 1}`
  }
  return `${basename(file).replace(/\.c?js$/, '.ts')}:${line}`
}
