import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { InvalidError } from './errors.js'

/** `$XDG_DATA_HOME/client/data`, or `~/.local/share/client/data` when XDG_DATA_HOME is unset. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env['XDG_DATA_HOME']
  // The XDG spec says relative values are invalid and must be ignored.
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.local', 'share')
  return path.join(base, 'client', 'data')
}

function errnoOf(err: unknown): string {
  const e = err as NodeJS.ErrnoException
  return e.code ?? 'unknown error'
}

/**
 * Creates the data directory if needed and proves it is writable by writing a probe file:
 * permission bits say nothing about read-only mounts, a full disk, or running as root.
 */
export function prepareDataDir(dir: string): string {
  const resolved = path.resolve(dir)
  try {
    mkdirp(resolved)
  } catch (err) {
    throw new InvalidError(
      `data directory ${resolved} cannot be created (${errnoOf(err)}: ${(err as Error).message})`,
      { cause: err },
    )
  }
  const probe = path.join(resolved, `.write-probe-${process.pid}`)
  try {
    fs.writeFileSync(probe, 'probe')
    fs.rmSync(probe, { force: true })
  } catch (err) {
    throw new InvalidError(
      `data directory ${resolved} is not writable (${errnoOf(err)}: ${(err as Error).message})`,
      { cause: err },
    )
  }
  return resolved
}

/**
 * `mkdir -p`, one level at a time. Node's own recursive mkdir loops forever where a parent
 * exists but refuses children with ENOENT (procfs, some FUSE mounts).
 */
function mkdirp(dir: string): void {
  const parent = path.dirname(dir)
  let stat: fs.Stats | undefined
  try {
    stat = fs.statSync(dir)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  if (stat) {
    if (!stat.isDirectory()) {
      throw Object.assign(new Error(`${dir} exists and is not a directory`), { code: 'ENOTDIR' })
    }
    return
  }
  if (parent !== dir) mkdirp(parent)
  fs.mkdirSync(dir, { mode: 0o700 })
}

/** Whether a process with this PID exists (EPERM: it exists but belongs to someone else). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The PID recorded in a lock file, or undefined when there is no readable one. */
export function readLockOwner(lockFile: string): number | undefined {
  let text: string
  try {
    text = fs.readFileSync(lockFile, 'utf8')
  } catch {
    return undefined
  }
  const pid = Number.parseInt(text.trim().split(/\s+/)[0] ?? '', 10)
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
}

/** Records this process as the owner; written aside and renamed so readers never see half a file. */
export function writeLockOwner(lockFile: string): void {
  const tmp = `${lockFile}.${process.pid}.tmp`
  fs.writeFileSync(tmp, `${process.pid}\n${os.hostname()}\n`)
  fs.renameSync(tmp, lockFile)
}

/** Removes the lock file if it still names this process. */
export function releaseLockOwner(lockFile: string): void {
  if (readLockOwner(lockFile) === process.pid) fs.rmSync(lockFile, { force: true })
}
