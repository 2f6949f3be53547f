/**
 * A whole list answered in JSON while it is read (GenericStore.streamList): the envelope, then
 * the items in slices, each written when the client has taken the previous ones. The bytes
 * are those of `JSON.stringify` of the whole `<Kind>List` (kind, apiVersion, metadata, items),
 * but the server never holds more than a page of objects and a slice of text per list, and
 * the event loop gets a turn between slices, so that many large lists at once neither
 * exhaust memory nor delay new connections and probes.
 */
import { Http2ServerResponse } from 'node:http2'
import type { Response } from '../../http/types.js'
import type { ListStream } from '../registry/generic-store.js'
import { yieldToEventLoop } from '../registry/generic-store.js'

/** Text written at a time: large enough for few writes, small enough for a short turn. */
const SLICE_CHARS = 64 * 1024

/** Whether the answer was ended or its connection or stream is gone. */
export function responseGone(res: Response): boolean {
  return res.writableEnded || (res instanceof Http2ServerResponse ? res.stream.destroyed : res.destroyed)
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
  if (res instanceof Http2ServerResponse) res.stream.close(2 /* INTERNAL_ERROR */)
  else res.destroy()
}

export async function writeJsonListStream(res: Response, envelope: { kind: string; apiVersion: string; metadata: Record<string, unknown> }, list: ListStream): Promise<void> {
  res.setHeader('Content-Type', 'application/json')
  res.statusCode = 200
  let slice = `{"kind":${JSON.stringify(envelope.kind)},"apiVersion":${JSON.stringify(envelope.apiVersion)},"metadata":${JSON.stringify(envelope.metadata)},"items":[`
  let first = true
  try {
    for await (const page of list.pages) {
      for (const object of page) {
        slice += (first ? '' : ',') + JSON.stringify(object)
        first = false
        if (slice.length < SLICE_CHARS) continue
        const more = writeAndWait(res, slice)
        slice = ''
        if (!(await more)) return
      }
      await yieldToEventLoop()
      if (responseGone(res)) return
    }
  } catch (err) {
    abort(res)
    throw err
  } finally {
    // Stops reading the store when the client went away or the answer was cut off.
    await list.pages.return(undefined)
  }
  res.end(`${slice}]}\n`)
}
