/**
 * The on-disk discovery cache, laid out as kubectl's (client-go disk.CachedDiscoveryClient):
 * `<cache-dir>/discovery/<host_port>/servergroups.json` (the API group list, the core group
 * first with the name "") and `<cache-dir>/discovery/<host_port>/<group>/<version>/serverresources.json`
 * (`v1/serverresources.json` for the core group). An entry is used while its file is younger
 * than the TTL (kubectl's 6 hours), judged by the file's mtime. Cache problems (unreadable,
 * unwritable, corrupt files) are never errors: the cache is skipped.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export const DISCOVERY_CACHE_TTL_MS = 6 * 60 * 60 * 1000

/** `--cache-dir`'s default, `$HOME/.client/cache` (kubectl: `$HOME/.kube/cache`). */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.HOME || os.homedir(), '.client', 'cache')
}

/** `$HOME` (and `~/`) expanded in a `--cache-dir` value, as the catalogue's default is written. */
export function expandCacheDir(value: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (value === undefined || value === '') return defaultCacheDir(env)
  const home = env.HOME || os.homedir()
  return value.replace(/^~(?=$|\/)/, home).replace(/\$HOME\b|\$\{HOME\}/g, home)
}

/** kubectl's per-server directory name: scheme removed, characters other than `\w/.()` as `_`. */
export function discoveryDirName(server: string): string {
  const host = server.replace('https://', '').replace('http://', '')
  return host.replace(/[^(\w/.)]/g, '_')
}

export class DiscoveryCache {
  readonly dir: string

  constructor(
    cacheDir: string,
    server: string,
    private readonly ttlMs = DISCOVERY_CACHE_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {
    this.dir = path.join(cacheDir, 'discovery', discoveryDirName(server))
  }

  groupsFile(): string {
    return path.join(this.dir, 'servergroups.json')
  }

  resourcesFile(group: string, version: string): string {
    return group === '' ? path.join(this.dir, version, 'serverresources.json') : path.join(this.dir, group, version, 'serverresources.json')
  }

  /** The cached JSON of a file, when fresh and valid. */
  read(file: string): unknown {
    try {
      const stat = fs.statSync(file)
      if (this.now() - stat.mtimeMs > this.ttlMs) return undefined
      return JSON.parse(fs.readFileSync(file, 'utf8')) as unknown
    } catch {
      return undefined
    }
  }

  /** Stores a value (atomically: written aside, then renamed). */
  write(file: string, value: unknown): void {
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o750 })
      const tmp = `${file}.${process.pid}.tmp`
      fs.writeFileSync(tmp, JSON.stringify(value), { mode: 0o660 })
      fs.renameSync(tmp, file)
    } catch {
      // a cache that cannot be written is no cache
    }
  }

  /** Forgets everything about this server (kubectl's Invalidate). */
  invalidate(): void {
    try {
      fs.rmSync(this.dir, { recursive: true, force: true })
    } catch {
      // ignore
    }
  }
}
