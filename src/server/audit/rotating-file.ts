/**
 * The audit log file with rotation, as the reference's log backend writes it through
 * lumberjack (gopkg.in/natefinch/lumberjack.v2): a write that would take the file past
 * `--audit-log-maxsize` megabytes first moves it aside as `<name>-<UTC time>.<ext>` (time as
 * `2006-01-02T15-04-05.000`) and starts a new one; then, in the background, backups past
 * `--audit-log-maxbackup` (newest kept) or older than `--audit-log-maxage` days (by the time
 * in their names) are removed and the rest gzip-compressed to `<backup>.gz` when
 * `--audit-log-compress`. Writes are synchronous: a line written is in the file (the kernel's
 * page cache) before the request goes on, which is what blocking modes promise.
 */
import { closeSync, createReadStream, createWriteStream, fstatSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs'
import { basename, dirname, extname, join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'

const MEGABYTE = 1024 * 1024
const COMPRESS_SUFFIX = '.gz'
/** The largest batch buffer kept between batches (bytes). */
const MAX_KEPT_BUFFER = 4 * MEGABYTE

export interface RotationOptions {
  readonly path: string
  /** Megabytes; 0: the file is never rotated (the reference then opens it without lumberjack). */
  readonly maxSizeMb: number
  readonly maxAgeDays: number
  readonly maxBackups: number
  readonly compress: boolean
  /** The clock backups are named by (tests step it). */
  readonly now?: () => Date
}

export class RotatingFile {
  private fd: number | undefined
  private size = 0
  /** Where batches are encoded (writeLines), kept for the next one. */
  private scratch = Buffer.alloc(0)
  private milling: Promise<void> = Promise.resolve()
  private millAgain = false
  private readonly now: () => Date

  constructor(private readonly options: RotationOptions) {
    this.now = options.now ?? (() => new Date())
  }

  /** Writes all of `data`; throws the file system's error. */
  write(data: string): void {
    this.writeBytes(Buffer.from(data))
  }

  /**
   * The lines, each followed by a newline, as one write (a batch): encoded one by one into a
   * buffer kept between batches, rather than joined into one large string and encoded again
   * (two large allocations per batch, a visible part of batch mode's cost in issue 33's bench).
   */
  writeLines(lines: readonly string[]): void {
    let length = 0
    for (const line of lines) length += Buffer.byteLength(line) + 1
    // A batch past the kept size is encoded once into its own buffer, so that one large batch does not stay in memory.
    const into = length <= MAX_KEPT_BUFFER ? this.keptBuffer(length) : Buffer.allocUnsafe(length)
    let at = 0
    for (const line of lines) {
      at += into.write(line, at)
      into[at++] = 0x0a
    }
    this.writeBytes(into.subarray(0, at))
  }

  private keptBuffer(length: number): Buffer {
    if (this.scratch.length < length) this.scratch = Buffer.allocUnsafe(Math.min(MAX_KEPT_BUFFER, Math.max(length, this.scratch.length * 2)))
    return this.scratch
  }

  private writeBytes(bytes: Buffer): void {
    const max = this.options.maxSizeMb * MEGABYTE
    const rotating = this.options.maxSizeMb > 0
    if (rotating && bytes.length > max) throw new Error(`write length ${bytes.length} exceeds maximum file size ${max}`)
    if (this.fd === undefined) this.openExistingOrNew(bytes.length)
    if (rotating && this.size + bytes.length > max) this.rotate()
    let written = 0
    while (written < bytes.length) written += writeSync(this.fd!, bytes, written, bytes.length - written)
    this.size += written
  }

  /** Closes the file once the background removal and compression are done. */
  async close(): Promise<void> {
    await this.milling
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }

  private openExistingOrNew(writeLength: number): void {
    const rotating = this.options.maxSizeMb > 0
    if (rotating) this.mill()
    let size: number
    try {
      size = statSync(this.options.path).size
    } catch {
      return this.openNew()
    }
    if (rotating && size + writeLength >= this.options.maxSizeMb * MEGABYTE) return this.rotate()
    this.fd = openSync(this.options.path, 'a')
    this.size = size
  }

  private rotate(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
    this.openNew()
    this.mill()
  }

  /** Moves the current file aside under its backup name (keeping its mode) and starts an empty one. */
  private openNew(): void {
    const path = this.options.path
    mkdirSync(dirname(path), { recursive: true, mode: 0o744 })
    let mode = 0o644
    try {
      mode = statSync(path).mode & 0o777
      renameSync(path, backupName(path, this.now()))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
    this.fd = openSync(path, 'w', mode)
    this.size = fstatSync(this.fd).size
  }

  /** Starts the removal and compression of backups, one run at a time (lumberjack's mill). */
  private mill(): void {
    const { maxBackups, maxAgeDays, compress } = this.options
    if (maxBackups === 0 && maxAgeDays === 0 && !compress) return
    if (this.millAgain) return
    this.millAgain = true
    this.milling = this.milling.then(async () => {
      this.millAgain = false
      try {
        await this.millRunOnce()
      } catch {
        // As lumberjack: nothing to tell; the next rotation tries again.
      }
    })
  }

  private async millRunOnce(): Promise<void> {
    const { maxBackups, maxAgeDays, compress } = this.options
    let files = oldLogFiles(this.options.path)
    const remove: BackupFile[] = []
    if (maxBackups > 0 && maxBackups < files.length) {
      const preserved = new Set<string>()
      const remaining: BackupFile[] = []
      for (const f of files) {
        // A backup and its compressed copy count once.
        preserved.add(f.name.endsWith(COMPRESS_SUFFIX) ? f.name.slice(0, -COMPRESS_SUFFIX.length) : f.name)
        if (preserved.size > maxBackups) remove.push(f)
        else remaining.push(f)
      }
      files = remaining
    }
    if (maxAgeDays > 0) {
      const cutoff = this.now().getTime() - maxAgeDays * 24 * 3600 * 1000
      remove.push(...files.filter((f) => f.time < cutoff))
      files = files.filter((f) => f.time >= cutoff)
    }
    const dir = dirname(this.options.path)
    for (const f of remove) unlinkSync(join(dir, f.name))
    if (compress) for (const f of files.filter((f) => !f.name.endsWith(COMPRESS_SUFFIX))) await compressLogFile(join(dir, f.name))
  }
}

/** `<dir>/<name without ext>-<UTC 2006-01-02T15-04-05.000><ext>` (lumberjack's backupName). */
export function backupName(path: string, time: Date): string {
  const file = basename(path)
  const ext = extname(file)
  const prefix = file.slice(0, file.length - ext.length)
  return join(dirname(path), `${prefix}-${backupTimestamp(time)}${ext}`)
}

function backupTimestamp(time: Date): string {
  return time.toISOString().replace(/:/g, '-').replace(/Z$/, '')
}

interface BackupFile {
  name: string
  time: number
}

/** The backups of `path` in its directory, newest first by the time in their names. */
function oldLogFiles(path: string): BackupFile[] {
  const file = basename(path)
  const ext = extname(file)
  const prefix = `${file.slice(0, file.length - ext.length)}-`
  const found: BackupFile[] = []
  for (const entry of readdirSync(dirname(path), { withFileTypes: true })) {
    if (entry.isDirectory()) continue
    const time = timeFromName(entry.name, prefix, ext) ?? timeFromName(entry.name, prefix, ext + COMPRESS_SUFFIX)
    if (time !== undefined) found.push({ name: entry.name, time })
  }
  return found.sort((a, b) => b.time - a.time)
}

function timeFromName(name: string, prefix: string, ext: string): number | undefined {
  if (!name.startsWith(prefix) || !name.endsWith(ext)) return undefined
  const stamp = name.slice(prefix.length, name.length - ext.length)
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/.exec(stamp)
  if (!match) return undefined
  const time = Date.parse(`${match[1]}T${match[2]}:${match[3]}:${match[4]}.${match[5]}Z`)
  return Number.isNaN(time) ? undefined : time
}

/** gzips `src` to `src.gz` with its mode, then removes `src`; a failed copy is removed. */
async function compressLogFile(src: string): Promise<void> {
  const dst = src + COMPRESS_SUFFIX
  const mode = statSync(src).mode & 0o777
  try {
    await pipeline(createReadStream(src), createGzip(), createWriteStream(dst, { mode }))
  } catch (err) {
    try {
      unlinkSync(dst)
    } catch {
      // Nothing was written.
    }
    throw err
  }
  unlinkSync(src)
}
