/**
 * A list answered while it is read, in every format (JSON, YAML, protobuf; `<Kind>List`,
 * PartialObjectMetadataList or Table): the bytes before the items, then the items in slices,
 * each written when the client has taken the previous ones, then the bytes after them. The
 * bytes are those of the whole list's encoding (list-encodings.ts), but the server never holds
 * more than a page of objects and a slice of bytes per list, and the event loop gets a turn
 * between slices, so that many large lists at once neither exhaust memory nor delay new
 * connections and probes.
 */
import { ProtobufError } from '../../../core/protobuf/index.js'
import type { Response } from '../../http/types.js'
import { isHttp2 } from '../../http/respond.js'
import type { ListStream } from '../registry/generic-store.js'
import { LIST_DECODE_SLICE, yieldToEventLoop } from '../registry/generic-store.js'
import { type Format, protobufCodec } from '../negotiation.js'
import { type BinaryListPieces, type ListEnvelope, type TextListPieces, jsonListPieces, protobufListPieces, yamlListPieces } from './list-encodings.js'

/** Bytes written at a time: large enough for few writes, small enough for a short turn. */
const SLICE_BYTES = 64 * 1024
/**
 * A protobuf list's items' bytes kept from the pass that sizes them (the envelope states the
 * size before the items): a list up to this is encoded once, a larger one is read and encoded
 * a second time as it is written, so that memory stays bounded.
 */
export const PROTOBUF_KEPT_BYTES = 1024 * 1024

/** Whether the answer was ended or its connection or stream is gone. */
export function responseGone(res: Response): boolean {
  return res.writableEnded || (isHttp2(res) ? res.stream.destroyed : res.destroyed)
}

/**
 * Writes `chunk`; resolves once the response can take more (true) or is gone (false). An
 * HTTP/2 compatibility response has no `writableNeedDrain`: write()'s answer is the signal.
 */
export function writeAndWait(res: Response, chunk: string | Buffer): Promise<boolean> {
  const more = (res as { write(chunk: string | Buffer): boolean }).write(chunk)
  if (responseGone(res)) return Promise.resolve(false)
  if (more) return Promise.resolve(true)
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      res.off('drain', onDrain)
      res.off('close', onClose)
      resolve(ok)
    }
    const onDrain = () => done(true)
    const onClose = () => done(false)
    res.on('drain', onDrain)
    res.on('close', onClose)
  })
}

/** Cuts the answer off mid-body: the client sees a broken stream, never a short list. */
function abort(res: Response): void {
  if (isHttp2(res)) res.stream.close(2 /* INTERNAL_ERROR */)
  else res.destroy()
}

/** A list's items, read a slice at a time; `open` again reads them again, at the same revision. */
export interface ListSource {
  open(): Promise<AsyncGenerator<unknown[]>>
  /**
   * The same items for a protobuf writer, where an item may be its finished list item field
   * (a Buffer, from the stored bytes) instead of the object; absent: `open`.
   */
  openProtobuf?(): Promise<AsyncGenerator<unknown[]>>
}

/** Items already in memory (a page asked with `limit`), in slices. */
export function sourceOfItems(items: readonly unknown[]): ListSource {
  return {
    open: async () =>
      (async function* slices() {
        for (let i = 0; i < items.length; i += LIST_DECODE_SLICE) yield items.slice(i, i + LIST_DECODE_SLICE)
      })(),
  }
}

/**
 * A list read from the store page by page (GenericStore.streamList). Reading it again reads the
 * first one's revision exactly (`reread`), so both reads hold the same items.
 */
export function sourceOfStream(stream: ListStream, reread: (resourceVersion: string) => Promise<ListStream>): ListSource {
  let first: ListStream | undefined = stream
  const take = async () => {
    const next = first ?? (await reread(stream.resourceVersion))
    first = undefined
    return next
  }
  return {
    open: async () => (await take()).pages,
    openProtobuf: async () => (await take()).protobufPages(),
  }
}

/** The source's items transformed one by one (metadata only, Table rows). */
export function mapSource(source: ListSource, transform: (item: unknown) => unknown): ListSource {
  return {
    open: async () => {
      const inner = await source.open()
      return (async function* mapped() {
        try {
          for await (const slice of inner) yield slice.map(transform)
        } finally {
          await inner.return(undefined)
        }
      })()
    },
  }
}

/** Every item of the source in memory (a Table whose rows the kind orders: a small collection). */
export async function collect(source: ListSource): Promise<unknown[]> {
  const items: unknown[] = []
  for await (const slice of await source.open()) items.push(...slice)
  return items
}

/** Gathers pieces and writes them in slices of about SLICE_BYTES, waiting for the client. */
class SliceWriter {
  private parts: Buffer[] = []
  private size = 0

  constructor(
    private readonly res: Response,
    private readonly contentType: string,
  ) {}

  /** Whether bytes went out (from then on an error can only cut the answer off). */
  get started(): boolean {
    return this.res.headersSent
  }

