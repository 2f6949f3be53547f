import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { startCompactor, type Compactor } from './compactor.js'
import { pidAlive, prepareDataDir, readLockOwner, releaseLockOwner, writeLockOwner } from './data-dir.js'
import {
  AlreadyExistsError,
  CompactedError,
  ConflictError,
  CorruptError,
  InvalidError,
  LockedError,
  NotFoundError,
  StoreError,
  UnavailableError,
} from './errors.js'
import {
  checkKey,
  checkPrefix,
  checkRevision,
  checkValue,
  encodeContinue,
  keyAfter,
  pageStart,
  prefixEnd,
} from './keys.js'
import { ensureSchema } from './sqlite-schema.js'
import { WalCheckpoint } from './wal-checkpoint.js'
import type {
  DeleteOptions,
  PutOptions,
  DeleteResult,
  KeyValue,
  ListOptions,
  ListResult,
  NamedHealthCheck,
  Store,
  Watch,
  WatchEvent,
  WatchOptions,
} from './types.js'
import { LatestReads } from './latest-reads.js'
import { WrittenValues } from './written-values.js'
import { WatchStream } from './watch-stream.js'
import { withTimeout } from './timeout.js'

/**
 * A copy of a value in memory of its own. Buffer.from() places a small copy in Node's shared
 * 8 KB pool, beside short-lived buffers (request bodies, responses): a value that lives on (the
 * event log, then a watch cache's state) kept its whole slab alive, several times its own size
 * (measured: external memory grew 3x the stored bytes over 20,000 creates).
 */
function ownCopy(value: Buffer): Buffer {
  const copy = Buffer.allocUnsafeSlow(value.length)
  value.copy(copy)
  return copy
}

export interface SqliteStoreOptions {
  dataDir: string
  /** Periodic compaction; 0 disables it. Default 5 minutes, like the reference. */
  compactionIntervalMs?: number
  /** Default timeout of healthCheck() and the liveness probe. */
  healthcheckTimeoutMs?: number
  /** Default timeout of the readiness probe. */
  readycheckTimeoutMs?: number
  /** Recent events kept in memory to start watches without reading the table. */
  eventLogSize?: number
  /** Most writes committed in one transaction. */
  maxBatch?: number
  /** Undelivered events a watch may hold before it breaks as too slow. */
  watchBufferLimit?: number
  /** Called with errors of background work (periodic compaction) that has no caller to reject. */
  onBackgroundError?: (err: unknown) => void
  /** How often keys written with a TTL are looked at for expiry; default 1 s (etcd's lease granularity). */
  expirySweepIntervalMs?: number
}

/** The `file` of a scratch store (SqliteStore.scratch): an SQLite database in memory. */
export const SCRATCH_FILE = ':memory:'

export const DB_FILE = 'store.db'
export const LOCK_FILE = 'store.lock'

interface Row {
  key: Buffer
  revision: number
  create_revision: number
  deleted: number
  value: Buffer | null
}

type Settle<T> = { resolve: (v: T) => void; reject: (e: unknown) => void }
type WriteOp =
  | ({ kind: 'create'; key: string; keyBuf: Buffer; value: Buffer; expiresAt?: number } & Settle<KeyValue>)
  | ({ kind: 'update'; key: string; keyBuf: Buffer; value: Buffer; expected: number; expiresAt?: number } & Settle<KeyValue>)
  | ({ kind: 'delete'; key: string; keyBuf: Buffer; expected?: number; onlyIfExpiredAt?: number } & Settle<DeleteResult>)
  | ({ kind: 'barrier' } & Settle<void>)

/** A committed batch waiting for the WAL sync that makes it durable before anyone hears of it. */
interface Committed {
  /** The last revision the batch wrote (the previous one when it wrote nothing). */
  readonly revision: number
  readonly events: WatchEvent[]
  readonly outcomes: Array<() => void>
  readonly ops: WriteOp[]
}

interface Watcher {
  readonly stream: WatchStream
  readonly key: string
  readonly exact: boolean
  /** Next revision to look at; events below it were delivered or skipped. */
  next: number
  /** Receiving committed events directly rather than catching up from history. */
  live: boolean
}

const HISTORY_CHUNK = 1000
const COMPACT_CHUNK = 10_000
/** Page-throughs whose next page's count is kept (a few hundred clients paging at once). */
const PAGE_COUNTS_KEPT = 512
/** Lists (or pages) kept by revision: ranges of a few objects, read again and again. */
const LIST_READS_KEPT = 64
/** The largest list kept: the small ranges a write's admission and allocations read. */
const LIST_READ_MAX_ROWS = 64

/**
 * The embedded store: an MVCC table in SQLite in WAL mode. Every acknowledged write survives
 * kill -9 and power loss. Writes arriving in the same turn of the event loop are committed in
 * one transaction (group commit); the commit only writes the WAL (synchronous=NORMAL), and the
 * WAL's fdatasync, which synchronous=FULL would do inside COMMIT on the event loop, runs on
 * libuv's thread pool instead. Writes arriving while a sync runs wait for it, then are
 * committed in one transaction and made durable by the next sync (group commit). Nothing of a batch is visible before its sync
 * completes: reads are made at the durable revision (the table is MVCC), watch events are
 * published and callers settled (results and errors alike) only then, in commit order.
 * The process holds SQLite's exclusive lock for its lifetime, so a second server on the same
 * data directory fails at start-up instead of corrupting it.
 */
