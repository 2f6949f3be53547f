/**
 * Content negotiation as the reference does it (apiserver endpoints/handlers/negotiation over
 * goautoneg): the Accept clauses sorted by quality and specificity, q=0 rejecting a media type,
 * the serializers JSON, YAML and protobuf in that order, the Table form
 * (`…;as=Table;v=v1;g=meta.k8s.io`, JSON or YAML only) on resource endpoints, and custom
 * resources without protobuf unless the object is transformed. The request Content-Type picks
 * the decoder (a missing one is JSON, as kubectl's `PUT …/scale` relies on).
 */
import { noteRequestObject, noteResponseObject } from '../http/audit-objects.js'
import { PROTOBUF_MEDIA_TYPE, type ProtobufCodec, ProtobufError, isProtobufEnvelope, loadProtobufCodec } from '../../core/protobuf/index.js'
import { EXCEEDED_MAX_DEPTH, jsonTextTooDeep, valueTooDeep } from '../../core/util/nesting.js'
import { YamlAliasingError, jsYaml, loadYaml } from '../../core/util/yaml.js'
import type { Request, Response } from '../http/types.js'
import { type ApiError, errors } from './status-errors.js'

export type Format = 'json' | 'yaml' | 'protobuf'

/**
 * What to answer with. `kind` is the first choice; `formats` are the acceptable encodings in
 * preference order, so an object the protobuf codec has no type for falls through to the next
 * one (the reference's NegotiateOutputMediaTypes).
 */
export type Output =
  | { kind: 'json' | 'yaml' | 'protobuf'; formats?: readonly Format[] }
  | { kind: 'table'; apiVersion: string; format?: 'json' | 'yaml' }
  /** Metadata only (`as=PartialObjectMetadata[List];g=meta.k8s.io`), as metadata informers ask. */
  | { kind: 'partial'; apiVersion: string; list: boolean; formats: readonly Format[] }

/** The reference's serializers in their order (runtime CodecFactory: JSON, YAML, protobuf). */
export const SERVED_MEDIA_TYPES = ['application/json', 'application/yaml', PROTOBUF_MEDIA_TYPE] as const
/** The serializers with a stream form, as the 406 of a watch names them. */
export const STREAM_MEDIA_TYPES = ['application/json;stream=watch', `${PROTOBUF_MEDIA_TYPE};stream=watch`] as const

const FORMAT_OF: Readonly<Record<string, Format>> = {
  'application/json': 'json',
  'application/yaml': 'yaml',
  [PROTOBUF_MEDIA_TYPE]: 'protobuf',
}

export interface MediaRange {
  type: string
  subtype: string
  q: number
  params: Record<string, string>
}

/**
 * The Accept header's clauses as goautoneg parses them: malformed ranges dropped, `q` taken
 * out of the parameters, then ordered by its comparison (higher q first, then a concrete type
 * before `*`, a concrete subtype before `*`). Go's sort of such short slices is an insertion
 * sort, so equal clauses keep the header's order; this does the same.
 */
export function parseAccept(header: string | undefined): MediaRange[] {
  const out: MediaRange[] = []
  for (const raw of (header ?? '').split(',')) {
    const [range = '', ...params] = raw.trim().split(';')
    const sp = range.split('/')
    const type = sp[0]!.trim().toLowerCase()
    let subtype: string
    if (sp.length === 1 && type === '*') subtype = '*'
    else if (sp.length === 2) subtype = sp[1]!.trim().toLowerCase()
    else continue
    const clause: MediaRange = { type, subtype, q: 1, params: {} }
    for (const p of params) {
      const eq = p.indexOf('=')
      if (eq < 0) continue
      const key = p.slice(0, eq).trim()
      const value = p.slice(eq + 1).trim()
      if (key === 'q') {
        const q = Number.parseFloat(value)
        clause.q = Number.isNaN(q) ? 0 : q
      } else clause.params[key] = value
    }
    out.push(clause)
  }
  const less = (a: MediaRange, b: MediaRange) => a.q > b.q || (a.type !== '*' && b.type === '*') || (a.subtype !== '*' && b.subtype === '*')
  for (let i = 1; i < out.length; i++) {
    for (let j = i; j > 0 && less(out[j]!, out[j - 1]!); j--) [out[j], out[j - 1]] = [out[j - 1]!, out[j]!]
  }
  return out
}

