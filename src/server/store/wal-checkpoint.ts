import fs from 'node:fs'
import type Database from 'better-sqlite3'

/** SQLite's own automatic checkpoint threshold (wal_autocheckpoint's default), in WAL frames. */
const CHECKPOINT_FRAMES = 1000
/** Frames a small commit writes (a table leaf, an index leaf, the meta row): the first estimate. */
const FIRST_FRAMES_PER_COMMIT = 4

/**
 * The embedded store's WAL checkpoints, with their syncs off the event loop. SQLite's automatic
 * checkpoint runs inside a COMMIT and, with synchronous=NORMAL, fsyncs the WAL and then the
 * database file there, blocking the event loop for milliseconds (tens under load) about once
 * every thousand frames. The store turns it off (wal_autocheckpoint=0) and checkpoints here
 * instead, between its own WAL syncs, in SQLite's order but with each sync on libuv's pool: the
 * WAL is synced (nothing is left to write but what compaction wrote outside the store's queue
 * since the last sync), the pages are copied with SQLite's syncs off, and the database file is
 * synced. Until the last sync completes the caller must let nothing write: the next write
 * restarts the WAL over frames whose pages would otherwise not yet be on disk.
 */
export class WalCheckpoint {
  private commits = 0
  private framesPerCommit = FIRST_FRAMES_PER_COMMIT
  private dbFd: number | undefined
  private walFd: number | undefined
  private requested = false
  private readonly synchronousOff: Database.Statement
  private readonly synchronousNormal: Database.Statement
  private readonly passive: Database.Statement

  constructor(
    private readonly db: Database.Database,
    private readonly file: string,
  ) {
    db.pragma('wal_autocheckpoint = 0')
    this.synchronousOff = db.prepare('PRAGMA synchronous = OFF')
    this.synchronousNormal = db.prepare('PRAGMA synchronous = NORMAL')
    this.passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)')
  }

  /** One write transaction committed to the WAL. */
  committed(): void {
    this.commits++
  }

  /** Writes outside the commits counted (compaction's) make the next chance a checkpoint. */
  request(): void {
    this.requested = true
  }

  /** Whether the WAL holds about as many frames as SQLite's automatic checkpoint would allow. */
  get due(): boolean {
    return this.requested || this.commits * this.framesPerCommit >= CHECKPOINT_FRAMES
  }

  /**
   * Syncs the WAL, copies it into the database file and syncs that file, the syncs on the thread
   * pool; `done` runs after the last, with the error of the first that failed. Nothing may write
   * in between.
   */
  run(done: (err: NodeJS.ErrnoException | null) => void): void {
    let walFd: number
    try {
      walFd = this.walFd ??= fs.openSync(`${this.file}-wal`, 'r')
    } catch (err) {
      setImmediate(() => done(err as NodeJS.ErrnoException))
      return
    }
    fs.fdatasync(walFd, (err) => {
      if (err) done(err)
      else this.copyAndSync(done)
    })
  }

  private copyAndSync(done: (err: NodeJS.ErrnoException | null) => void): void {
    const requested = this.requested
    this.requested = false
    try {
      this.synchronousOff.run()
      try {
        const row = this.passive.get() as { log: number } | undefined
        // The frames a checkpoint of commits alone found tell how many a commit writes.
        if (!requested && row && row.log > 0 && this.commits > 0) this.framesPerCommit = Math.max(1, row.log / this.commits)
      } finally {
        this.synchronousNormal.run()
      }
      this.commits = 0
      this.dbFd ??= fs.openSync(this.file, 'r')
    } catch (err) {
      // Pages may have been copied before the failure: the database file is synced all the same.
      if (this.dbFd === undefined) {
        setImmediate(() => done(err as NodeJS.ErrnoException))
        return
      }
    }
    fs.fdatasync(this.dbFd, done)
  }

  close(): void {
    if (this.dbFd !== undefined) fs.closeSync(this.dbFd)
    if (this.walFd !== undefined) fs.closeSync(this.walFd)
    this.dbFd = undefined
    this.walFd = undefined
  }
}