export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const
  readonly dataDir: string
  readonly file: string
  /** PID named in a stale lock file this store took over, if any. */
  readonly tookOverFromPid: number | undefined

  private readonly db: Database.Database
  /** The database file's inode (undefined for a scratch store, which has no file). */
  private readonly fileIno: number | undefined
  /** Writes are synced to disk before anyone sees them; false for a scratch store. */
  private readonly durable: boolean
  /** The durable revision: the newest one readers, watchers and callers may see. */
  private rev: number
  /** The newest revision committed to the WAL (durable or not): the writer's view. */
  private committedRev: number
  /** Committed batches, oldest first, not yet made durable by a WAL sync. */
  private awaitingSync: Committed[] = []
  private syncing = false
  /** The WAL file opened for fdatasync (SQLite's own descriptor is out of reach). */
  private walFd: number | undefined
  /** The WAL's checkpoints, run between syncs with their own sync off the event loop. */
  private readonly checkpoint: WalCheckpoint
  /** Settles when a running checkpoint's database sync does: writes outside the queue wait for it. */
  private checkpointSynced: Promise<void> | undefined
  /** Set when a WAL sync failed: what SQLite holds is no longer known to be on disk. */
  private syncFailure: UnavailableError | undefined
  private drained: Array<() => void> = []
  private compacted: number
  private closed = false
  private queue: WriteOp[] = []
  private flushScheduled = false
  private readonly watchers = new Set<Watcher>()
  /**
   * The latest durable version (or absence) of keys read lately, so that a GET of an unchanged
   * object does not ask SQLite again: the process is the store's only writer (exclusive lock),
   * and every write reaches readers through one place (a batch's sync completing), which drops
   * the keys it wrote before anything may read at the new revision.
   */
  private readonly latestRead = new LatestReads()
  /** The values of the latest writes: an event's prevValue shares the previous write's Buffer. */
  private readonly writtenValues = new WrittenValues()
  /**
   * How many keys a paged list has left from the start of its next page, by revision, range
   * end and start key: the next page's count is this one's less the page, so a page-through
   * counts the range once instead of once a page (a count costs the rest of the range).
   */
  private readonly pageCounts = new Map<string, number>()
  /**
   * The rows of small lists (or pages), by revision, range and page size: what a range holds at a revision
   * never changes (a later write has a later revision; compaction only drops versions that a
   * read at or above the compacted revision cannot see, and readableRevision refuses older
   * reads first). A Service create lists Services and IPAddresses for its cluster IP, and
   * admission lists webhook configurations and policies, at the same revision request after
   * request when nothing is written between (dry runs, `client validate`).
   */
  private readonly listReads = new Map<string, Row[]>()
  private eventLog: WatchEvent[] = []
  private compaction: Promise<void> = Promise.resolve()
  private readonly compactor: Compactor
  private readonly expirySweeper: NodeJS.Timeout

  private readonly stmt: {
    begin: Database.Statement
    commit: Database.Statement
    rollback: Database.Statement
    latest: Database.Statement
    latestAt: Database.Statement
    insert: Database.Statement
    setMeta: Database.Statement
    getMeta: Database.Statement
    listRange: Database.Statement
    listOpen: Database.Statement
    countRange: Database.Statement
    countOpen: Database.Statement
    history: Database.Statement
    previous: Database.Statement
    compactChunk: Database.Statement
    setExpiry: Database.Statement
    clearExpiry: Database.Statement
    getExpiry: Database.Statement
    expired: Database.Statement
  }

  private constructor(
    private readonly options: Required<Omit<SqliteStoreOptions, 'onBackgroundError'>> &
      Pick<SqliteStoreOptions, 'onBackgroundError'>,
    opened: { dir: string; file: string; db: Database.Database; tookOverFromPid: number | undefined },
  ) {
    this.dataDir = opened.dir
    this.file = opened.file
    this.db = opened.db
    this.tookOverFromPid = opened.tookOverFromPid
    this.durable = opened.file !== SCRATCH_FILE
    this.fileIno = this.durable ? fs.statSync(this.file).ino : undefined
    const meta = ensureSchema(this.db, this.file)
    this.checkpoint = new WalCheckpoint(this.db, this.file)
    this.rev = meta.currentRevision
    this.committedRev = this.rev
    this.compacted = meta.compactedRevision
    const db = this.db
    // Keys written with a TTL and when they expire (a table of its own: stores written by
    // earlier builds open unchanged, and builds without TTLs ignore it).
    db.exec(`CREATE TABLE IF NOT EXISTS expiry (key BLOB PRIMARY KEY, expires_at INTEGER NOT NULL) WITHOUT ROWID`)
    const pick = `SELECT key, MAX(revision) AS revision, create_revision, deleted, value FROM kv`
    this.stmt = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      latest: db.prepare(
        `SELECT key, revision, create_revision, deleted, value FROM kv WHERE key = ? ORDER BY revision DESC LIMIT 1`,
      ),
      // What readers see: the newest version at or below the durable revision.
      latestAt: db.prepare(
        `SELECT key, revision, create_revision, deleted, value FROM kv WHERE key = ? AND revision <= ? ORDER BY revision DESC LIMIT 1`,
      ),
      insert: db.prepare(`INSERT INTO kv (revision, key, create_revision, deleted, value) VALUES (?, ?, ?, ?, ?)`),
      setMeta: db.prepare(`UPDATE meta SET value = ? WHERE name = ?`),
      getMeta: db.prepare(`SELECT value FROM meta WHERE name = ?`),
      // The newest version of each key at or below the read revision; bare columns of a
      // MAX() aggregate come from the row holding the maximum (an SQLite guarantee).
      listRange: db.prepare(
        `${pick} WHERE key >= ? AND key < ? AND revision <= ? GROUP BY key HAVING deleted = 0 ORDER BY key LIMIT ?`,
      ),
      listOpen: db.prepare(
        `${pick} WHERE key >= ? AND revision <= ? GROUP BY key HAVING deleted = 0 ORDER BY key LIMIT ?`,
      ),
      countRange: db.prepare(
        `SELECT COUNT(*) AS n FROM (SELECT MAX(revision), deleted FROM kv WHERE key >= ? AND key < ? AND revision <= ? GROUP BY key HAVING deleted = 0)`,
      ),
      countOpen: db.prepare(
        `SELECT COUNT(*) AS n FROM (SELECT MAX(revision), deleted FROM kv WHERE key >= ? AND revision <= ? GROUP BY key HAVING deleted = 0)`,
      ),
      history: db.prepare(
        `SELECT key, revision, create_revision, deleted, value FROM kv WHERE revision >= ? AND revision <= ? ORDER BY revision`,
      ),
      previous: db.prepare(
        `SELECT key, revision, create_revision, deleted, value FROM kv WHERE key = ? AND revision < ? ORDER BY revision DESC LIMIT 1`,
      ),
      // A version below the compaction point goes when a newer version below it supersedes
      // it, or when it is a tombstone. The version right before the compacted revision's own
      // write stays, so a watch from exactly the compacted revision still gets its prevValue.
      compactChunk: db.prepare(
        `DELETE FROM kv WHERE revision >= @lo AND revision < @hi AND (deleted = 1 OR EXISTS (
           SELECT 1 FROM kv AS newer WHERE newer.key = kv.key AND newer.revision > kv.revision AND newer.revision < @c))`,
      ),
      setExpiry: db.prepare(`INSERT INTO expiry (key, expires_at) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at`),
      clearExpiry: db.prepare(`DELETE FROM expiry WHERE key = ?`),
      getExpiry: db.prepare(`SELECT expires_at FROM expiry WHERE key = ?`),
      expired: db.prepare(`SELECT key, expires_at FROM expiry WHERE expires_at <= ? ORDER BY expires_at LIMIT 1000`),
    }
    this.expirySweeper = setInterval(() => this.sweepExpired(), options.expirySweepIntervalMs)
    this.expirySweeper.unref()
    this.compactor = startCompactor(
      options.compactionIntervalMs,
      async previous => {
        const seen = this.rev
        if (previous > 0) await this.compact(previous)
        return seen
      },
      err => {
        if (!this.closed) this.options.onBackgroundError?.(err)
      },
    )
  }

  /** Opens (creating if needed) the store in `options.dataDir`; fails clearly on bad data directories. */
  static open(options: SqliteStoreOptions): SqliteStore {
    const full = withDefaults(options)
    const dir = prepareDataDir(options.dataDir)
    const file = path.join(dir, DB_FILE)
    const lockFile = path.join(dir, LOCK_FILE)
    let db: Database.Database
    try {
      // timeout 0: a held lock must fail at once, not after SQLite's busy wait.
      db = new Database(file, { timeout: 0 })
    } catch (err) {
      throw new InvalidError(`cannot open store database ${file}: ${(err as Error).message}`, { cause: err })
    }
    let tookOverFromPid: number | undefined
    try {
      // EXCLUSIVE locking: the OS-level lock is taken now and held until close or process
      // death (the kernel drops it on kill -9, so a crashed server never blocks a restart).
      db.pragma('locking_mode = EXCLUSIVE')
      db.pragma('journal_mode = WAL')
      db.exec('BEGIN EXCLUSIVE; COMMIT;')
      // NORMAL: COMMIT writes the WAL without syncing it; the store syncs the WAL itself, off
      // the event loop, before anything of the commit is seen (which is what FULL adds).
      db.pragma('synchronous = NORMAL')
      db.pragma('journal_size_limit = 67108864')
      const previousOwner = readLockOwner(lockFile)
      if (previousOwner !== undefined && previousOwner !== process.pid) tookOverFromPid = previousOwner
      writeLockOwner(lockFile)
      const check = db.pragma('quick_check') as { quick_check: string }[]
      const problems = check.map(r => r.quick_check).filter(m => m !== 'ok')
      if (problems.length > 0) {
        throw new CorruptError(corruptMessage(file, problems.slice(0, 5).join('; ')))
      }
      const store = new SqliteStore(full, { dir, file, db, tookOverFromPid })
      return store
    } catch (err) {
      const holder = readLockOwner(lockFile)
      try {
        db.close()
      } catch {
        // Already failing; the original error is the one to report.
      }
      if (holder === process.pid && !(isSqliteCode(err, 'SQLITE_BUSY') || isSqliteCode(err, 'SQLITE_LOCKED'))) {
        releaseLockOwner(lockFile)
      }
      throw openError(err, file, lockFile, holder)
    }
  }

  /**
   * A store whose content lives only as long as the process and the store: the same tables,
   * revisions, reads and watches, in an SQLite database in memory, and no disk at all (no data
   * directory, no lock, no WAL sync). For work whose result nobody reads after the run (the
   * offline dry-run server of `client validate`): a write is seen as soon as it is committed.
   */
  static scratch(options: Omit<SqliteStoreOptions, 'dataDir'> = {}): SqliteStore {
    const db = new Database(SCRATCH_FILE)
    return new SqliteStore(withDefaults({ ...options, dataDir: '', compactionIntervalMs: 0 }), { dir: '', file: SCRATCH_FILE, db, tookOverFromPid: undefined })
  }

  // ---- writes -------------------------------------------------------------------------

  create(key: string, value: Buffer, options: PutOptions = {}): Promise<KeyValue> {
    return this.enqueue<KeyValue>(settle => {
      checkKey(key)
      checkValue(key, value)
      // Copied: the value lives on in the event log, out of reach of the caller's later edits.
      return { kind: 'create', key, keyBuf: Buffer.from(key), value: ownCopy(value), ...expiry(options), ...settle }
    })
  }

  update(key: string, value: Buffer, expectedModRevision: number, options: PutOptions = {}): Promise<KeyValue> {
    return this.enqueue<KeyValue>(settle => {
      checkKey(key)
      checkValue(key, value)
      checkRevision('expected mod revision', expectedModRevision, key)
      const copy = ownCopy(value)
      return { kind: 'update', key, keyBuf: Buffer.from(key), value: copy, expected: expectedModRevision, ...expiry(options), ...settle }
    })
  }

  /** Deletes every key whose TTL ran out, each with its own delete event, as a lease expiry does. */
  private sweepExpired(): void {
    if (this.closed) return
    let rows: { key: Buffer; expires_at: number }[]
    try {
      rows = this.stmt.expired.all(Date.now()) as { key: Buffer; expires_at: number }[]
    } catch (err) {
      this.options.onBackgroundError?.(err)
      return
    }
    for (const row of rows) {
      const key = row.key.toString('utf8')
      // A key rewritten meanwhile got a new expiry (or none): the delete checks it again.
      this.enqueue<DeleteResult>(settle => ({ kind: 'delete', key, keyBuf: row.key, onlyIfExpiredAt: Date.now(), ...settle })).catch((err: unknown) => {
        // Rewritten or deleted meanwhile: nothing expired. Closing abandons the sweep. Anything
        // else (the write failed) is reported like the sweep's own read failing, above.
        if (err instanceof NotFoundError || this.closed) return
        this.options.onBackgroundError?.(err)
      })
    }
  }

  delete(key: string, options: DeleteOptions = {}): Promise<DeleteResult> {
    return this.enqueue<DeleteResult>(settle => {
      checkKey(key)
      const op: WriteOp = { kind: 'delete', key, keyBuf: Buffer.from(key), ...settle }
      if (options.expectedModRevision !== undefined) {
        checkRevision('expected mod revision', options.expectedModRevision, key)
        op.expected = options.expectedModRevision
      }
      return op
    })
  }

  private enqueue<T>(build: (settle: Settle<T>) => WriteOp): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.closed) {
        reject(this.closedError())
        return
      }
      if (this.syncFailure) {
        reject(this.syncFailure)
        return
      }
      this.queue.push(build({ resolve, reject } as Settle<T>))
      this.scheduleFlush()
    })
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return
    this.flushScheduled = true
    // setImmediate rather than a microtask: writers woken by the previous commit get to
    // enqueue their next write first, so concurrent writers share one fsync. While a sync
    // runs, writes wait for it and are committed together when it completes: they could not
    // be acknowledged sooner, and one transaction costs less than one per arrival.
    setImmediate(() => {
      this.flushScheduled = false
      if (!this.syncing) this.flush()
    })
  }

  private flush(): void {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxBatch)
      this.commitBatch(batch)
    }
  }

  private commitBatch(batch: WriteOp[]): void {
    const outcomes: Array<() => void> = []
    const events: WatchEvent[] = []
    let rev = this.committedRev
    const writes = batch.some(op => op.kind !== 'barrier')
    try {
      if (writes) this.stmt.begin.run()
      for (const op of batch) {
        if (op.kind === 'barrier') {
          outcomes.push(() => op.resolve())
          continue
        }
        const cur = this.stmt.latest.get(op.keyBuf) as Row | undefined
        const live = cur !== undefined && cur.deleted === 0 ? toKeyValue(op.key, cur) : undefined
        switch (op.kind) {
          case 'create': {
            if (live) {
              outcomes.push(() => op.reject(new AlreadyExistsError(op.key)))
              break
            }
            rev++
            this.stmt.insert.run(rev, op.keyBuf, rev, 0, op.value)
            this.writeExpiry(op.keyBuf, op.expiresAt)
            this.writtenValues.remember(op.key, rev, op.value)
            const kv: KeyValue = { key: op.key, value: op.value, createRevision: rev, modRevision: rev }
            events.push({ type: 'create', key: op.key, revision: rev, createRevision: rev, value: op.value })
            outcomes.push(() => op.resolve(kv))
            break
          }
          case 'update': {
            if (!live) {
              outcomes.push(() => op.reject(new NotFoundError(op.key)))
              break
            }
            if (live.modRevision !== op.expected) {
              outcomes.push(() => op.reject(new ConflictError(op.key, op.expected, live)))
              break
            }
            rev++
            this.stmt.insert.run(rev, op.keyBuf, live.createRevision, 0, op.value)
            this.writeExpiry(op.keyBuf, op.expiresAt)
            const kv: KeyValue = { key: op.key, value: op.value, createRevision: live.createRevision, modRevision: rev }
            const prevValue = this.writtenValues.get(op.key, live.modRevision) ?? live.value
            this.writtenValues.remember(op.key, rev, op.value)
            events.push({
              type: 'update',
              key: op.key,
              revision: rev,
              createRevision: live.createRevision,
              value: op.value,
              prevValue,
              prevModRevision: live.modRevision,
            })
            outcomes.push(() => op.resolve(kv))
            break
          }
          case 'delete': {
            if (!live) {
              outcomes.push(() => op.reject(new NotFoundError(op.key)))
              break
            }
            if (op.expected !== undefined && live.modRevision !== op.expected) {
              const expected = op.expected
              outcomes.push(() => op.reject(new ConflictError(op.key, expected, live)))
              break
            }
            if (op.onlyIfExpiredAt !== undefined) {
              const row = this.stmt.getExpiry.get(op.keyBuf) as { expires_at: number } | undefined
              if (!row || row.expires_at > op.onlyIfExpiredAt) {
                outcomes.push(() => op.reject(new NotFoundError(op.key)))
                break
              }
            }
            rev++
            this.stmt.insert.run(rev, op.keyBuf, live.createRevision, 1, null)
            this.stmt.clearExpiry.run(op.keyBuf)
            const prevValue = this.writtenValues.get(op.key, live.modRevision) ?? live.value
            this.writtenValues.forget(op.key)
            events.push({
              type: 'delete',
              key: op.key,
              revision: rev,
              createRevision: live.createRevision,
              prevValue,
              prevModRevision: live.modRevision,
            })
            const result: DeleteResult = { revision: rev, prev: live }
            outcomes.push(() => op.resolve(result))
            break
          }
        }
      }
      if (rev !== this.committedRev) this.stmt.setMeta.run(rev, 'current_revision')
      if (writes) {
        this.stmt.commit.run()
        this.checkpoint.committed()
      }
    } catch (err) {
      if (this.db.inTransaction) {
        try {
          this.stmt.rollback.run()
        } catch {
          // The commit failure is the error worth reporting.
        }
      }
      const mapped = mapSqliteError(err, `writing to ${this.file}`)
      for (const op of batch) op.reject(mapped)
      return
    }
    this.committedRev = rev
    if (!writes && this.awaitingSync.length === 0) {
      // Nothing written and nothing before it waiting: nothing to make durable.
      for (const settle of outcomes) settle()
      return
    }
    this.awaitingSync.push({ revision: rev, events, outcomes, ops: batch })
    this.syncWal()
  }

  /**
   * Syncs the WAL on the thread pool unless a sync is running; when it completes, every batch
   * committed before it started becomes durable: visible, published and settled in order.
   */
  private syncWal(): void {
    if (this.syncing || this.awaitingSync.length === 0) return
    this.syncing = true
    const covered = this.awaitingSync.length
    const done = (err: NodeJS.ErrnoException | null): void => {
      this.syncing = false
      const batches = this.awaitingSync.splice(0, covered)
      if (err) {
        this.failSync(err, batches)
      } else {
        for (const batch of batches) {
          this.latestRead.forget(batch.events)
          this.rev = batch.revision
          this.publish(batch.events)
          for (const settle of batch.outcomes) settle()
        }
        // Batches that wrote nothing since (a barrier, a refused precondition) need no sync.
        while (this.awaitingSync.length > 0 && this.awaitingSync[0]!.revision <= this.rev) {
          for (const settle of this.awaitingSync.shift()!.outcomes) settle()
        }
        // Everything committed is durable now: the moment to checkpoint, with writes held
        // (syncing stays set) until the database file's own sync completes.
        if (this.durable && this.awaitingSync.length === 0 && this.checkpoint.due && !this.closed) {
          this.runCheckpoint()
          return
        }
      }
      this.afterSync()
    }
    if (!this.durable) {
      // Nothing to make durable: seen once committed, from a later turn like a synced batch.
      queueMicrotask(() => done(null))
      return
    }
    let fd: number
    try {
      fd = this.walFd ??= fs.openSync(`${this.file}-wal`, 'r')
    } catch (err) {
      // Not even openable: report it as a failed sync, from a later turn like a real one.
      setImmediate(() => done(err as NodeJS.ErrnoException))
      return
    }
    fs.fdatasync(fd, done)
  }

  /** What follows a sync (or a checkpoint's): the writes that waited, then their sync. */
  private afterSync(): void {
    if (this.queue.length > 0 && !this.syncFailure) this.flush()
    if (this.awaitingSync.length > 0) this.syncWal()
    else for (const resolve of this.drained.splice(0)) resolve()
  }

  /** A checkpoint between syncs (WalCheckpoint); writes wait in the queue until it is durable. */
  private runCheckpoint(): void {
    this.syncing = true
    let synced!: () => void
    this.checkpointSynced = new Promise(resolve => (synced = resolve))
    this.checkpoint.run(err => {
      this.syncing = false
      this.checkpointSynced = undefined
      synced()
      if (err) this.failSync(err, [])
      this.afterSync()
    })
  }

  /** Resolves when no checkpoint's database sync is pending (writes outside the queue wait). */
  private async checkpointDone(): Promise<void> {
    while (this.checkpointSynced) await this.checkpointSynced
  }

  /**
   * A failed sync leaves committed writes of unknown durability: their callers get an error
   * (the write may or may not survive a crash, as with a timeout), and the store takes no more
   * writes, so nothing is ever acknowledged on top of them.
   */
  private failSync(err: NodeJS.ErrnoException, batches: Committed[]): void {
    this.syncFailure ??= new UnavailableError(
      `syncing the write-ahead log ${this.file}-wal failed (${err.message}); the store takes no more writes: restart the server`,
      err,
    )
    const failure = this.syncFailure
    for (const batch of [...batches, ...this.awaitingSync.splice(0)]) for (const op of batch.ops) op.reject(failure)
    for (const op of this.queue.splice(0)) op.reject(failure)
  }

  /** Resolves once every committed batch was synced (or failed). */
  private whenSynced(): Promise<void> {
    if (!this.syncing && this.awaitingSync.length === 0) return Promise.resolve()
    return new Promise(resolve => this.drained.push(resolve))
  }

  // ---- reads --------------------------------------------------------------------------

  async get(key: string): Promise<KeyValue | null> {
    return this.getNow(key)
  }

  /** get() without the promise: the read is synchronous anyway. */
  getNow(key: string): KeyValue | null {
    this.ensureOpen()
    const known = this.latestRead.get(key)
    if (known !== undefined) return known
    checkKey(key)
    const row = this.read(() => this.stmt.latestAt.get(Buffer.from(key), this.rev) as Row | undefined)
    const kv = row === undefined || row.deleted !== 0 ? null : toKeyValue(key, row)
    this.latestRead.remember(key, kv)
    return kv
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.ensureOpen()
    checkPrefix(prefix)
    const page = pageStart(prefix, options)
    const revision = this.readableRevision(page.revision)
    const end = prefixEnd(Buffer.from(prefix))
    const start = Buffer.from(page.start)
    const fetch = page.limit > 0 ? page.limit + 1 : -1
    const memo = `${revision} ${fetch} ${end?.toString('hex') ?? ''} ${page.start}`
    const rows =
      this.listReads.get(memo)?.slice() ??
      this.read(
        () =>
          (end
            ? this.stmt.listRange.all(start, end, revision, fetch)
            : this.stmt.listOpen.all(start, revision, fetch)) as Row[],
      )
    if (rows.length <= LIST_READ_MAX_ROWS && !this.listReads.has(memo)) {
      if (this.listReads.size >= LIST_READS_KEPT) this.listReads.delete(this.listReads.keys().next().value!)
      this.listReads.set(memo, rows.slice())
    }
    if (page.limit > 0 && rows.length > page.limit) {
      rows.length = page.limit
      const items = rows.map(r => toKeyValue(r.key.toString(), r))
      const next = keyAfter(items[items.length - 1]!.key)
      if (options.skipRemaining) return { items, revision, continue: encodeContinue(revision, next) }
      const remaining = this.remainingAfterPage(revision, end, page.start, next, page.limit)
      return { items, revision, continue: encodeContinue(revision, next), remaining }
    }
    return { items: rows.map(r => toKeyValue(r.key.toString(), r)), revision }
  }

  async count(prefix: string): Promise<number> {
    this.ensureOpen()
    checkPrefix(prefix)
    const start = Buffer.from(prefix)
    return this.countFrom(start, prefixEnd(start), this.rev)
  }

  async currentRevision(): Promise<number> {
    this.ensureOpen()
    return this.rev
  }

  /** The keys from `next` on at `revision`, from the count of the page before when known. */
  private remainingAfterPage(revision: number, end: Buffer | undefined, start: string, next: string, pageSize: number): number {
    const range = `${revision} ${end?.toString('hex') ?? ''} `
    const fromStart = this.pageCounts.get(range + start)
    const remaining = fromStart !== undefined ? fromStart - pageSize : this.countFrom(Buffer.from(next), end, revision)
    this.pageCounts.delete(range + start)
    if (this.pageCounts.size >= PAGE_COUNTS_KEPT) this.pageCounts.delete(this.pageCounts.keys().next().value!)
    this.pageCounts.set(range + next, remaining)
    return remaining
  }

  private countFrom(start: Buffer, end: Buffer | undefined, revision: number): number {
    const row = this.read(
      () =>
        (end ? this.stmt.countRange.get(start, end, revision) : this.stmt.countOpen.get(start, revision)) as {
          n: number
        },
    )
    return row.n
  }

  /** Resolves a requested read revision (0: current), refusing compacted and future ones. */
  private readableRevision(requested: number): number {
    const revision = requested === 0 ? this.rev : requested
    if (revision < this.compacted) throw new CompactedError(revision, this.compacted)
    if (revision > this.rev) {
      throw new InvalidError(`required revision ${revision} is a future revision (current ${this.rev})`, {
        revision,
      })
    }
    return revision
  }

  private read<T>(fn: () => T): T {
    try {
      return fn()
    } catch (err) {
      throw mapSqliteError(err, `reading ${this.file}`)
    }
  }

  // ---- watch --------------------------------------------------------------------------

  async watch(keyOrPrefix: string, options: WatchOptions = {}): Promise<Watch> {
    this.ensureOpen()
    if (options.exact) checkKey(keyOrPrefix)
    else checkPrefix(keyOrPrefix)
    let from = options.fromRevision ?? 0
    if (!Number.isSafeInteger(from) || from < 0) {
      throw new InvalidError(`invalid watch revision ${String(from)}: a revision is a non-negative integer`)
    }
    if (from === 0) from = this.rev + 1
    if (from < this.compacted) throw new CompactedError(from, this.compacted)
    const description = `${options.exact ? 'key' : 'prefix'} "${keyOrPrefix}"`
    let watcher: Watcher | undefined = undefined
    const stream = new WatchStream(
      description,
      from,
      () => {
        if (watcher) this.watchers.delete(watcher)
      },
      this.options.watchBufferLimit,
    )
    const live = (watcher = { stream, key: keyOrPrefix, exact: options.exact === true, next: from, live: false })
    // Publishing hands a live watcher every event up to the durable revision at once, so that
    // revision is its progress; a watcher still catching up has none to report yet.
    stream.requestProgress = () => {
      if (live.live) stream.pushProgress(this.rev)
    }
    this.watchers.add(watcher)
    this.catchUp(watcher)
    return stream
  }

  private matches(w: Watcher, key: string): boolean {
    return w.exact ? key === w.key : key.startsWith(w.key)
  }

  /** Appends committed events to the in-memory log and hands them to live watchers. */
  private publish(events: WatchEvent[]): void {
    if (events.length === 0) return
    this.eventLog.push(...events)
    const size = this.options.eventLogSize
    if (this.eventLog.length > 2 * size) this.eventLog = this.eventLog.slice(this.eventLog.length - size)
    for (const w of this.watchers) {
      if (!w.live) continue
      for (const ev of events) {
        if (ev.revision >= w.next && this.matches(w, ev.key)) w.stream.push(ev)
      }
      // Max: a watch may start at a revision not yet written.
      w.next = Math.max(w.next, events[events.length - 1]!.revision + 1)
    }
  }

  /**
   * Brings a watcher from its start revision up to the present, from the in-memory log when
   * it reaches back far enough and from the table otherwise (in chunks, yielding between
   * them). Everything up to going live happens synchronously after the last chunk, so no
   * commit can slip between history and live delivery.
   */
  private catchUp(w: Watcher): void {
    while (!w.stream.closed) {
      if (w.next < this.compacted) {
        w.stream.fail(new CompactedError(w.next, this.compacted))
        return
      }
      if (w.next > this.rev) {
        w.live = true
        return
      }
      const first = this.eventLog.length > 0 ? this.eventLog[0]!.revision : this.rev + 1
      if (w.next >= first) {
        for (let i = w.next - first; i < this.eventLog.length; i++) {
          const ev = this.eventLog[i]!
          if (this.matches(w, ev.key)) w.stream.push(ev)
        }
        w.next = this.rev + 1
        w.live = true
        return
      }
      const hi = Math.min(this.rev, first - 1, w.next + HISTORY_CHUNK - 1)
      try {
        for (const ev of this.historyEvents(w, w.next, hi)) w.stream.push(ev)
      } catch (err) {
        w.stream.fail(err instanceof StoreError ? err : mapSqliteError(err, `reading history of ${this.file}`))
        return
      }
      w.next = hi + 1
      if (w.next <= this.rev) {
        setImmediate(() => this.catchUp(w))
        return
      }
    }
  }

  private historyEvents(w: Watcher, lo: number, hi: number): WatchEvent[] {
    const events: WatchEvent[] = []
    for (const row of this.stmt.history.iterate(lo, hi) as IterableIterator<Row>) {
      const key = row.key.toString()
      if (!this.matches(w, key)) continue
      const prev = this.stmt.previous.get(row.key, row.revision) as Row | undefined
      const prevLive = prev !== undefined && prev.deleted === 0 && prev.create_revision === row.create_revision
      const base = { key, revision: row.revision, createRevision: row.create_revision }
      if (row.deleted !== 0) {
        events.push({
          type: 'delete',
          ...base,
          ...(prevLive ? { prevValue: prev.value ?? Buffer.alloc(0), prevModRevision: prev.revision } : {}),
        })
      } else if (row.create_revision === row.revision) {
        events.push({ type: 'create', ...base, value: row.value ?? Buffer.alloc(0) })
      } else {
        events.push({
          type: 'update',
          ...base,
          value: row.value ?? Buffer.alloc(0),
          ...(prevLive ? { prevValue: prev.value ?? Buffer.alloc(0), prevModRevision: prev.revision } : {}),
        })
      }
    }
    return events
  }

  // ---- compaction ---------------------------------------------------------------------

  compact(revision: number): Promise<void> {
    const run = this.compaction.then(() => this.compactNow(revision))
    this.compaction = run.catch(() => {})
    return run
  }

  private async compactNow(revision: number): Promise<void> {
    this.ensureOpen()
    checkRevision('compaction revision', revision)
    if (revision > this.rev) {
      throw new InvalidError(`cannot compact to revision ${revision}: it is a future revision (current ${this.rev})`, {
        revision,
      })
    }
    if (revision <= this.compacted) return
    // Raising the mark first makes reads below it fail from now on, so deleting the rows
    // can go in small steps (and be interrupted by a crash) without anyone seeing a gap.
    await this.checkpointDone()
    this.read(() => this.stmt.setMeta.run(revision, 'compacted_revision'))
    this.compacted = revision
    const firstKept = this.eventLog.findIndex(ev => ev.revision >= revision)
    this.eventLog = firstKept < 0 ? [] : this.eventLog.slice(firstKept)
    for (const w of this.watchers) {
      if (!w.live && w.next < revision) w.stream.fail(new CompactedError(w.next, revision))
    }
    for (let lo = 0; lo < revision; lo += COMPACT_CHUNK) {
      if (this.closed) return
      const hi = Math.min(lo + COMPACT_CHUNK, revision)
      await this.checkpointDone()
      if (this.closed) return
      this.read(() => this.stmt.compactChunk.run({ lo, hi, c: revision }))
      await new Promise(resolve => setImmediate(resolve))
    }
    // A scratch store (in memory) has no WAL file to checkpoint.
    if (!this.durable) return
    // Its deletions are WAL frames no commit counted: checkpoint them now if the writer is idle,
    // else after the running sync.
    this.checkpoint.request()
    if (!this.syncing && this.awaitingSync.length === 0 && this.queue.length === 0 && !this.closed && !this.syncFailure) this.runCheckpoint()
  }

  // ---- health & lifecycle -------------------------------------------------------------

  healthCheck(timeoutMs: number = this.options.healthcheckTimeoutMs): Promise<void> {
    return withTimeout(
      this.roundTrip(),
      timeoutMs,
      () => new UnavailableError(`store health check of ${this.file} timed out after ${timeoutMs}ms`),
    )
  }

  async dbSizeBytes(): Promise<number> {
    if (!this.durable) {
      const pages = this.read(() => this.db.pragma('page_count', { simple: true }) as number)
      return pages * (this.db.pragma('page_size', { simple: true }) as number)
    }
    let total = 0
    for (const suffix of ['', '-wal']) {
      try {
        total += fs.statSync(this.file + suffix).size
      } catch {
        // No write-ahead log at this moment.
      }
    }
    return total
  }

  healthChecks(): NamedHealthCheck[] {
    return [{ name: 'store', check: timeoutMs => this.healthCheck(timeoutMs) }]
  }

  readyChecks(): NamedHealthCheck[] {
    return [{ name: 'store-readiness', check: (timeoutMs = this.options.readycheckTimeoutMs) => this.healthCheck(timeoutMs) }]
  }

  /**
   * Proves the writer is not wedged (a barrier passes through the commit queue), the
   * database answers, and the file we hold is still the one in the data directory.
   */
  private async roundTrip(): Promise<void> {
    if (this.closed) throw this.closedError()
    if (this.syncFailure) throw this.syncFailure
    await new Promise<void>((resolve, reject) => {
      this.queue.push({ kind: 'barrier', resolve, reject })
      this.scheduleFlush()
    })
    const row = this.read(() => this.stmt.getMeta.get('current_revision') as { value: number } | undefined)
    if (row?.value !== this.committedRev) {
      throw new CorruptError(`store ${this.file} reports revision ${String(row?.value)}, expected ${this.committedRev}`)
    }
    // A scratch store has no file to lose.
    if (!this.durable) return
    let ino: number
    try {
      ino = fs.statSync(this.file).ino
    } catch (err) {
      throw new UnavailableError(`store database ${this.file} disappeared from the data directory`, err)
    }
    if (ino !== this.fileIno) {
      throw new UnavailableError(`store database ${this.file} was replaced while the server held it open`)
    }
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.flush()
    this.closed = true
    clearInterval(this.expirySweeper)
    await this.whenSynced()
    await this.compactor.stop()
    await this.compaction
    for (const w of [...this.watchers]) w.stream.end()
    this.watchers.clear()
    if (this.walFd !== undefined) fs.closeSync(this.walFd)
    this.checkpoint.close()
    this.db.close()
    if (this.durable) releaseLockOwner(path.join(this.dataDir, LOCK_FILE))
  }

  private writeExpiry(keyBuf: Buffer, expiresAt: number | undefined): void {
    if (expiresAt === undefined) this.stmt.clearExpiry.run(keyBuf)
    else this.stmt.setExpiry.run(keyBuf, expiresAt)
  }

  private ensureOpen(): void {
    if (this.closed) throw this.closedError()
  }

  private closedError(): UnavailableError {
    return new UnavailableError(`store ${this.file} is closed`)
  }
}