/** The clauses in preference order with the whole media type (`application/json`), for simple Accept checks. */
export function parseMediaRanges(header: string | undefined): { type: string; params: Record<string, string> }[] {
  return parseAccept(header).map((c) => ({ type: `${c.type}/${c.subtype}`, params: c.params }))
}

/** 2 exact, 1 `type/*`, 0 `*\/*`, -1 no match. */
function specificity(clause: MediaRange, mediaType: string): number {
  const [type, subtype] = mediaType.split('/') as [string, string]
  if (clause.type === type && clause.subtype === subtype) return 2
  if (clause.type === type && clause.subtype === '*') return 1
  if (clause.type === '*' && clause.subtype === '*') return 0
  return -1
}

/** What an endpoint allows beyond the plain serializers (the reference's EndpointRestrictions). */
export interface Restrictions {
  /** Resource endpoints: Table conversion (JSON and YAML only) and `sv=v1`. */
  table?: boolean
  resource?: boolean
  /** Custom resources: protobuf only for transformed objects (their StandardSerializers). */
  customResource?: boolean
}

interface Match {
  mediaType: string
  table?: string
  partial?: { apiVersion: string; list: boolean }
}

/** The clause's parameters checked against the endpoint (acceptMediaTypeOptions). */
function accepts(clause: MediaRange, mediaType: string, r: Restrictions): Match | undefined {
  let convert: { kind?: string; group?: string; version?: string } | undefined
  for (const [k, v] of Object.entries(clause.params)) {
    if (k === 'as') (convert ??= {}).kind = v
    else if (k === 'g') (convert ??= {}).group = v
    else if (k === 'v') (convert ??= {}).version = v
    else if (k === 'stream') {
      if (v !== '' && (mediaType === 'application/yaml' || v !== 'watch')) return undefined
    } else if (k === 'sv') {
      if (v !== '' && !(r.resource && v === 'v1')) return undefined
    }
  }
  if (!convert) {
    if (r.customResource && mediaType === PROTOBUF_MEDIA_TYPE) return undefined
    return { mediaType }
  }
  // Only Table and PartialObjectMetadata(List) of meta.k8s.io v1 or v1beta1; the metadata
  // forms in every serializer, on every resource endpoint (AllowsMediaTypeTransform).
  const isMeta = convert.group === 'meta.k8s.io' && (convert.version === 'v1' || convert.version === 'v1beta1')
  if (isMeta && convert.kind === 'Table' && r.table && mediaType !== PROTOBUF_MEDIA_TYPE) {
    return { mediaType, table: `meta.k8s.io/${convert.version!}` }
  }
  if (isMeta && r.resource && (convert.kind === 'PartialObjectMetadata' || convert.kind === 'PartialObjectMetadataList')) {
    return { mediaType, partial: { apiVersion: `meta.k8s.io/${convert.version!}`, list: convert.kind === 'PartialObjectMetadataList' } }
  }
  return undefined
}

/** Every acceptable media type in preference order, each once (negotiateAllMediaTypeOptions). */
export function negotiateAll(header: string | undefined, r: Restrictions = {}, served: readonly string[] = SERVED_MEDIA_TYPES): Match[] {
  if (!header) return [{ mediaType: served[0]! }]
  const clauses = parseAccept(header)
  // A media type is rejected when its most specific clause says q=0 (RFC 9110 12.5.1).
  const rejected = new Set<string>()
  for (const mediaType of served) {
    let best = -1
    for (const c of clauses) {
      const s = specificity(c, mediaType)
      if (s > best) {
        best = s
        if (c.q <= 0) rejected.add(mediaType)
        else rejected.delete(mediaType)
      }
    }
  }
  const out: Match[] = []
  const seen = new Set<string>()
  for (const c of clauses) {
    if (c.q <= 0) continue
    for (const mediaType of served) {
      if (rejected.has(mediaType) || seen.has(mediaType) || specificity(c, mediaType) < 0) continue
      const m = accepts(c, mediaType, r)
      if (!m) continue
      seen.add(mediaType)
      out.push(m)
    }
  }
  return out
}

