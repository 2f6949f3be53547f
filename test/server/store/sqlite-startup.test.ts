import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { defaultDataDir } from '../../../src/server/store/data-dir.js'
import { CorruptError, InvalidError, LockedError } from '../../../src/server/store/errors.js'
import { DB_FILE, LOCK_FILE, SqliteStore } from '../../../src/server/store/sqlite-store.js'
import { ChildScript } from '../../support/store-child.js'

describe('sqlite store start-up', function () {
  let tmp: string

  beforeEach(function () {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'store-startup-'))
  })

  afterEach(function () {
    fs.rmSync(tmp, { recursive: true, force: true })
  })

  function openFails<T extends Error>(dataDir: string, type: new (...args: never[]) => T): T {
    try {
      const store = SqliteStore.open({ dataDir, compactionIntervalMs: 0 })
      void store.close()
    } catch (err) {
      assert.ok(err instanceof type, `expected ${type.name}, got ${String(err)}`)
      return err
    }
    assert.fail(`opening ${dataDir} succeeded`)
  }

  it('defaults to ~/.local/share/client/data, respecting XDG_DATA_HOME', function () {
    assert.equal(defaultDataDir({ XDG_DATA_HOME: '/srv/xdg' }), '/srv/xdg/client/data')
    assert.equal(defaultDataDir({}), path.join(os.homedir(), '.local', 'share', 'client', 'data'))
    assert.equal(defaultDataDir({ XDG_DATA_HOME: 'relative' }), path.join(os.homedir(), '.local', 'share', 'client', 'data'))
  })

  it('creates a missing data directory', async function () {
    const dir = path.join(tmp, 'a', 'b', 'data')
    const store = SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0 })
    assert.ok(fs.existsSync(path.join(dir, DB_FILE)))
    assert.equal(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8').split('\n')[0], String(process.pid))
    await store.close()
    assert.ok(!fs.existsSync(path.join(dir, LOCK_FILE)), 'close releases the lock file')
  })

  it('names the path and errno when the data directory cannot be created (even as root)', function () {
    const file = path.join(tmp, 'plain-file')
    fs.writeFileSync(file, 'not a directory')
    const err = openFails(path.join(file, 'data'), InvalidError)
    assert.equal(err.code, 'Invalid')
    assert.match(err.message, /plain-file\/data/)
    assert.match(err.message, /ENOTDIR/)
    const itself = openFails(file, InvalidError)
    assert.match(itself.message, /plain-file/)
    assert.match(itself.message, /EEXIST|ENOTDIR/)
  })

  it('names the path and errno when the data directory is not writable (even as root)', function () {
    // Root ignores permission bits, but not kernel file systems: procfs refuses new
    // directories, sysfs new files.
    const err = openFails('/proc/self/store-data', InvalidError)
    assert.match(err.message, /\/proc\/self\/store-data cannot be created \(ENOENT/)
    if (fs.existsSync('/sys/kernel')) {
      const sys = openFails('/sys/kernel', InvalidError)
      assert.match(sys.message, /\/sys\/kernel is not writable \(EACCES|EPERM|EROFS/)
    }
  })

  it('refuses a data directory locked by another server process, naming its PID', async function () {
    this.timeout(30_000)
    const dir = path.join(tmp, 'data')
    const holder = new ChildScript('store-holder.ts', [dir])
    try {
      await holder.waitFor(out => out.includes('ready'))
      const err = openFails(dir, LockedError)
      assert.equal(err.code, 'Locked')
      assert.equal(err.ownerPid, holder.pid)
      assert.match(err.message, new RegExp(`PID ${holder.pid}`))
      assert.match(err.message, new RegExp(dir))
    } finally {
      await holder.kill('SIGKILL')
    }
    // The kernel dropped the dead holder's lock: its stale lock file is taken over.
    const store = SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0 })
    assert.equal(store.tookOverFromPid, holder.pid)
    assert.equal(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8').split('\n')[0], String(process.pid))
    await store.close()
  })

  it('refuses a second open in the same process', async function () {
    const dir = path.join(tmp, 'data')
    const store = SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0 })
    try {
      const err = openFails(dir, LockedError)
      assert.match(err.message, new RegExp(`PID ${process.pid}`))
      await store.create('/still/works', Buffer.from('x'))
    } finally {
      await store.close()
    }
  })

  it('takes over a stale lock file of a dead PID', async function () {
    const dir = path.join(tmp, 'data')
    await SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0 }).close()
    const dead = new ChildScript('store-holder.ts', [path.join(tmp, 'other')])
    await dead.waitFor(out => out.includes('ready'))
    await dead.kill('SIGKILL')
    fs.writeFileSync(path.join(dir, LOCK_FILE), `${dead.pid}\nsomehost\n`)
    const store = SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0 })
    assert.equal(store.tookOverFromPid, dead.pid)
    await store.close()
  })

  it('refuses a database file that is garbage, saying not to delete it', function () {
    const dir = path.join(tmp, 'data')
    fs.mkdirSync(dir)
    const garbage = Buffer.alloc(64 * 1024)
    for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 7919 + 13) % 251
    fs.writeFileSync(path.join(dir, DB_FILE), garbage)
    const err = openFails(dir, CorruptError)
    assert.equal(err.code, 'Corrupt')
    assert.match(err.message, /corrupt/)
    assert.match(err.message, /NOT delete/)
    assert.match(err.message, new RegExp(path.join(dir, DB_FILE)))
    assert.ok(fs.readFileSync(path.join(dir, DB_FILE)).equals(garbage), 'the file is left as it was')
  })

  it('finds damaged pages with quick_check', async function () {
    const dir = path.join(tmp, 'data')
    const store = SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0 })
    const value = Buffer.alloc(300, 1)
    await Promise.all(Array.from({ length: 2000 }, (_, i) => store.create(`/k/${String(i).padStart(5, '0')}`, value)))
    await store.close()
    const file = path.join(dir, DB_FILE)
    // Fold the WAL into the main file, then scribble over a page in the middle of it.
    const db = new Database(file)
    db.pragma('wal_checkpoint(TRUNCATE)')
    db.pragma('journal_mode = DELETE')
    db.close()
    const size = fs.statSync(file).size
    const fd = fs.openSync(file, 'r+')
    const page = Math.floor(size / 4096 / 2)
    fs.writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, page * 4096)
    fs.closeSync(fd)
    const err = openFails(dir, CorruptError)
    assert.match(err.message, /corrupt/)
    assert.match(err.message, /NOT delete/)
  })

  it('refuses a database of a newer schema version', async function () {
    const dir = path.join(tmp, 'data')
    await SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0 }).close()
    const db = new Database(path.join(dir, DB_FILE))
    db.prepare(`UPDATE meta SET value = 99 WHERE name = 'schema_version'`).run()
    db.close()
    const err = openFails(dir, InvalidError)
    assert.match(err.message, /schema version 99/)
    assert.match(err.message, /newer/)
  })

  it('refuses an SQLite database that is not a store', function () {
    const dir = path.join(tmp, 'data')
    fs.mkdirSync(dir)
    const db = new Database(path.join(dir, DB_FILE))
    db.exec('CREATE TABLE something (x)')
    db.close()
    const err = openFails(dir, InvalidError)
    assert.match(err.message, /not a store database/)
  })
})
