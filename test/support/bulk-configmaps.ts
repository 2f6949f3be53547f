/**
 * Creates many ConfigMaps `<prefix>-<0000>` in `default` over one HTTP/2 connection, a few at
 * a time, retrying a 429 (the server's overload answer) and failing on any other non-201.
 * HTTP/2, not HTTP/1.1: the load tests want one connection carrying many large bodies.
 */
import { connect as http2Connect } from 'node:http2'
import type { ApiServer } from './api-server.js'

const PATH = '/api/v1/namespaces/default/configmaps'

export interface BulkConfigMaps {
  prefix: string
  count: number
  /** Size of each ConfigMap's one data value. */
  bytes: number
  labels?: (i: number) => Record<string, string>
  /** Requests in flight at once (default 8). */
  concurrency?: number
}

export async function createConfigMaps(server: ApiServer, options: BulkConfigMaps): Promise<void> {
  const { prefix, count, labels = () => ({}), concurrency = 8 } = options
  const session = http2Connect(`https://127.0.0.1:${server.port}`, { rejectUnauthorized: false, ...server.tlsClient() })
  const filler = 'x'.repeat(options.bytes)
  let next = 0
  const post = (i: number, name: string) =>
    new Promise<number>((resolve, reject) => {
      const stream = session.request({ ':method': 'POST', ':path': PATH, 'content-type': 'application/json' })
      let status = 0
      stream.on('response', (h) => (status = Number(h[':status'])))
      stream.resume()
      stream.on('end', () => resolve(status))
      stream.on('error', (err) => reject(new Error(`creating ${name}: ${err.message}`)))
      stream.end(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: labels(i) }, data: { filler } }))
    })
  const worker = async () => {
    while (next < count) {
      const i = next++
      const name = `${prefix}-${String(i).padStart(4, '0')}`
      for (;;) {
        const status = await post(i, name)
        if (status === 201) break
        if (status !== 429) throw new Error(`creating ${name}: ${status}`)
        await new Promise((r) => setTimeout(r, 50))
      }
    }
  }
  try {
    await Promise.all(Array.from({ length: concurrency }, worker))
  } finally {
    session.close()
  }
}
