/**
 * The reference's GRPC egress: a konnectivity client (sigs.k8s.io/apiserver-network-proxy's
 * konnectivity-client, CreateSingleUseGrpcTunnel) over the configured Unix socket. Each dial
 * opens one `ProxyService/Proxy` stream, sends DIAL_REQ for `host:port`, waits for DIAL_RSP,
 * then carries the bytes as DATA packets of that connection id; closing sends CLOSE_REQ. The
 * few messages (client.proto) are encoded here by hand; gRPC is loaded on the first dial.
 */
import { randomInt } from 'node:crypto'
import { Duplex } from 'node:stream'

const DIAL_REQ = 0
const DIAL_RSP = 1
const CLOSE_REQ = 2
const CLOSE_RSP = 3
const DATA = 4
const DIAL_CLS = 5

/** A decoded Packet: its type and the fields of its payload that the client reads. */
export interface Packet {
  type: number
  error?: string
  connectID?: number
  random?: number
  data?: Buffer
}

function varint(value: number): Buffer {
  const bytes: number[] = []
  let v = BigInt(value)
  if (v < 0n) v += 1n << 64n
  do {
    let byte = Number(v & 0x7fn)
    v >>= 7n
    if (v > 0n) byte |= 0x80
    bytes.push(byte)
  } while (v > 0n)
  return Buffer.from(bytes)
}

const tag = (field: number, wire: number) => varint((field << 3) | wire)
const varintField = (field: number, value: number) => Buffer.concat([tag(field, 0), varint(value)])
const bytesField = (field: number, value: Buffer) => Buffer.concat([tag(field, 2), varint(value.length), value])

/** Packet{type, <payload field>: message} on the wire. */
function packet(type: number, payloadField: number, payload: Buffer): Buffer {
  return Buffer.concat([varintField(1, type), bytesField(payloadField, payload)])
}

export const encodeDialRequest = (address: string, random: number) => packet(DIAL_REQ, 2, Buffer.concat([bytesField(1, Buffer.from('tcp')), bytesField(2, Buffer.from(address)), varintField(3, random)]))
export const encodeData = (connectID: number, data: Buffer) => packet(DATA, 4, Buffer.concat([varintField(1, connectID), bytesField(3, data)]))
export const encodeCloseRequest = (connectID: number) => packet(CLOSE_REQ, 5, varintField(1, connectID))
export const encodeCloseDial = (random: number) => packet(DIAL_CLS, 7, varintField(1, random))

/** The fields of one message: number → varint value or bytes. */
function fields(buf: Buffer): Map<number, number | Buffer> {
  const out = new Map<number, number | Buffer>()
  let i = 0
  const readVarint = () => {
    let result = 0n
    let shift = 0n
    for (;;) {
      const byte = buf[i++]!
      result |= BigInt(byte & 0x7f) << shift
      if ((byte & 0x80) === 0) return Number(BigInt.asIntN(64, result))
      shift += 7n
    }
  }
  while (i < buf.length) {
    const key = readVarint()
    const field = key >>> 3
    const wire = key & 7
    if (wire === 0) out.set(field, readVarint())
    else if (wire === 2) {
      const length = readVarint()
      out.set(field, buf.subarray(i, i + length))
      i += length
    } else if (wire === 1) i += 8
    else if (wire === 5) i += 4
    else throw new Error(`konnectivity: unsupported wire type ${wire}`)
  }
  return out
}

export function decodePacket(buf: Buffer): Packet {
  const top = fields(buf)
  const type = (top.get(1) as number | undefined) ?? DIAL_REQ
  const payload = [...top.entries()].find(([field]) => field >= 2)?.[1]
  const inner = Buffer.isBuffer(payload) ? fields(payload) : new Map<number, number | Buffer>()
  const text = (f: number) => (Buffer.isBuffer(inner.get(f)) ? (inner.get(f) as Buffer).toString('utf8') : '')
  const num = (f: number) => (typeof inner.get(f) === 'number' ? (inner.get(f) as number) : 0)
  switch (type) {
    case DIAL_RSP:
      return { type, error: text(1), connectID: num(2), random: num(3) }
    case DATA:
      return { type, connectID: num(1), error: text(2), data: Buffer.isBuffer(inner.get(3)) ? (inner.get(3) as Buffer) : Buffer.alloc(0) }
    case CLOSE_RSP:
      return { type, error: text(1), connectID: num(2) }
    case DIAL_CLS:
      return { type, random: num(1) }
    default:
      return { type }
  }
}

type Grpc = typeof import('@grpc/grpc-js')
let grpcModule: Promise<Grpc> | undefined
const loadGrpc = () => (grpcModule ??= import('@grpc/grpc-js'))

/** A stream of the konnectivity connection, its writes sent as DATA. */
class TunnelStream extends Duplex {
  constructor(
    private readonly call: import('@grpc/grpc-js').ClientDuplexStream<Buffer, Packet>,
    readonly connectID: number,
  ) {
    super()
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.call.write(encodeData(this.connectID, chunk), callback)
  }
  override _read(): void {}
  override _final(callback: (err?: Error | null) => void): void {
    this.call.write(encodeCloseRequest(this.connectID), () => callback())
  }
  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.call.cancel()
    callback(err)
  }
}

/** Dials host:port through the konnectivity server listening on the Unix socket `udsName`. */
export async function dialKonnectivity(udsName: string, host: string, port: number): Promise<Duplex> {
  const grpc = await loadGrpc()
  const client = new grpc.Client(`unix://${udsName}`, grpc.credentials.createInsecure())
  const call = client.makeBidiStreamRequest<Buffer, Packet>('/ProxyService/Proxy', (b) => b, decodePacket)
  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`
  const random = randomInt(1, 2 ** 47)
  return new Promise<Duplex>((resolve, reject) => {
    let stream: TunnelStream | undefined
    const fail = (err: Error) => {
      if (stream) stream.destroy(err)
      else reject(err)
      call.cancel()
      client.close()
    }
    call.on('data', (p: Packet) => {
      if (!stream) {
        if (p.type === DIAL_RSP && p.random === random) {
          if (p.error) return fail(new Error(`dial ${address} through konnectivity at ${udsName}: ${p.error}`))
          stream = new TunnelStream(call, p.connectID ?? 0)
          stream.once('close', () => client.close())
          resolve(stream)
        } else if (p.type === DIAL_CLS) fail(new Error(`dial ${address} through konnectivity at ${udsName}: dial closed`))
        return
      }
      if (p.type === DATA && p.connectID === stream.connectID) {
        if (p.error) stream.destroy(new Error(p.error))
        else stream.push(p.data)
      } else if (p.type === CLOSE_RSP) {
        stream.push(null)
        call.end()
      }
    })
    call.on('error', (err: Error & { code?: number }) => {
      if (err.code === grpc.status.CANCELLED && stream?.destroyed) return
      fail(new Error(`dial ${address} through konnectivity at ${udsName}: ${err.message}`))
    })
    call.on('end', () => {
      if (stream) stream.push(null)
      else fail(new Error(`dial ${address} through konnectivity at ${udsName}: the proxy closed the stream`))
    })
    call.write(encodeDialRequest(address, random))
  })
}