function toOutput(matches: Match[]): Output {
  const first = matches[0]!
  if (first.table) return { kind: 'table', apiVersion: first.table, format: FORMAT_OF[first.mediaType] === 'yaml' ? 'yaml' : 'json' }
  if (first.partial) return { kind: 'partial', ...first.partial, formats: [FORMAT_OF[first.mediaType]!, 'json'] }
  const formats = matches.filter((m) => !m.table && !m.partial).map((m) => FORMAT_OF[m.mediaType]!)
  return { kind: FORMAT_OF[first.mediaType] as Format, formats }
}

/**
 * The representation of a resource endpoint's answer (406 NotAcceptable when none). `yaml:
 * false` is the old spelling of a watch: use negotiateWatchOutput.
 */
export function negotiateOutput(accept: string | undefined, options: { table: boolean; yaml?: boolean; customResource?: boolean }): Output {
  if (options.yaml === false) return negotiateWatchOutput(accept, options)
  // Clients send the same few Accept headers again and again: the answer is kept per header (frozen, shared).
  const memo = OUTPUT_MEMO[(options.table ? 1 : 0) + (options.customResource ? 2 : 0)]!
  const key = accept ?? ''
  const known = memo.get(key)
  if (known) return known
  const matches = negotiateAll(accept, { table: options.table, resource: true, customResource: options.customResource ?? false })
  if (matches.length === 0) throw errors.notAcceptable(SERVED_MEDIA_TYPES)
  const output = toOutput(matches)
  if (key.length <= OUTPUT_MEMO_MAX_HEADER) {
    if (memo.size >= OUTPUT_MEMO_ENTRIES) memo.clear()
    memo.set(key, deepFreeze(output))
  }
  return output
}

/** negotiateOutput's answers by Accept header, one map per (table, customResource); bounded, emptied when full. */
const OUTPUT_MEMO: Map<string, Output>[] = [new Map(), new Map(), new Map(), new Map()]
const OUTPUT_MEMO_ENTRIES = 64
const OUTPUT_MEMO_MAX_HEADER = 512

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}

/**
 * A watch: the first acceptable media type must have a stream form (JSON or protobuf), else
 * 406 naming the stream media types, as NegotiateOutputMediaTypeStream answers.
 */
export function negotiateWatchOutput(accept: string | undefined, options: { table: boolean; customResource?: boolean }): Output {
  const matches = negotiateAll(accept, { table: options.table, resource: true, customResource: options.customResource ?? false })
  if (matches.length === 0) throw errors.notAcceptable(SERVED_MEDIA_TYPES)
  if (matches[0]!.mediaType === 'application/yaml') throw errors.notAcceptable(STREAM_MEDIA_TYPES)
  return toOutput(matches)
}

/** Non-resource answers (discovery) and errors: no conversion, every serializer. */
export function negotiateDefault(accept: string | undefined): Output | undefined {
  const matches = negotiateAll(accept, {})
  return matches.length === 0 ? undefined : toOutput(matches)
}

let codecLoading: Promise<ProtobufCodec> | undefined
let codecLoaded: ProtobufCodec | undefined

/** The protobuf codec, loaded on first use only (a JSON-only server never reads the descriptor). */
export function protobufCodec(): Promise<ProtobufCodec> {
  codecLoading ??= loadProtobufCodec().then(
    (c) => (codecLoaded = c),
    (err: unknown) => {
      // A failed load is tried again by the next request rather than remembered.
      codecLoading = undefined
      throw err
    },
  )
  return codecLoading
}

/** The codec when it is loaded already. */
export function loadedProtobufCodec(): ProtobufCodec | undefined {
  return codecLoaded
}

function formatsOf(output: Output): Format[] {
  if (output.kind === 'table') return [output.format ?? 'json']
  if (output.kind === 'partial') return [...output.formats]
  return [...(output.formats ?? [output.kind])]
}

/**
 * The type to encode `body` as. Discovery documents (APIVersions) carry no apiVersion in JSON,
 * as the reference strips it; they are the unversioned meta types of `v1`.
 */