  /**
   * Adds a piece; resolves false when the client is gone. Strings go as UTF-8 bytes: a string
   * first write would be encoded along with the headers, breaking a Warning header's bytes.
   */
  async push(piece: string | Buffer): Promise<boolean> {
    const buf = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece
    this.parts.push(buf)
    this.size += buf.length
    if (this.size < SLICE_BYTES) return true
    return this.flush()
  }

  private flush(): Promise<boolean> {
    if (!this.res.headersSent) {
      this.res.setHeader('Content-Type', this.contentType)
      this.res.statusCode = 200
    }
    const chunk = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts)
    this.parts = []
    this.size = 0
    return writeAndWait(this.res, chunk)
  }

  end(): void {
    if (!this.res.headersSent) {
      this.res.setHeader('Content-Type', this.contentType)
      this.res.statusCode = 200
    }
    this.res.end(this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts))
  }
}

/**
 * Runs `write`; an error before any byte went out is thrown (the caller answers it as a
 * Status), one after is the answer cut off, then thrown for the log.
 */
async function guarded(res: Response, writer: SliceWriter, write: () => Promise<void>): Promise<void> {
  try {
    await write()
  } catch (err) {
    if (writer.started) abort(res)
    throw err
  }
}

async function writeText(res: Response, pieces: TextListPieces, source: ListSource): Promise<void> {
  const writer = new SliceWriter(res, pieces.contentType)
  const slices = await source.open()
  await guarded(res, writer, async () => {
    try {
      if (!(await writer.push(pieces.head))) return
      let count = 0
      for await (const slice of slices) {
        for (const item of slice) {
          if (!(await writer.push(pieces.item(item, count++)))) return
        }
        await yieldToEventLoop()
        if (responseGone(res)) return
      }
      await writer.push(pieces.tail(count))
      writer.end()
    } finally {
      // Stops reading the store when the client went away or the answer was cut off.
      await slices.return(undefined)
    }
  })
}

/**
 * Protobuf states the items' size before them: a first pass encodes the items to size them
 * (and finds any the codec cannot encode before a byte is written), a second one, on a large
 * list, encodes them again while writing.
 */
async function writeProtobuf(res: Response, pieces: BinaryListPieces, source: ListSource): Promise<void> {
  let total = 0
  let kept: Buffer[] | undefined = []
  const open = () => (source.openProtobuf ? source.openProtobuf() : source.open())
  const sizing = await open()
  try {
    for await (const slice of sizing) {
      for (const item of slice) {
        const bytes = pieces.item(item as Record<string, unknown> | Buffer)
        total += bytes.length
        if (kept && total <= PROTOBUF_KEPT_BYTES) kept.push(bytes)
        else kept = undefined
      }
      await yieldToEventLoop()
      if (responseGone(res)) return
    }
  } finally {
    await sizing.return(undefined)
  }
  const writer = new SliceWriter(res, pieces.contentType)
  if (kept) {
    const items = kept
    kept = undefined
    await guarded(res, writer, async () => {
      if (!(await writer.push(pieces.head(total)))) return
      for (const bytes of items) if (!(await writer.push(bytes))) return
      await writer.push(pieces.tail)
      writer.end()
    })
    return
  }
  const slices = await open()
  await guarded(res, writer, async () => {
    try {
      if (!(await writer.push(pieces.head(total)))) return
      let written = 0
      for await (const slice of slices) {
        for (const item of slice) {
          const bytes = pieces.item(item as Record<string, unknown> | Buffer)
          written += bytes.length
          // The same revision holds the same items: a difference is a fault, never a wrong message.
          if (written > total) throw new Error(`the list changed between its two reads: more than the ${total} bytes announced`)
          if (!(await writer.push(bytes))) return
        }
        await yieldToEventLoop()
        if (responseGone(res)) return
      }
      if (written !== total) throw new Error(`the list changed between its two reads: ${written} bytes of the ${total} announced`)
      await writer.push(pieces.tail)
      writer.end()
    } finally {
      await slices.return(undefined)
    }
  })
}

/**
 * Writes the list `{...envelope, [key]: items}` in the first of `formats` that can encode it, as
 * writeObject would (protobuf when the codec has the list's message and every item encodes, else
 * the next format; JSON at the end). `envelope.apiVersion` and `kind` name the list's type.
 */
export async function writeListStream(res: Response, formats: readonly Format[], envelope: ListEnvelope, key: string, source: ListSource): Promise<void> {
  for (const format of formats) {
    if (format === 'protobuf') {
      if (typeof envelope.apiVersion !== 'string' || typeof envelope.kind !== 'string') continue
      try {
        const pieces = protobufListPieces(await protobufCodec(), envelope as ListEnvelope & { apiVersion: string; kind: string })
        if (!pieces) continue
        await writeProtobuf(res, pieces, source)
        return
      } catch (err) {
        // An item protobuf cannot represent (a value of the wrong type stored as JSON), found
        // while sizing, before anything was written: the next choice.
        if (err instanceof ProtobufError && !res.headersSent) continue
        throw err
      }
    }
    if (format === 'yaml') return writeText(res, yamlListPieces(envelope, key), source)
    break
  }
  return writeText(res, jsonListPieces(envelope, key), source)
}
