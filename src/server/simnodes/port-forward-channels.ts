/**
 * Port-forward over the kubelet's WebSocket channel protocol (`v4.channel.k8s.io`, its base64
 * variant, or no subprotocol; kubelet's cri/streaming/portforward/websocket.go), which the
 * official Python client speaks: two channels per requested port, data (2i) and error (2i+1),
 * each opened by the port as two little-endian bytes; each message is the channel byte and the
 * data. A failed forward writes the kubelet's message on the error channel; when every port's
 * forward has ended the connection closes, as the kubelet's does.
 */
import { Duplex } from 'node:stream'
import type { WebSocket } from 'ws'

export type ForwardStream = (port: number, stream: Duplex) => Promise<void>

/** A channel as a Duplex: writes become messages on `channel`, messages on it become reads. */
class ChannelStream extends Duplex {
  constructor(private readonly sendOn: (data: Buffer) => void) {
    super({ allowHalfOpen: true })
  }
  override _read(): void {}
  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    this.sendOn(chunk)
    done()
  }
}

export function serveChannelPortForward(ws: WebSocket, socket: Duplex, ports: number[], forward: ForwardStream, errorMessage: (port: number, err: Error) => string, base64: boolean): void {
  const send = (channel: number, data: Buffer) => {
    if (ws.readyState !== ws.OPEN) return
    if (base64) ws.send(String.fromCharCode(48 + channel) + data.toString('base64'))
    else ws.send(Buffer.concat([Buffer.from([channel]), data]))
  }
  const streams = ports.map((port, i) => {
    const portBytes = Buffer.alloc(2)
    portBytes.writeUInt16LE(port, 0)
    send(2 * i, portBytes)
    send(2 * i + 1, portBytes)
    const stream = new ChannelStream((data) => send(2 * i, data))
    stream.on('error', () => {})
    return stream
  })
  ws.on('message', (raw: Buffer, isBinary: boolean) => {
    let channel: number
    let payload: Buffer
    if (base64 && !isBinary) {
      const text = raw.toString('latin1')
      channel = text.charCodeAt(0) - 48
      payload = Buffer.from(text.slice(1), 'base64')
    } else {
      channel = raw[0] ?? -1
      payload = raw.subarray(1)
    }
    const stream = channel % 2 === 0 ? streams[channel / 2] : undefined
    if (stream && payload.length > 0) stream.push(payload)
  })
  ws.on('close', () => {
    for (const stream of streams) {
      stream.push(null)
      stream.destroy()
    }
  })
  const runs = ports.map((port, i) =>
    forward(port, streams[i]!).catch((err: Error) => {
      send(2 * i + 1, Buffer.from(errorMessage(port, err)))
    }),
  )
  void Promise.all(runs).then(() => {
    if (ws.readyState !== ws.OPEN) return
    ws.close(1000)
    // The kubelet's WebSocket closes the connection after its close frame (see node-agent.ts's exec).
    socket.end()
  })
}