/** The options with the defaults of those not given (or given as undefined). */
function withDefaults(options: SqliteStoreOptions): Required<Omit<SqliteStoreOptions, 'onBackgroundError'>> & Pick<SqliteStoreOptions, 'onBackgroundError'> {
  return {
    compactionIntervalMs: 5 * 60_000,
    healthcheckTimeoutMs: 2_000,
    readycheckTimeoutMs: 2_000,
    eventLogSize: 10_000,
    expirySweepIntervalMs: 1_000,
    maxBatch: 1_000,
    watchBufferLimit: 100_000,
    // Options left undefined keep their defaults.
    ...(Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as SqliteStoreOptions),
  }
}

function toKeyValue(key: string, row: Row): KeyValue {
  return {
    key,
    value: row.value ?? Buffer.alloc(0),
    createRevision: row.create_revision,
    modRevision: row.revision,
  }
}

function isSqliteCode(err: unknown, prefix: string): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' && code.startsWith(prefix)
}

function corruptMessage(file: string, detail: string): string {
  return (
    `store database ${file} is corrupt (${detail}). Do NOT delete it silently: stop the server, ` +
    `keep a copy of the data directory, and restore it from a backup (or salvage it with ` +
    `"sqlite3 ${file} .recover") before starting again`
  )
}