function typeOf(body: unknown): { apiVersion: string; kind: string } | undefined {
  const o = body as { apiVersion?: unknown; kind?: unknown } | null
  if (typeof o?.kind !== 'string') return undefined
  return { apiVersion: typeof o.apiVersion === 'string' ? o.apiVersion : 'v1', kind: o.kind }
}

/**
 * Sends the answer. The body goes as bytes: Node writes a string body in one piece with the
 * headers, in the body's encoding (UTF-8), which would encode a second time the Latin-1
 * characters that carry a Warning header's UTF-8 bytes (see http/warnings.ts).
 */
export function send(res: Response, status: number, contentType: string, body: string | Buffer): void {
  res.setHeader('Content-Type', contentType)
  res.statusCode = status
  res.end(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)
}

/** The object's metadata alone, as the reference's transformObject gives it (406 when list and form disagree). */
export function partialObjectMetadata(obj: unknown, apiVersion: string): Record<string, unknown> {
  const metadata = (obj as { metadata?: unknown } | null)?.metadata
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: metadata ?? {} }
}

/** 406 when the metadata form asked for (list or single) is not the answer's (`type`, its kind). */
export function checkPartialForm(output: { list: boolean }, isList: boolean, type: string): void {
  if (output.list && !isList) {
    throw errors.notAcceptableMessage(`you requested PartialObjectMetadataList, but the requested object is not a list (${type})`)
  }
  if (!output.list && isList) throw errors.notAcceptableMessage(`you requested PartialObjectMetadata, but the requested object is a list (${type})`)
}

function asPartialObjectMetadata(body: unknown, output: { apiVersion: string; list: boolean }): unknown {
  const o = body as { kind?: unknown; items?: unknown; metadata?: unknown } | null
  const isList = Array.isArray(o?.items)
  const type = typeof o?.kind === 'string' ? o.kind : 'unknown'
  checkPartialForm(output, isList, type)
  if (!output.list) return partialObjectMetadata(body, output.apiVersion)
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: output.apiVersion,
    metadata: o?.metadata ?? {},
    items: (o!.items as unknown[]).map((item) => partialObjectMetadata(item, output.apiVersion)),
  }
}

/** Writes `body` in the first of the output's formats that can encode it (JSON at the end). */
export async function writeObject(res: Response, status: number, body: unknown, output: Output): Promise<void> {
  if (output.kind === 'partial') body = asPartialObjectMetadata(body, output)
  noteResponseObject(res, body)
  for (const format of formatsOf(output)) {
    if (format === 'protobuf') {
      const type = typeOf(body)
      if (!type) continue
      const codec = await protobufCodec()
      if (!codec.hasType(type.apiVersion, type.kind)) continue
      let encoded: Buffer
      try {
        encoded = codec.encode({ ...(body as Record<string, unknown>), apiVersion: type.apiVersion })
      } catch (err) {
        // An object protobuf cannot represent (a value of the wrong type stored as JSON): the next choice.
        if (err instanceof ProtobufError) continue
        throw err
      }
      send(res, status, PROTOBUF_MEDIA_TYPE, encoded)
      return
    }
    if (format === 'yaml') {
      send(res, status, 'application/yaml', jsYaml().dump(body, { lineWidth: -1, noRefs: true }))
      return
    }
    break
  }
  send(res, status, 'application/json', `${JSON.stringify(body)}\n`)
}

/**
 * Writes an error's Status in the negotiated type, as the reference's ErrorNegotiated: any
 * serializer (custom resources included), JSON when nothing is acceptable.
 */
export async function writeErrorNegotiated(req: Request, res: Response, err: ApiError): Promise<void> {
  if (res.headersSent) {
    if (!res.writableEnded) res.end()
    return
  }
  for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v)
  let output: Output = { kind: 'json' }
  try {
    output = negotiateDefault(req.headers.accept) ?? output
    await writeObject(res, err.status.code, err.status, output)
  } catch {
    if (!res.headersSent) send(res, err.status.code, 'application/json', `${JSON.stringify(err.status)}\n`)
  }
}

/** The reference's MaxRequestBodyBytes default: 3 MiB. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024
/** How much of a body over the limit is read (and dropped) before the exchange is cut instead. */
export const DRAIN_LIMIT_BYTES = 4 * MAX_BODY_BYTES

