import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import https from 'node:https'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { requireTool, toolCommand } from './tools.js'

/**
 * A real etcd for tests: a single member on free loopback ports with its own temporary data
 * directory. It is started and stopped by PID only, and can be started again on the same
 * ports and data (to test recovery). Every etcd started here is killed when the test
 * process exits, even if a test forgot to.
 */
export class EtcdServer {
  readonly clientUrl: string
  readonly peerUrl: string
  private child: ChildProcess | null = null
  private output = ''

  private constructor(
    readonly dataDir: string,
    readonly clientPort: number,
    readonly peerPort: number,
    private readonly ownsDataDir: boolean,
    /** When set, clients must connect over TLS with a certificate signed by `tls.ca`. */
    readonly tls: TlsFiles | undefined,
  ) {
    this.clientUrl = `${tls ? 'https' : 'http'}://127.0.0.1:${clientPort}`
    this.peerUrl = `http://127.0.0.1:${peerPort}`
  }

  /** Starts a new etcd and waits until it reports healthy. */
  static async start(options: { dataDir?: string; tls?: TlsFiles } = {}): Promise<EtcdServer> {
    const ownsDataDir = options.dataDir === undefined
    const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'etcd-test-'))
    const [clientPort, peerPort] = await freePorts(2)
    const server = new EtcdServer(dataDir, clientPort!, peerPort!, ownsDataDir, options.tls)
    await server.start()
    return server
  }

  get pid(): number | undefined {
    return this.child?.pid
  }

  get running(): boolean {
    return this.child !== null
  }

  /** (Re)starts the process on this server's ports and data directory. */
  async start(timeoutMs = 20_000): Promise<void> {
    if (this.child) return
    this.output = ''
    const child = spawn(
      etcdBinary(),
      [
        '--name', 'member0',
        '--data-dir', path.join(this.dataDir, 'member'),
        '--listen-client-urls', this.clientUrl,
        '--advertise-client-urls', this.clientUrl,
        '--listen-peer-urls', this.peerUrl,
        '--initial-advertise-peer-urls', this.peerUrl,
        '--initial-cluster', `member0=${this.peerUrl}`,
        '--initial-cluster-state', 'new',
        '--initial-cluster-token', `test-${this.clientPort}`,
        // A lone member need not wait a full default election timeout to lead.
        '--heartbeat-interval', '50',
        '--election-timeout', '500',
        '--logger', 'zap',
        '--log-level', 'warn',
        ...(this.tls
          ? [
              '--cert-file', this.tls.serverCert,
              '--key-file', this.tls.serverKey,
              '--trusted-ca-file', this.tls.ca,
              '--client-cert-auth',
            ]
          : []),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    this.child = child
    live.add(child)
    const keep = (chunk: Buffer): void => {
      this.output = (this.output + chunk.toString()).slice(-8_000)
    }
    child.stdout?.on('data', keep)
    child.stderr?.on('data', keep)
    child.once('exit', () => {
      live.delete(child)
      if (this.child === child) this.child = null
    })
    await this.waitHealthy(child, timeoutMs)
  }

  /** Stops the process by PID (SIGTERM, or SIGKILL to simulate a crash) and waits for it to exit. */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    const child = this.child
    if (!child || child.pid === undefined) return
    const exited = new Promise<void>(resolve => {
      if (child.exitCode !== null || child.signalCode !== null) resolve()
      else child.once('exit', () => resolve())
    })
    process.kill(child.pid, signal)
    const timer = setTimeout(() => {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGKILL')
    }, 10_000)
    await exited
    clearTimeout(timer)
    this.child = null
  }

  /** Stops the process and removes the data directory if this server created it. */
  async destroy(): Promise<void> {
    await this.stop('SIGKILL')
    if (this.ownsDataDir) fs.rmSync(this.dataDir, { recursive: true, force: true })
  }

  private async health(): Promise<string | undefined> {
    if (!this.tls) {
      const res = await fetch(`${this.clientUrl}/health`, { signal: AbortSignal.timeout(1_000) })
      return ((await res.json()) as { health?: string }).health
    }
    const tls = this.tls
    return new Promise((resolve, reject) => {
      const req = https.get(
        `${this.clientUrl}/health`,
        {
          ca: fs.readFileSync(tls.ca),
          cert: fs.readFileSync(tls.clientCert),
          key: fs.readFileSync(tls.clientKey),
          timeout: 1_000,
        },
        res => {
          let body = ''
          res.on('data', (chunk: Buffer) => (body += chunk.toString()))
          res.on('end', () => {
            try {
              resolve((JSON.parse(body) as { health?: string }).health)
            } catch (err) {
              reject(err)
            }
          })
        },
      )
      req.on('timeout', () => req.destroy(new Error('timeout')))
      req.on('error', reject)
    })
  }

  private async waitHealthy(child: ChildProcess, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`etcd exited during start-up (${child.exitCode ?? child.signalCode}):\n${this.output}`)
      }
      try {
        if ((await this.health()) === 'true') return
      } catch {
        // Not listening yet.
      }
      await new Promise(resolve => setTimeout(resolve, 50))
    }
    await this.stop('SIGKILL')
    throw new Error(`etcd did not become healthy within ${timeoutMs}ms:\n${this.output}`)
  }
}

