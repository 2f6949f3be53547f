/**
 * The audit log's rotation, as lumberjack (gopkg.in/natefinch/lumberjack.v2, the reference's
 * writer) rotates: a write past the maximum size moves the file to
 * `<name>-<UTC 2006-01-02T15-04-05.000><ext>`; backups past the count or age are removed and
 * the rest gzipped; without a maximum size the file is never rotated.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { RotatingFile, backupName } from '../../../src/server/audit/rotating-file.js'

const MB = 1024 * 1024
/** A line of a bit more than half a megabyte: two fill a 1 MB file past its size. */
const line = (c: string) => `${c.repeat(600 * 1024)}\n`

describe('audit log rotation (lumberjack)', () => {
  let dir: string
  let clock: number
  const now = () => new Date(clock)
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'audit-rotation-'))
    clock = Date.UTC(2026, 0, 2, 3, 4, 5, 6)
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))
  const files = () => readdirSync(dir).sort()

  it("names a backup as lumberjack's backupName: <name>-<UTC time>.<ext>", () => {
    assert.equal(backupName(join('logs', 'audit.log'), new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6))), join('logs', 'audit-2026-01-02T03-04-05.006.log'))
    assert.equal(backupName(join('logs', 'audit'), new Date(Date.UTC(2026, 11, 31, 23, 59, 59, 999))), join('logs', 'audit-2026-12-31T23-59-59.999'))
  })

  it('moves the file aside when a write would take it past the maximum size', async () => {
    const file = new RotatingFile({ path: join(dir, 'audit.log'), maxSizeMb: 1, maxAgeDays: 0, maxBackups: 0, compress: false, now })
    file.write(line('a'))
    assert.deepEqual(files(), ['audit.log'])
    file.write(line('b'))
    await file.close()
    assert.deepEqual(files(), ['audit-2026-01-02T03-04-05.006.log', 'audit.log'])
    assert.equal(readFileSync(join(dir, 'audit-2026-01-02T03-04-05.006.log'), 'utf8'), line('a'))
    assert.equal(readFileSync(join(dir, 'audit.log'), 'utf8'), line('b'))
  })

  it('writes a batch of lines as one write: each line and its newline, multi-byte text whole, a smaller batch after a larger one, rotation counting the whole batch', async () => {
    const file = new RotatingFile({ path: join(dir, 'audit.log'), maxSizeMb: 1, maxAgeDays: 0, maxBackups: 0, compress: false, now })
    const big = ['{"é":"😀"}', 'x'.repeat(300 * 1024), '{"b":2}']
    file.writeLines(big)
    file.writeLines(['{"c":3}'])
    assert.deepEqual(files(), ['audit.log'])
    // 300 KB written; this batch of about 800 KB would take the file past 1 MB: rotated first, never split.
    file.writeLines(['y'.repeat(400 * 1024), 'z'.repeat(400 * 1024)])
    await file.close()
    assert.deepEqual(files(), ['audit-2026-01-02T03-04-05.006.log', 'audit.log'])
    assert.equal(readFileSync(join(dir, 'audit-2026-01-02T03-04-05.006.log'), 'utf8'), `${big.join('\n')}\n{"c":3}\n`)
    assert.equal(readFileSync(join(dir, 'audit.log'), 'utf8'), `${'y'.repeat(400 * 1024)}\n${'z'.repeat(400 * 1024)}\n`)
  })

  it('writes a batch larger than the kept buffer, and lone surrogates, as Buffer encodes them (UTF-8, a lone surrogate as U+FFFD)', async () => {
    const file = new RotatingFile({ path: join(dir, 'audit.log'), maxSizeMb: 0, maxAgeDays: 0, maxBackups: 0, compress: false, now })
    // 1.5 M code units: 4.5 MB at 3 bytes each, past the 4 MB kept buffer; 3 MB of UTF-8.
    const lines = ['é'.repeat(750 * 1024), '😀'.repeat(256 * 1024), 'a\ud800b\udc00c']
    file.writeLines(lines)
    file.writeLines(['{"after":"😀"}'])
    await file.close()
    assert.deepEqual(readFileSync(join(dir, 'audit.log')), Buffer.from(`${lines.join('\n')}\n{"after":"😀"}\n`))
  })

  it('appends to an existing file, and rotates it first when the write would not fit', async () => {
    writeFileSync(join(dir, 'audit.log'), line('x'), { mode: 0o600 })
    const file = new RotatingFile({ path: join(dir, 'audit.log'), maxSizeMb: 1, maxAgeDays: 0, maxBackups: 0, compress: false, now })
    file.write(line('y'))
    await file.close()
    assert.deepEqual(files(), ['audit-2026-01-02T03-04-05.006.log', 'audit.log'])
    assert.equal(statSync(join(dir, 'audit.log')).mode & 0o777, 0o600, "the new file keeps the old one's mode")
  })

  it('refuses a write larger than the maximum size', () => {
    const file = new RotatingFile({ path: join(dir, 'audit.log'), maxSizeMb: 1, maxAgeDays: 0, maxBackups: 0, compress: false, now })
    assert.throws(() => file.write('z'.repeat(MB + 1)), { message: `write length ${MB + 1} exceeds maximum file size ${MB}` })
  })

  it('keeps at most maxbackup backups, the newest', async () => {
    const file = new RotatingFile({ path: join(dir, 'audit.log'), maxSizeMb: 1, maxAgeDays: 0, maxBackups: 1, compress: false, now })
    for (const c of ['a', 'b', 'c']) {
      file.write(line(c))
      clock += 1000
    }
    await file.close()
    assert.deepEqual(files(), ['audit-2026-01-02T03-04-07.006.log', 'audit.log'])
    assert.equal(readFileSync(join(dir, 'audit-2026-01-02T03-04-07.006.log'), 'utf8'), line('b'))
  })

  it('removes backups older than maxage days, by the time in their names', async () => {
    writeFileSync(join(dir, 'audit-2025-12-01T00-00-00.000.log'), 'old\n')
    writeFileSync(join(dir, 'audit-2026-01-01T12-00-00.000.log'), 'recent\n')
    writeFileSync(join(dir, 'other-2025-12-01T00-00-00.000.log'), 'not ours\n')
    const file = new RotatingFile({ path: join(dir, 'audit.log'), maxSizeMb: 1, maxAgeDays: 7, maxBackups: 0, compress: false, now })
    file.write('line\n')
    await file.close()
    assert.deepEqual(files(), ['audit-2026-01-01T12-00-00.000.log', 'audit.log', 'other-2025-12-01T00-00-00.000.log'])
  })

  it('compresses backups with gzip to <backup>.gz', async () => {
    const file = new RotatingFile({ path: join(dir, 'audit.log'), maxSizeMb: 1, maxAgeDays: 0, maxBackups: 0, compress: true, now })
    file.write(line('a'))
    file.write(line('b'))
    await file.close()
    assert.deepEqual(files(), ['audit-2026-01-02T03-04-05.006.log.gz', 'audit.log'])
    assert.equal(gunzipSync(readFileSync(join(dir, 'audit-2026-01-02T03-04-05.006.log.gz'))).toString('utf8'), line('a'))
  })

  it('without a maximum size never rotates (the reference then opens the file itself)', async () => {
    const file = new RotatingFile({ path: join(dir, 'audit.log'), maxSizeMb: 0, maxAgeDays: 0, maxBackups: 0, compress: false, now })
    for (const c of ['a', 'b']) file.write(line(c))
    await file.close()
    assert.deepEqual(files(), ['audit.log'])
    assert.equal(statSync(join(dir, 'audit.log')).size, 2 * line('a').length)
  })
})
