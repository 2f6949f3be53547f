/**
 * A raw HTTPS watch for end-to-end tests: collects the newline-delimited JSON events of a
 * `?watch=1` request until the server ends it or the test closes it.
 */
import type { ClientRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'

export interface JsonWatch<E> {
  events: E[]
  /** The response status, once the headers arrived. */
  status: Promise<number>
  /** Milliseconds from the start until the server ended the stream. */
  ended: Promise<number>
  close(): void
}

/** `tls`: the client certificate to present (ApiServer.tlsClient() for the administrator). */
export function openJsonWatch<E = { type: string; object: Record<string, unknown> }>(port: number, path: string, tls: { cert?: string; key?: string } = {}): JsonWatch<E> {
  const events: E[] = []
  const started = Date.now()
  let req: ClientRequest | undefined
  let onStatus: (code: number) => void = () => {}
  const status = new Promise<number>((resolve) => (onStatus = resolve))
  const ended = new Promise<number>((resolve, reject) => {
    req = httpsRequest({ host: '127.0.0.1', port, path, method: 'GET', rejectUnauthorized: false, agent: false, ...tls }, (res) => {
      onStatus(res.statusCode!)
      let buf = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => {
        buf += d
        let nl: number
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl).trim()
          buf = buf.slice(nl + 1)
          if (line) events.push(JSON.parse(line) as E)
        }
      })
      res.on('end', () => resolve(Date.now() - started))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
  ended.catch(() => {})
  return { events, status, ended, close: () => req?.destroy() }
}