const live = new Set<ChildProcess>()
process.on('exit', () => {
  for (const child of live) {
    if (child.pid !== undefined) {
      try {
        process.kill(child.pid, 'SIGKILL')
      } catch {
        // Already gone.
      }
    }
  }
})

function etcdBinary(): string {
  return toolCommand('etcd')
}

/**
 * Call from a `before` hook of tests that need etcd. Without etcd they are skipped, except
 * in CI (CI set), where a missing etcd is a failure rather than silently untested code.
 */
export function requireEtcd(ctx: Mocha.Context): void {
  requireTool(ctx, 'etcd')
}

/** Ports that were free on 127.0.0.1 a moment ago. */
export async function freePorts(count: number): Promise<number[]> {
  const servers: net.Server[] = []
  try {
    const ports: number[] = []
    for (let i = 0; i < count; i++) {
      const server = net.createServer()
      servers.push(server)
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(0, '127.0.0.1', () => resolve())
      })
      ports.push((server.address() as net.AddressInfo).port)
    }
    return ports
  } finally {
    await Promise.all(servers.map(s => new Promise(resolve => s.close(resolve))))
  }
}

/** A CA, a server certificate for 127.0.0.1 and a client certificate, all signed by the CA. */
export interface TlsFiles {
  ca: string
  serverCert: string
  serverKey: string
  clientCert: string
  clientKey: string
}

/** Writes a throwaway PKI (EC P-256, valid one day) into `dir` with the openssl CLI. */
export function makeTlsFiles(dir: string, name = 'test'): TlsFiles {
  const file = (f: string): string => path.join(dir, `${name}-${f}`)
  const run = (...args: string[]): void => {
    execFileSync(toolCommand('openssl'), args, { stdio: 'pipe' })
  }
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']
  run('req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.crt'), '-subj', `/CN=${name}-ca`, '-days', '1')
  const sign = (who: string, ext: string): void => {
    run('req', ...ec, '-keyout', file(`${who}.key`), '-out', file(`${who}.csr`), '-subj', `/CN=${name}-${who}`)
    fs.writeFileSync(file(`${who}.ext`), ext)
    run(
      'x509', '-req', '-in', file(`${who}.csr`), '-CA', file('ca.crt'), '-CAkey', file('ca.key'),
      '-CAcreateserial', '-out', file(`${who}.crt`), '-days', '1', '-extfile', file(`${who}.ext`),
    )
  }
  sign('server', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n')
  sign('client', 'extendedKeyUsage=clientAuth\n')
  return {
    ca: file('ca.crt'),
    serverCert: file('server.crt'),
    serverKey: file('server.key'),
    clientCert: file('client.crt'),
    clientKey: file('client.key'),
  }
}
