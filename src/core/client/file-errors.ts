/**
 * Reading the files a client configuration names (kubeconfigs, certificates, keys, token
 * files), with Go's os error texts (`open /x: no such file or directory`), which kubectl
 * shows inside its own messages.
 */
import fs from 'node:fs'

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
}

/** Go's *PathError text for a failed file operation: `<op> <path>: <reason>`. */
export function goPathErrorText(err: unknown, path: string, op = 'open'): string {
  const e = err as NodeJS.ErrnoException
  const reason = (e.code && ERRNO_TEXT[e.code]) ?? e.message
  const syscall = e.syscall === 'read' || e.syscall === 'stat' || e.syscall === 'open' ? e.syscall : op
  return `${syscall} ${path}: ${reason}`
}

export function isNotExist(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT'
}

/** A file's bytes; failures are rethrown as Errors carrying Go's text (and the errno code). */
export function readFileGo(path: string): Buffer {
  try {
    return fs.readFileSync(path)
  } catch (err) {
    const wrapped = new Error(goPathErrorText(err, path), { cause: err }) as NodeJS.ErrnoException
    wrapped.code = (err as NodeJS.ErrnoException).code
    throw wrapped
  }
}
