/**
 * /logs/ (--enable-logs-handler): the host's log directory (/var/log), read-only, served the
 * way the reference serves it with Go's http.ServeFile — directory listings as Go's bare
 * `<pre>` page, files with a content type from the extension or sniffed from the first
 * 512 bytes, Last-Modified / If-Modified-Since and a single byte range.
 *
 * A path with a `..` segment once decoded (`..%2f`) is refused with 404, as is anything
 * that is not a regular file or directory (a FIFO would hang the read). Symlinks inside the
 * directory are followed, as Go does: only root can place them there, and /var/log commonly
 * links container logs from elsewhere.
 */
import { constants, type Stats } from 'node:fs'
import { open, readdir, type FileHandle } from 'node:fs/promises'
import { basename, extname, join, resolve, sep } from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { Writable } from 'node:stream'
import type { Mux } from '../http/mux.js'
import { httpError, notFound } from '../http/respond.js'
import type { Handler, Request, RequestContext, Response } from '../http/types.js'

const LOGS_PATH = '/logs'
const DEFAULT_LOG_DIR = '/var/log'
const INDEX_PAGE = '/index.html'
const SNIFF_LEN = 512

interface LogsOptions {
  /** The directory served (default /var/log). */
  root?: string
}

// --- content types -----------------------------------------------------------------------

/** Go's built-in extension table (mime.TypeByExtension without the system's mime.types). */
const BY_EXTENSION: Record<string, string> = {
  '.avif': 'image/avif',
  '.css': 'text/css; charset=utf-8',
  '.gif': 'image/gif',
  '.htm': 'text/html; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.jpeg': 'image/jpeg',
  '.jpg': 'image/jpeg',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.mjs': 'text/javascript; charset=utf-8',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
  '.webp': 'image/webp',
  '.xml': 'text/xml; charset=utf-8',
}

const HTML_TAGS = [
  '<!DOCTYPE HTML', '<HTML', '<HEAD', '<SCRIPT', '<IFRAME', '<H1', '<DIV', '<FONT', '<TABLE', '<A', '<STYLE', '<TITLE', '<B', '<BODY', '<BR', '<P', '<!--',
]
const MAGIC: Array<[string, string]> = [
  ['%PDF-', 'application/pdf'],
  ['%!PS-Adobe-', 'application/postscript'],
  ['\xFE\xFF', 'text/plain; charset=utf-16be'],
  ['\xFF\xFE', 'text/plain; charset=utf-16le'],
  ['\xEF\xBB\xBF', 'text/plain; charset=utf-8'],
  ['GIF87a', 'image/gif'],
  ['GIF89a', 'image/gif'],
  ['\x89PNG\x0D\x0A\x1A\x0A', 'image/png'],
  ['\xFF\xD8\xFF', 'image/jpeg'],
  ['BM', 'image/bmp'],
  ['\x1F\x8B\x08', 'application/x-gzip'],
  ['PK\x03\x04', 'application/zip'],
  ['Rar!\x1A\x07\x00', 'application/x-rar-compressed'],
  ['Rar!\x1A\x07\x01\x00', 'application/x-rar-compressed'],
  ['\x00\x61\x73\x6D', 'application/wasm'],
]

function isWhitespace(b: number): boolean {
  return b === 0x09 || b === 0x0a || b === 0x0c || b === 0x0d || b === 0x20
}

/** Go's "binary data bytes": a control character that text does not contain. */
function isBinaryByte(b: number): boolean {
  return b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f)
}

/** A subset of Go's http.DetectContentType: markup, common magic numbers, then text or binary. */
export function sniffContentType(data: Buffer): string {
  const latin1 = data.toString('latin1')
  let start = 0
  while (start < data.length && isWhitespace(data[start])) start++
  const trimmed = latin1.slice(start)
  for (const tag of HTML_TAGS) {
    if (trimmed.length <= tag.length) continue
    if (trimmed.slice(0, tag.length).toUpperCase() !== tag) continue
    const next = trimmed.charCodeAt(tag.length)
    if (next === 0x20 || next === 0x3e) return 'text/html; charset=utf-8'
  }
  if (trimmed.startsWith('<?xml')) return 'text/xml; charset=utf-8'
  for (const [magic, type] of MAGIC) if (latin1.startsWith(magic)) return type
  for (const b of data) if (isBinaryByte(b)) return 'application/octet-stream'
  return 'text/plain; charset=utf-8'
}

// --- Go's URL path escaping for listing links --------------------------------------------

