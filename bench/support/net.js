// Helpers for benchmarks: a free loopback port, and waiting for an HTTPS endpoint.
import { request } from 'node:https'
import { createServer } from 'node:net'

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
}

/** Waits until `url` answers `status`; `headers` for a server that refuses anonymous requests. */
export async function waitFor(url, status, timeoutMs = 60_000, headers = {}) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const got = await new Promise((resolve) => {
      const req = request(url, { rejectUnauthorized: false, agent: false, headers }, (res) => {
        res.resume()
        resolve(res.statusCode)
      })
      req.on('error', () => resolve(0))
      req.end()
    })
    if (got === status) return
    if (Date.now() > deadline) throw new Error(`${url} did not answer ${status} in time`)
    await new Promise((r) => setTimeout(r, 100))
  }
}
