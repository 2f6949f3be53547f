/**
 * --debug-socket-path: a plain HTTP server on a unix socket serving the profiling handlers
 * with no authentication or authorisation, as the reference's debug socket does. Access is
 * whatever the socket file's permissions allow (connecting needs write permission on it,
 * so the usual umask leaves it to the server's user).
 *
 * A socket file left behind by an earlier run is removed first; one that a live server
 * still answers on, or a path that is not a socket, is refused instead of taken over.
 */
import { randomUUID } from 'node:crypto'
import { lstatSync, statSync, unlinkSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { connect } from 'node:net'
import { dirname } from 'node:path'
import { resolveRequestInfo } from '../http/request-info.js'
import { httpError } from '../http/respond.js'
import type { Handler, RequestContext } from '../http/types.js'

export interface DebugSocket {
  readonly path: string
  close(): Promise<void>
}

function errorCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code
}

/** Whether something accepts connections on the socket at `path`. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ path })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

async function prepare(path: string): Promise<void> {
  const dir = dirname(path)
  try {
    if (!statSync(dir).isDirectory()) throw new Error(`debug socket path ${path}: ${dir} is not a directory`)
  } catch (err) {
    if (errorCode(err) === 'ENOENT') throw new Error(`debug socket path ${path}: directory ${dir} does not exist`)
    throw err
  }
  let stat
  try {
    stat = lstatSync(path)
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return
    throw new Error(`debug socket path ${path}: ${(err as Error).message}`)
  }
  if (!stat.isSocket()) throw new Error(`debug socket path ${path}: exists and is not a socket; refusing to replace it`)
  if (await answers(path)) throw new Error(`debug socket path ${path}: another server is listening on it`)
  try {
    unlinkSync(path)
  } catch (err) {
    if (errorCode(err) !== 'ENOENT') throw new Error(`debug socket path ${path}: failed to remove stale socket: ${(err as Error).message}`)
  }
}

function contextFor(req: IncomingMessage): RequestContext {
  const url = new URL(req.url ?? '/', 'http://localhost')
  return {
    receivedAt: Date.now(),
    auditId: randomUUID(),
    url,
    info: resolveRequestInfo(req.method ?? 'GET', url),
  }
}

/** Listens on `path` and serves `handler` (a mux with the pprof handlers) until closed. */
export async function serveDebugSocket(path: string, handler: Handler): Promise<DebugSocket> {
  await prepare(path)
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let ctx: RequestContext
    try {
      ctx = contextFor(req)
    } catch {
      httpError(res, 400, 'Bad Request')
      return
    }
    Promise.resolve()
      .then(() => handler(req, res, ctx))
      .catch(() => {
        if (!res.headersSent) httpError(res, 500, 'Internal Server Error')
        else res.destroy()
      })
  })
  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(new Error(`debug socket path ${path}: listen: ${err.message}`))
    server.once('error', onError)
    server.listen({ path }, () => {
      server.off('error', onError)
      resolve()
    })
  })
  // Only this server's socket file is removed on close, not one that replaced it since.
  const ino = lstatSync(path, { throwIfNoEntry: false })?.ino
  let closing: Promise<void> | undefined
  return {
    path,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => {
          try {
            if (ino !== undefined && lstatSync(path).ino === ino) unlinkSync(path)
          } catch {
            // Already gone: Node removes the socket file itself when the server closes.
          }
          resolve()
        })
        server.closeAllConnections()
      })
      return closing
    },
  }
}