function goEscapePath(name: string): string {
  let out = ''
  for (const b of Buffer.from(name, 'utf8')) {
    const c = String.fromCharCode(b)
    if (/[A-Za-z0-9\-_.~$&+,/:;=@]/.test(c)) out += c
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`
  }
  // url.URL{Path: name}.String(): a colon in the first segment would read as a scheme.
  if (out.split('/')[0].includes(':')) out = `./${out}`
  return out
}

function goHTMLEscape(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' })[c] ?? c)
}

/** Go's http.FileServer directory listing. */
export function directoryListing(entries: ReadonlyArray<{ name: string; isDirectory: boolean }>): string {
  const sorted = [...entries].sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)))
  let out = '<pre>\n'
  for (const e of sorted) {
    const name = e.isDirectory ? `${e.name}/` : e.name
    out += `<a href="${goEscapePath(name)}">${goHTMLEscape(name)}</a>\n`
  }
  return `${out}</pre>\n`
}

// --- conditional and range requests ------------------------------------------------------

/** Go's If-Modified-Since check: true when the client's copy is current. */
function notModified(req: Request, mtime: Date): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false
  const ims = req.headers['if-modified-since']
  if (typeof ims !== 'string' || req.headers['if-none-match'] !== undefined) return false
  const since = Date.parse(ims)
  if (Number.isNaN(since) || mtime.getTime() <= 0) return false
  return Math.floor(mtime.getTime() / 1000) * 1000 <= since
}

function writeNotModified(res: Response): void {
  res.removeHeader('Content-Type')
  res.removeHeader('Content-Length')
  res.removeHeader('Last-Modified')
  res.statusCode = 304
  res.end()
}

type Range = { start: number; end: number } | 'invalid' | 'no-overlap' | undefined

/** One byte range (Go's parseRange, for a single range; several are answered with the whole file). */
export function parseRange(header: string | undefined, size: number): Range {
  if (header === undefined || header === '') return undefined
  if (!header.startsWith('bytes=')) return 'invalid'
  const specs = header.slice('bytes='.length).split(',').map((s) => s.trim()).filter((s) => s !== '')
  if (specs.length !== 1) return specs.length === 0 ? 'invalid' : undefined
  const m = /^(\d*)-(\d*)$/.exec(specs[0])
  if (!m || (m[1] === '' && m[2] === '')) return 'invalid'
  if (m[1] === '') {
    const n = Math.min(Number(m[2]), size)
    if (n === 0) return 'no-overlap'
    return { start: size - n, end: size - 1 }
  }
  const start = Number(m[1])
  if (start >= size) return 'no-overlap'
  if (m[2] === '') return { start, end: size - 1 }
  const end = Number(m[2])
  if (end < start) return 'invalid'
  return { start, end: Math.min(end, size - 1) }
}

// --- serving -----------------------------------------------------------------------------

/** Go's toHTTPError, with the reference's 404 for names too long. */
function openError(res: Response, err: unknown): void {
  switch ((err as NodeJS.ErrnoException).code) {
    case 'ENOENT':
    case 'ENOTDIR':
      notFound(res)
      return
    case 'ENAMETOOLONG':
      httpError(res, 404, 'file not found')
      return
    case 'EACCES':
    case 'EPERM':
      httpError(res, 403, '403 Forbidden')
      return
    default:
      httpError(res, 500, '500 Internal Server Error')
  }
}

/** Go's localRedirect: a relative Location keeping the query. */
function localRedirect(res: Response, ctx: RequestContext, to: string): void {
  res.setHeader('Location', ctx.url.search ? `${to}${ctx.url.search}` : to)
  res.statusCode = 301
  res.end()
}

async function openRegularOrDirectory(path: string): Promise<{ handle: FileHandle; stats: Stats } | 'special'> {
  // O_NONBLOCK so that a FIFO cannot hang the open; a regular file ignores it.
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK)
  const stats = await handle.stat().catch(async (err: unknown) => {
    await handle.close()
    throw err
  })
  if (stats.isFile() || stats.isDirectory()) return { handle, stats }
  await handle.close()
  return 'special'
}

async function serveFileContent(req: Request, res: Response, handle: FileHandle, stats: Stats, name: string): Promise<void> {
  let closeHandle = true
  try {
    if (notModified(req, stats.mtime)) {
      writeNotModified(res)
      return
    }
    res.setHeader('Last-Modified', stats.mtime.toUTCString())
    const size = stats.size
    let type = BY_EXTENSION[extname(name).toLowerCase()]
    if (!type) {
      const buf = Buffer.alloc(Math.min(SNIFF_LEN, size))
      const { bytesRead } = await handle.read(buf, 0, buf.length, 0)
      type = sniffContentType(buf.subarray(0, bytesRead))
    }
    res.setHeader('Content-Type', type)
    res.setHeader('X-Content-Type-Options', 'nosniff')
    res.setHeader('Accept-Ranges', 'bytes')
    const rangeHeader = req.headers.range
    let range = parseRange(typeof rangeHeader === 'string' ? rangeHeader : undefined, size)
    // Go: an empty file ignores the range rather than failing it.
    if (range === 'no-overlap' && size === 0) range = undefined
    if (range === 'invalid' || range === 'no-overlap') {
      res.setHeader('Content-Range', `bytes */${size}`)
      httpError(res, 416, range === 'invalid' ? 'invalid range' : 'invalid range: failed to overlap')
      return
    }
    const start = range ? range.start : 0
    const end = range ? range.end : size - 1
    if (range) {
      res.setHeader('Content-Range', `bytes ${start}-${end}/${size}`)
      res.statusCode = 206
    } else {
      res.statusCode = 200
    }
    res.setHeader('Content-Length', String(end - start + 1))
    if (req.method === 'HEAD' || end < start) {
      res.end()
      return
    }
    closeHandle = false
    // Exactly the bytes the length announced, even if the log grows meanwhile.
    const stream = handle.createReadStream({ start, end, autoClose: true })
    await pipeline(stream, res as unknown as Writable).catch(() => {
      if (!res.destroyed) res.destroy()
    })
  } finally {
    if (closeHandle) await handle.close()
  }
}

async function serveDirectory(req: Request, res: Response, dir: string, stats: Stats): Promise<void> {
  if (notModified(req, stats.mtime)) {
    writeNotModified(res)
    return
  }
  let entries
  try {
    entries = await readdir(dir, { withFileTypes: true })
  } catch {
    httpError(res, 500, 'Error reading directory')
    return
  }
  const body = directoryListing(entries.map((e) => ({ name: e.name, isDirectory: e.isDirectory() })))
  res.setHeader('Last-Modified', stats.mtime.toUTCString())
  res.setHeader('Content-Type', 'text/html; charset=utf-8')
  res.statusCode = 200
  res.end(body)
}

/** The URL path below /logs, or undefined when it must be refused. */
export function logRelativePath(pathname: string): string | undefined {
  let decoded: string
  try {
    decoded = decodeURIComponent(pathname)
  } catch {
    return undefined
  }
  if (!decoded.startsWith(`${LOGS_PATH}/`) || decoded.includes('\0')) return undefined
  const rel = decoded.slice(LOGS_PATH.length)
  if (rel.split('/').includes('..') || rel.includes('\\')) return undefined
  return rel
}

function logsHandler(options: LogsOptions = {}): Handler {
  const root = resolve(options.root ?? DEFAULT_LOG_DIR)
  return async (req, res, ctx) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD')
      httpError(res, 405, '405: Method Not Allowed')
      return
    }
    const rel = logRelativePath(ctx.url.pathname)
    if (rel === undefined) {
      notFound(res)
      return
    }
    const full = join(root, rel)
    if (full !== root && !full.startsWith(root.endsWith(sep) ? root : root + sep)) {
      notFound(res)
      return
    }
    if (rel.endsWith(INDEX_PAGE)) {
      localRedirect(res, ctx, './')
      return
    }
    let opened
    try {
      opened = await openRegularOrDirectory(full)
    } catch (err) {
      openError(res, err)
      return
    }
    if (opened === 'special') {
      notFound(res)
      return
    }
    let { handle, stats } = opened
    if (!stats.isDirectory()) {
      await serveFileContent(req, res, handle, stats, basename(full))
      return
    }
    await handle.close()
    if (!rel.endsWith('/')) {
      localRedirect(res, ctx, `${basename(rel)}/`)
      return
    }
    // A directory's index.html is served in its place, as Go does.
    try {
      const index = await openRegularOrDirectory(join(full, 'index.html'))
      if (index !== 'special') {
        if (index.stats.isFile()) {
          ;({ handle, stats } = index)
          await serveFileContent(req, res, handle, stats, 'index.html')
          return
        }
        await index.handle.close()
      }
    } catch {
      // No index page: list the directory.
    }
    await serveDirectory(req, res, full, stats)
  }
}

/** Go's ServeFile redirect for the directory without its slash. */
const logsRedirect: Handler = (_req, res, ctx) => localRedirect(res, ctx, 'logs/')

export function installLogs(mux: Mux, options: LogsOptions = {}): Mux {
  return mux.handle(LOGS_PATH, logsRedirect).handlePrefix(`${LOGS_PATH}/`, logsHandler(options))
}