const BODY = Symbol('body')
const REFUSED = Symbol('bodyRefused')

function bodyTooLarge(): ApiError {
  return errors.requestEntityTooLarge(`limit is ${MAX_BODY_BYTES}`)
}

/** The request body if a handler read it (the audit event records it); undefined otherwise. */
export function bodyIfRead(req: Request): Buffer | undefined {
  return (req as { [BODY]?: Buffer })[BODY]
}

/**
 * The request body (read once; later calls get the same bytes), at most MAX_BODY_BYTES as the
 * reference's limitedReadBody: more is 413 RequestEntityTooLarge. Past the limit nothing more
 * is kept: the rest of the body is read and dropped until it ends, so that a client still
 * sending gets the 413 instead of a broken pipe, and the connection stays usable. A body that
 * goes on past DRAIN_LIMIT_BYTES (or declares that much) is not read any further: the answer
 * then ends the connection (HTTP/1.1) or resets the stream (HTTP/2), see bodyRefused.
 */
export async function readBody(req: Request): Promise<Buffer> {
  const cached = (req as { [BODY]?: Buffer })[BODY]
  if (cached) return cached
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > DRAIN_LIMIT_BYTES) {
    ;(req as { [REFUSED]?: boolean })[REFUSED] = true
    req.pause()
    throw bodyTooLarge()
  }
  const body = await new Promise<Buffer>((resolve, reject) => {
    let chunks: Buffer[] = []
    let size = 0
    let tooLarge = false
    const cleanup = () => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
      req.off('aborted', onAborted)
    }
    const onData = (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      size += buf.length
      if (size > DRAIN_LIMIT_BYTES) {
        cleanup()
        req.pause()
        ;(req as { [REFUSED]?: boolean })[REFUSED] = true
        reject(bodyTooLarge())
        return
      }
      if (size > MAX_BODY_BYTES) {
        tooLarge = true
        chunks = []
      }
      if (!tooLarge) chunks.push(buf)
    }
    const onEnd = () => {
      cleanup()
      if (tooLarge) reject(bodyTooLarge())
      else resolve(Buffer.concat(chunks))
    }
    const onError = (err: Error) => {
      cleanup()
      reject(err)
    }
    const onAborted = () => onError(new Error('the client closed the request before sending its body'))
    req.on('data', onData)
    req.once('end', onEnd)
    req.once('error', onError)
    req.once('aborted', onAborted)
    if ((req as { readableEnded?: boolean }).readableEnded) onEnd()
  })
  ;(req as { [BODY]?: Buffer })[BODY] = body
  return body
}

/** Whether the request's body was refused unread (then its connection or stream must not be reused). */
export function bodyRefused(req: Request): boolean {
  return (req as { [REFUSED]?: boolean })[REFUSED] === true
}

function mediaType(req: Request): string {
  const ct = req.headers['content-type']
  return (typeof ct === 'string' ? ct.split(';')[0]! : '').trim().toLowerCase()
}

/** The request's Content-Type without parameters ('' when absent). */
export function requestMediaType(req: Request): string {
  return mediaType(req)
}

/**
 * Decodes a JSON or YAML body into a value (415 for other types, 400 when malformed, nested
 * too deep, or aliased excessively). `kind` is the endpoint's kind, for the reference's text of
 * a YAML document its decoder refuses.
 */
export function decodeBody(req: Request, body: Buffer, kind?: string): unknown {
  const type = mediaType(req)
  const text = body.toString('utf8')
  if (type === '' || type === 'application/json') {
    if (jsonTextTooDeep(text)) throw errors.badRequest(`couldn't get version/kind; json parse error: ${EXCEEDED_MAX_DEPTH}`)
    try {
      return JSON.parse(text)
    } catch (err) {
      throw errors.badRequest(`couldn't get version/kind; json parse error: ${(err as Error).message}`)
    }
  }
  if (type === 'application/yaml') {
    try {
      return loadYaml(text)
    } catch (err) {
      if (err instanceof YamlAliasingError && kind !== undefined) {
        throw errors.badRequest(`the object provided is unrecognized (must be of type ${kind}): error converting YAML to JSON: ${err.message} (${summarizeData(body)})`)
      }
      throw errors.badRequest(`couldn't get version/kind; yaml parse error: ${(err as Error).message}`)
    }
  }
  throw errors.unsupportedMediaType(SERVED_MEDIA_TYPES)
}