/** Turns a failure while opening into the start-up error an operator can act on. */
function openError(err: unknown, file: string, lockFile: string, holder: number | undefined): StoreError {
  if (err instanceof StoreError) return err
  if (isSqliteCode(err, 'SQLITE_BUSY') || isSqliteCode(err, 'SQLITE_LOCKED')) {
    const dir = path.dirname(file)
    if (holder === process.pid) {
      return new LockedError(`data directory ${dir} is already open in this process (PID ${holder})`, holder)
    }
    if (holder !== undefined && pidAlive(holder)) {
      return new LockedError(
        `data directory ${dir} is locked by another server process (PID ${holder}, lock file ${lockFile}); ` +
          `stop that process or choose another data directory`,
        holder,
      )
    }
    return new LockedError(
      `data directory ${dir} is locked by another process` +
        (holder === undefined ? '' : ` (its lock file ${lockFile} names PID ${holder}, which is not running)`) +
        `; stop the process holding ${file} or choose another data directory`,
      holder,
    )
  }
  if (isSqliteCode(err, 'SQLITE_NOTADB') || isSqliteCode(err, 'SQLITE_CORRUPT')) {
    return new CorruptError(corruptMessage(file, (err as Error).message), err)
  }
  return mapSqliteError(err, `opening ${file}`)
}

function mapSqliteError(err: unknown, doing: string): StoreError {
  if (err instanceof StoreError) return err
  const message = err instanceof Error ? err.message : String(err)
  if (isSqliteCode(err, 'SQLITE_NOTADB') || isSqliteCode(err, 'SQLITE_CORRUPT')) {
    return new CorruptError(`${doing}: the database is corrupt (${message}); do not delete it, restore it from a backup`, err)
  }
  if (isSqliteCode(err, 'SQLITE_READONLY') || isSqliteCode(err, 'SQLITE_CANTOPEN') || isSqliteCode(err, 'SQLITE_PERM')) {
    return new InvalidError(`${doing}: ${message}`, { cause: err })
  }
  // I/O errors, a full disk, contention: the same request can succeed once the cause is gone.
  return new UnavailableError(`${doing}: ${message}`, err)
}

function expiry(options: PutOptions): { expiresAt?: number } {
  const ttl = options.ttlSeconds
  if (ttl === undefined || ttl <= 0) return {}
  if (!Number.isFinite(ttl)) throw new InvalidError(`invalid TTL ${ttl}: it must be a number of seconds`)
  return { expiresAt: Date.now() + ttl * 1000 }
}
