import type Database from 'better-sqlite3'
import { CorruptError, InvalidError } from './errors.js'

const SCHEMA_VERSION = 1

/** Revision of an empty store, as in etcd: the first write gets revision 2. */
const INITIAL_REVISION = 1

/**
 * One row per write. `revision` is the global revision (one write, one revision), so it is
 * the rowid; (key, revision) serves point reads and key-ordered range reads at any revision.
 * A delete is a row with `deleted = 1` (a tombstone) so reads at older revisions and watch
 * history still see the key's earlier versions until compaction.
 */
const CREATE = `
CREATE TABLE kv (
  revision        INTEGER PRIMARY KEY,
  key             BLOB    NOT NULL,
  create_revision INTEGER NOT NULL,
  deleted         INTEGER NOT NULL DEFAULT 0,
  value           BLOB
);
CREATE UNIQUE INDEX kv_key_revision ON kv (key, revision);
CREATE TABLE meta (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO meta (name, value) VALUES
  ('schema_version', ${SCHEMA_VERSION}),
  ('current_revision', ${INITIAL_REVISION}),
  ('compacted_revision', 0);
`

interface Meta {
  currentRevision: number
  compactedRevision: number
}

/** Creates the schema in an empty database, or checks an existing one is ours and current. */
export function ensureSchema(db: Database.Database, file: string): Meta {
  const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map(
    t => t.name,
  )
  if (tables.length === 0) {
    db.exec(`BEGIN IMMEDIATE; ${CREATE} COMMIT;`)
  } else if (!tables.includes('meta') || !tables.includes('kv')) {
    throw new InvalidError(
      `${file} is an SQLite database but not a store database (tables: ${tables.join(', ')}); ` +
        `point the data directory somewhere else`,
    )
  }
  const rows = db.prepare(`SELECT name, value FROM meta`).all() as { name: string; value: number }[]
  const meta = new Map(rows.map(r => [r.name, r.value]))
  const version = meta.get('schema_version')
  if (version !== SCHEMA_VERSION) {
    throw new InvalidError(
      `${file} has store schema version ${String(version)}, this build reads version ${SCHEMA_VERSION}` +
        (version !== undefined && version > SCHEMA_VERSION ? ' (it was written by a newer release)' : ''),
    )
  }
  const currentRevision = meta.get('current_revision')
  const compactedRevision = meta.get('compacted_revision')
  if (currentRevision === undefined || compactedRevision === undefined) {
    throw new CorruptError(`${file} is corrupt: its meta table lacks the revision counters; do not delete it, restore it from a backup`)
  }
  return { currentRevision, compactedRevision }
}