/** The reference's summary of a body it could not decode (handlers summarizeData). */
export function summarizeData(data: Buffer, maxLength = 30): string {
  if (data.length === 0) return '<empty>'
  if (data[0] === 0x7b) return data.length > maxLength ? `${data.subarray(0, maxLength).toString('latin1')} ...` : data.toString('latin1')
  return data.length > maxLength ? `${data.subarray(0, maxLength).toString('hex')} ...` : data.toString('hex')
}

const PROTOBUF_PREFIX_TEXT = 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]'

/** The TypeMeta (apiVersion, kind) of a runtime.Unknown envelope, read without a descriptor. */
export function envelopeTypeMeta(data: Buffer): { apiVersion: string; kind: string } {
  const fields = (buf: Buffer): Map<number, Buffer> => {
    const out = new Map<number, Buffer>()
    let i = 0
    const varint = (): number => {
      let n = 0
      let shift = 0
      for (;;) {
        if (i >= buf.length) throw new Error('truncated')
        const b = buf[i++]!
        n += (b & 0x7f) * 2 ** shift
        if (b < 0x80) return n
        shift += 7
      }
    }
    while (i < buf.length) {
      const tag = varint()
      const wire = tag & 7
      if (wire === 2) {
        const len = varint()
        if (!out.has(tag >>> 3)) out.set(tag >>> 3, buf.subarray(i, i + len))
        i += len
      } else if (wire === 0) varint()
      else if (wire === 1) i += 8
      else if (wire === 5) i += 4
      else throw new Error('bad wire type')
    }
    return out
  }
  try {
    const typeMeta = fields(data.subarray(4)).get(1)
    const tm = typeMeta ? fields(typeMeta) : new Map<number, Buffer>()
    return { apiVersion: tm.get(1)?.toString('utf8') ?? '', kind: tm.get(2)?.toString('utf8') ?? '' }
  } catch {
    return { apiVersion: '', kind: '' }
  }
}

/**
 * Decodes a request body by its Content-Type: JSON, YAML, or protobuf for built-in kinds.
 * `kind` is the endpoint's kind for the reference's decode errors; custom resources have no
 * protobuf form, so an envelope sent to one is the reference's 400 for unstructured objects.
 */
export async function decodeRequestBody(req: Request, body: Buffer, endpoint: { kind: string; customResource?: boolean }): Promise<unknown> {
  const decoded = await decodeRequestBodyOf(req, body, endpoint)
  noteRequestObject(req, decoded)
  return decoded
}

async function decodeRequestBodyOf(req: Request, body: Buffer, endpoint: { kind: string; customResource?: boolean }): Promise<unknown> {
  if (mediaType(req) !== PROTOBUF_MEDIA_TYPE) return decodeBody(req, body, endpoint.kind)
  if (!isProtobufEnvelope(body)) {
    throw errors.badRequest(`the object provided is unrecognized (must be of type ${endpoint.kind}): ${PROTOBUF_PREFIX_TEXT} (${summarizeData(body)})`)
  }
  if (endpoint.customResource) {
    const tm = envelopeTypeMeta(body)
    const kind = tm.kind || endpoint.kind
    const version = tm.apiVersion.split('/').pop() ?? ''
    throw errors.badRequest(
      `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${endpoint.kind}: object *unstructured.Unstructured does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message`,
    )
  }
  const codec = await protobufCodec()
  let decoded: unknown
  try {
    decoded = codec.decode(body)
  } catch (err) {
    // A message nested past the decoder's stack is as malformed as a truncated one.
    const message = err instanceof RangeError ? EXCEEDED_MAX_DEPTH : (err as Error).message
    throw errors.badRequest(`the object provided is unrecognized (must be of type ${endpoint.kind}): ${message} (${summarizeData(body)})`)
  }
  if (valueTooDeep(decoded)) {
    throw errors.badRequest(`the object provided is unrecognized (must be of type ${endpoint.kind}): ${EXCEEDED_MAX_DEPTH} (${summarizeData(body)})`)
  }
  return decoded
}
