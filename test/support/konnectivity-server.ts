/**
 * A test konnectivity server on a Unix socket: the gRPC `ProxyService/Proxy` stream of
 * sigs.k8s.io/apiserver-network-proxy (its client.proto, decoded by proto-loader), answering
 * each DIAL_REQ with a TCP connection to the address (or `refuse`'s error), relaying DATA both
 * ways and answering CLOSE_REQ with CLOSE_RSP. It records the addresses dialled. Stopped with
 * `close()`.
 */
import net from 'node:net'
import { fileURLToPath } from 'node:url'
import { type ServerDuplexStream, Server, ServerCredentials, loadPackageDefinition, type ServiceClientConstructor } from '@grpc/grpc-js'
import { loadSync } from '@grpc/proto-loader'

type Obj = Record<string, any>

const PROTO = fileURLToPath(new URL('./konnectivity/client.proto', import.meta.url))

export class KonnectivityServer {
  readonly dialed: string[] = []
  /** When set, every DIAL_REQ is answered with this error. */
  refuse?: string
  private nextId = 1

  private constructor(private readonly server: Server) {}

  static async start(path: string): Promise<KonnectivityServer> {
    const definition = loadSync(PROTO, { longs: Number, enums: String, defaults: true, oneofs: true })
    const service = (loadPackageDefinition(definition).ProxyService as ServiceClientConstructor).service
    const server = new Server()
    const self = new KonnectivityServer(server)
    server.addService(service, { Proxy: (call: ServerDuplexStream<Obj, Obj>) => self.proxy(call) })
    await new Promise<number>((resolve, reject) => server.bindAsync(`unix://${path}`, ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))))
    return self
  }

  private proxy(call: ServerDuplexStream<Obj, Obj>): void {
    const sockets = new Map<number, net.Socket>()
    call.on('data', (packet: Obj) => {
      if (packet.type === 'DIAL_REQ') {
        const { address, random } = packet.dialRequest
        this.dialed.push(address)
        if (this.refuse) return call.write({ type: 'DIAL_RSP', dialResponse: { error: this.refuse, random } })
        const at = address.lastIndexOf(':')
        const connectID = this.nextId++
        const socket = net.connect({ host: address.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(address.slice(at + 1)) }, () => {
          sockets.set(connectID, socket)
          call.write({ type: 'DIAL_RSP', dialResponse: { connectID, random } })
        })
        socket.on('data', (data: Buffer) => call.write({ type: 'DATA', data: { connectID, data } }))
        socket.on('close', () => {
          if (sockets.delete(connectID)) call.write({ type: 'CLOSE_RSP', closeResponse: { connectID } })
        })
        socket.on('error', (err) => {
          if (!sockets.has(connectID)) call.write({ type: 'DIAL_RSP', dialResponse: { error: err.message, random } })
        })
      } else if (packet.type === 'DATA') {
        sockets.get(packet.data.connectID)?.write(packet.data.data)
      } else if (packet.type === 'CLOSE_REQ') {
        const socket = sockets.get(packet.closeRequest.connectID)
        sockets.delete(packet.closeRequest.connectID)
        socket?.end()
        call.write({ type: 'CLOSE_RSP', closeResponse: { connectID: packet.closeRequest.connectID } })
      }
    })
    call.on('end', () => {
      for (const socket of sockets.values()) socket.destroy()
      call.end()
    })
    call.on('error', () => {
      for (const socket of sockets.values()) socket.destroy()
    })
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.tryShutdown(() => resolve()))
  }
}
