/**
 * Content negotiation as the reference does it: the Accept header picks JSON, YAML or the
 * Table form (`application/json;as=Table;v=v1;g=meta.k8s.io`); the request Content-Type
 * picks the decoder (a missing one is JSON, as kubectl's `PUT …/scale` relies on).
 */
import { jsYaml } from '../../core/util/yaml.js'
import type { Request, Response } from '../http/types.js'
import { errors } from './status-errors.js'

export type Output = { kind: 'json' } | { kind: 'yaml' } | { kind: 'table'; apiVersion: string }

export const SERVED_MEDIA_TYPES = ['application/json', 'application/yaml'] as const

interface MediaRange {
  type: string
  params: Record<string, string>
}

export function parseMediaRanges(header: string | undefined): MediaRange[] {
  if (!header || header.trim() === '') return []
  return header.split(',').map((part) => {
    const [type, ...params] = part.split(';').map((s) => s.trim())
    const p: Record<string, string> = {}
    for (const kv of params) {
      const eq = kv.indexOf('=')
      if (eq > 0) p[kv.slice(0, eq).trim().toLowerCase()] = kv.slice(eq + 1).trim().replace(/^"|"$/g, '')
    }
    return { type: (type ?? '').toLowerCase(), params: p }
  })
}

/** The first acceptable representation in the Accept header (406 when none). */
export function negotiateOutput(accept: string | undefined, options: { table: boolean; yaml?: boolean }): Output {
  const ranges = parseMediaRanges(accept)
  if (ranges.length === 0) return { kind: 'json' }
  for (const r of ranges) {
    const jsonish = r.type === 'application/json' || r.type === '*/*' || r.type === 'application/*'
    if (r.params.as !== undefined) {
      if (
        options.table &&
        jsonish &&
        r.params.as === 'Table' &&
        r.params.g === 'meta.k8s.io' &&
        (r.params.v === 'v1' || r.params.v === 'v1beta1')
      ) {
        return { kind: 'table', apiVersion: `meta.k8s.io/${r.params.v}` }
      }
      continue
    }
    if (jsonish) return { kind: 'json' }
    if (r.type === 'application/yaml' && options.yaml !== false) return { kind: 'yaml' }
  }
  throw errors.notAcceptable(options.yaml === false ? ['application/json'] : SERVED_MEDIA_TYPES)
}

export function writeObject(res: Response, status: number, body: unknown, output: Output): void {
  if (output.kind === 'yaml') {
    res.setHeader('Content-Type', 'application/yaml')
    res.statusCode = status
    res.end(jsYaml().dump(body, { lineWidth: -1, noRefs: true }))
    return
  }
  res.setHeader('Content-Type', 'application/json')
  res.statusCode = status
  res.end(`${JSON.stringify(body)}\n`)
}

export const MAX_BODY_BYTES = 3 * 1024 * 1024

export async function readBody(req: Request): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    size += buf.length
    if (size > MAX_BODY_BYTES) throw errors.badRequest('the request body is too large')
    chunks.push(buf)
  }
  return Buffer.concat(chunks)
}

function mediaType(req: Request): string {
  const ct = req.headers['content-type']
  return (typeof ct === 'string' ? ct.split(';')[0]! : '').trim().toLowerCase()
}

/** The request's Content-Type without parameters ('' when absent). */
export function requestMediaType(req: Request): string {
  return mediaType(req)
}

/** Decodes a JSON or YAML body into a value (415 for other types, 400 when malformed). */
export function decodeBody(req: Request, body: Buffer): unknown {
  const type = mediaType(req)
  const text = body.toString('utf8')
  if (type === '' || type === 'application/json') {
    try {
      return JSON.parse(text)
    } catch (err) {
      throw errors.badRequest(`couldn't get version/kind; json parse error: ${(err as Error).message}`)
    }
  }
  if (type === 'application/yaml') {
    try {
      return jsYaml().load(text)
    } catch (err) {
      throw errors.badRequest(`couldn't get version/kind; yaml parse error: ${(err as Error).message}`)
    }
  }
  throw errors.unsupportedMediaType(SERVED_MEDIA_TYPES)
}
