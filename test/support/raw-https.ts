/** One HTTPS request to a test server with a binary body and answer (protobuf tests read bytes). */
import { request as httpsRequest } from 'node:https'
import type { ApiServer } from './api-server.js'

export interface RawReply {
  status: number
  contentType: string
  body: Buffer
}

export function rawHttps(server: ApiServer, path: string, headers: Record<string, string> = {}, method = 'GET', body?: Buffer | string): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    // Node frames a DELETE body only with an explicit Content-Length.
    const length = body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(body)) }
    const req = httpsRequest({ host: '127.0.0.1', port: server.port, path, method, headers: { ...length, ...headers }, rejectUnauthorized: false, agent: false, ...server.tlsClient() }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (d: Buffer) => chunks.push(d))
      res.on('end', () => resolve({ status: res.statusCode!, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}
