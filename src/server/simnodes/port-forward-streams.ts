/**
 * Port-forward over SPDY streams (the kubelet's cri/streaming/portforward/httpstream.go), which
 * kubectl speaks, over SPDY/3.1 itself or tunnelled in a WebSocket
 * (`SPDY/3.1+portforward.k8s.io`): for each local connection the client opens an error stream
 * and a data stream with the headers `streamtype`, `port` and `requestid`; once both of a
 * request are open the forward runs on the data stream. A failed forward writes the kubelet's
 * message on the error stream; then both streams are closed.
 */
import type { Duplex } from 'node:stream'
import type { SpdyStream } from './spdy-session.js'

export type ForwardStream = (port: number, stream: Duplex) => Promise<void>

interface Pair {
  data?: SpdyStream
  error?: SpdyStream
}

/** The stream handler of one SPDY connection. */
export function portForwardStreams(forward: ForwardStream, errorMessage: (port: number, err: Error) => string): (stream: SpdyStream) => void {
  const pairs = new Map<string, Pair>()
  return (stream) => {
    const type = stream.headers.get('streamtype')
    const port = Number(stream.headers.get('port') ?? '')
    if ((type !== 'data' && type !== 'error') || !Number.isInteger(port) || port < 1 || port > 65535) {
      stream.reset()
      return
    }
    // A client without request IDs (before 1.4) sends the pair as consecutive odd stream IDs.
    const requestId = stream.headers.get('requestid') ?? String(type === 'error' ? stream.id : stream.id - 2)
    stream.on('error', () => {})
    const pair = pairs.get(requestId) ?? {}
    pairs.set(requestId, pair)
    if (type === 'data') pair.data = stream
    else {
      pair.error = stream
      stream.resume() // the client writes nothing on it; its end must still be read
    }
    if (!pair.data || !pair.error) return
    pairs.delete(requestId)
    const { data, error } = pair
    void forward(port, data)
      .catch((err: Error) => {
        error.write(errorMessage(port, err))
      })
      .finally(() => {
        if (!error.destroyed) error.end()
        if (!data.destroyed) data.end()
      })
  }
}
