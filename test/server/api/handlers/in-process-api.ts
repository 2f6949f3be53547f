/**
 * The resource API served in this process over a fresh SQLite store, without the filter chain:
 * each request gets its context as the listener makes it and the given user, as if
 * authentication had run. For handler tests that need real requests but no server process.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { type IncomingHttpHeaders, createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { installApi } from '../../../../src/server/api/index.js'
import type { RegistryOptions } from '../../../../src/server/api/registry/options.js'
import { IncomingContext } from '../../../../src/server/http/context.js'
import { Mux } from '../../../../src/server/http/mux.js'
import { decodeRequestPath } from '../../../../src/server/http/request-info.js'
import type { RequestContext, UserInfo } from '../../../../src/server/http/types.js'
import { SqliteStore } from '../../../../src/server/store/sqlite-store.js'

export interface Reply {
  status: number
  headers: IncomingHttpHeaders
  body: Record<string, unknown>
  text: string
}

export interface InProcessApi {
  /** A JSON request as `user` (default: a member of system:masters). */
  call(method: string, path: string, body?: unknown, user?: UserInfo, contentType?: string): Promise<Reply>
  close(): Promise<void>
}

export const ADMIN: UserInfo = { name: 'admin', groups: ['system:masters', 'system:authenticated'] }

/** `observe` sees each request's context once it has been answered (what handlers left on it). */
export async function openInProcessApi(prefix: string, options: RegistryOptions = {}, observe?: (ctx: RequestContext) => void): Promise<InProcessApi> {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const store = SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0, healthcheckTimeoutMs: 2000, readycheckTimeoutMs: 2000 })
  const mux = new Mux()
  installApi(mux, { store: () => store, log: () => {}, options })
  const users = new Map<string, UserInfo>()
  const server = createServer((req, res) => {
    const target = req.url ?? '/'
    const ctx = new IncomingContext(req, target, decodeRequestPath(target))
    ctx.user = users.get(String(req.headers['x-test-user'])) ?? ADMIN
    res.once('finish', () => observe?.(ctx))
    void Promise.resolve(mux.serve(req, res, ctx)).catch((err: unknown) => {
      res.statusCode = 599
      res.end(String(err))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    call(method, path, body, user = ADMIN, contentType = 'application/json') {
      users.set(user.name, user)
      const payload = body === undefined ? undefined : JSON.stringify(body)
      return new Promise((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, path, method, agent: false, headers: { 'x-test-user': user.name, accept: 'application/json', ...(payload ? { 'content-type': contentType } : {}) } },
          (res) => {
            const chunks: Buffer[] = []
            res.on('data', (c: Buffer) => chunks.push(c))
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8')
              const json = text.startsWith('{') && !text.trimEnd().includes('\n')
              resolve({ status: res.statusCode ?? 0, headers: res.headers, body: json ? (JSON.parse(text) as Record<string, unknown>) : {}, text })
            })
          },
        )
        req.on('error', reject)
        req.end(payload)
      })
    },
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await store.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
