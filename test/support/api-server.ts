/**
 * The built `client server start` for end-to-end tests: spawned on a free loopback port
 * with its own temporary certificate and data directories, talked to over real HTTPS
 * (HTTP/1.1 or HTTP/2), and stopped by PID.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { connect as http2Connect } from 'node:http2'
import { request as httpsRequest } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePorts } from './etcd.js'

export const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url))
const ADMIN_KUBECONFIG = 'admin.kubeconfig'

export interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

export interface StartOptions {
  args?: string[]
  /** Reuse these directories (for restart tests) instead of fresh ones. */
  certDir?: string
  dataDir?: string
  /** Resolve once listening (default) or once /readyz passes. */
  waitFor?: 'listening' | 'ready' | 'none'
  env?: NodeJS.ProcessEnv
  /**
   * Talk to the server anonymously: no administrator kubeconfig is written and requests carry
   * no client certificate unless one is given. By default the server writes one
   * (--write-kubeconfig, in its temporary directory unless the args name another) and every
   * request presents its client certificate (system:admin in system:masters), so tests are
   * authorized under the default Node,RBAC as they would be with AlwaysAllow.
   */
  anonymous?: boolean
  /** Kept for tests written before the administrator became the default: true is the default. */
  admin?: boolean
  /** Listen on this port instead of a free one found here (a test that names the port in other options). */
  port?: number
  /** `cluster`: spawn `cluster start` (test/support/cluster.ts) rather than `server start`. */
  command?: 'server' | 'cluster'
}

/** A client certificate and its key, as PEM. */
export interface ClientCredentials {
  cert: string
  key: string
}

export class ApiServer {
  private output = ''
  private exitCode: number | null | undefined
  private readonly exited: Promise<number | null>
  readonly faultsFile: string

  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
    readonly certDir: string,
    readonly dataDir: string,
    private readonly tmp: string,
    private readonly adminFile?: string,
  ) {
    this.faultsFile = join(tmp, 'faults')
    child.stdout!.on('data', (d) => (this.output += d))
    child.stderr!.on('data', (d) => (this.output += d))
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? -1 : null)
        resolve(code)
      }),
    )
  }

  static async start(options: StartOptions = {}): Promise<ApiServer> {
    const tmp = mkdtempSync(join(tmpdir(), 'client-server-'))
    const certDir = options.certDir ?? join(tmp, 'certs')
    const dataDir = options.dataDir ?? join(tmp, 'data')
    const [port] = options.port !== undefined ? [options.port] : await freePorts(1)
    const faultsFile = join(tmp, 'faults')
    writeFileSync(faultsFile, '')
    const given = (options.args ?? []).map((a) => /^--write-kubeconfig=(.+)$/.exec(a)?.[1]).find((f) => f !== undefined)
    const wantAdmin = !options.anonymous && options.admin !== false
    const adminArgs = wantAdmin && !given ? [`--write-kubeconfig=${join(tmp, ADMIN_KUBECONFIG)}`] : []
    const args = [options.command ?? 'server', 'start', '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${certDir}`, `--data-dir=${dataDir}`, ...adminArgs, ...(options.args ?? [])]
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, CLIENT_TEST_FAULTS_FILE: faultsFile, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const server = new ApiServer(child, port!, certDir, dataDir, tmp, wantAdmin ? (given ?? join(tmp, ADMIN_KUBECONFIG)) : undefined)
    const waitFor = options.waitFor ?? 'listening'
    // A generous wait: start-up takes seconds on a quiet machine and far longer on a loaded one;
    // the suite's own timeout ends a start that never comes.
    if (waitFor !== 'none' && wantAdmin) await server.waitForFile(server.adminKubeconfig, 90_000)
    if (waitFor !== 'none') await server.waitUntil(waitFor === 'ready' ? '/readyz' : '/livez', waitFor === 'ready' ? 200 : undefined, 90_000)
    return server
  }

  get logs(): string {
    return this.output
  }

  get pid(): number {
    return this.child.pid!
  }

  /** Polls until `file` exists (the server writes it after it listens). */
  async waitForFile(file: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!existsSync(file)) {
      if (this.exitCode !== undefined) throw new Error(`server exited with ${this.exitCode}:\n${this.output}`)
      if (Date.now() > deadline) throw new Error(`${file} was not written within ${timeoutMs}ms\n${this.output}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  /** The administrator kubeconfig (unless started `anonymous`). */
  get adminKubeconfig(): string {
    return this.adminFile ?? join(this.tmp, ADMIN_KUBECONFIG)
  }

  private adminCredentials: ClientCredentials | null | undefined

  /**
   * What requests present by default: the administrator's certificate once its kubeconfig
   * exists and has one (a server with a user-supplied serving certificate has no CA to sign
   * it), otherwise nothing.
   */
  private defaultClient(): ClientCredentials | undefined {
    if (this.adminCredentials !== undefined) return this.adminCredentials ?? undefined
    if (!this.adminFile || !existsSync(this.adminFile)) return undefined
    try {
      this.adminCredentials = this.admin()
    } catch {
      this.adminCredentials = null
    }
    return this.adminCredentials ?? undefined
  }

  /** The administrator's client certificate from `adminKubeconfig` (start with `admin: true`). */
  admin(): ClientCredentials {
    const text = readFileSync(this.adminKubeconfig, 'utf8')
    const field = (name: string) => {
      const m = new RegExp(`${name}: (\\S+)`).exec(text)
      if (!m) throw new Error(`${this.adminKubeconfig} has no ${name}`)
      return Buffer.from(m[1]!, 'base64').toString('utf8')
    }
    return { cert: field('client-certificate-data'), key: field('client-key-data') }
  }

  /** The CA the server generated in its cert dir. */
  ca(): string {
    return readFileSync(join(this.certDir, 'ca.crt'), 'utf8')
  }

  /** Sets a test fault: `store=fail:...`, `log=hang`; an empty list clears them. */
  setFaults(lines: string[]): void {
    writeFileSync(this.faultsFile, lines.join('\n'))
  }

  /** Polls `path` until it answers (with `status`, when given), or fails after `timeoutMs`. */
  async waitUntil(path: string, status?: number, timeoutMs = 30_000): Promise<Reply> {
    const deadline = Date.now() + timeoutMs
    let last: unknown
    for (;;) {
      if (this.exitCode !== undefined) throw new Error(`server exited with ${this.exitCode}:\n${this.output}`)
      try {
        const reply = await this.get(path)
        if (status === undefined || reply.status === status) return reply
        last = `status ${reply.status}: ${reply.body}`
      } catch (err) {
        last = err
      }
      if (Date.now() > deadline) throw new Error(`${path} did not answer ${status ?? ''} within ${timeoutMs}ms (last: ${last})\n${this.output}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  /** Polls `path` until its body matches `pattern` (and its status is `status`, when given). */
  async waitForBody(path: string, pattern: RegExp, status?: number, timeoutMs = 30_000): Promise<Reply> {
    const deadline = Date.now() + timeoutMs
    let last = ''
    for (;;) {
      if (this.exitCode !== undefined) throw new Error(`server exited with ${this.exitCode}:\n${this.output}`)
      try {
        const reply = await this.get(path)
        if (pattern.test(reply.body) && (status === undefined || reply.status === status)) return reply
        last = `${reply.status}: ${reply.body}`
      } catch (err) {
        last = String(err)
      }
      if (Date.now() > deadline) throw new Error(`${path} did not match ${pattern} within ${timeoutMs}ms (last: ${last})`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }

  /** The TLS options of a request as the administrator (empty when started `anonymous`), for tests that make their own requests. */
  tlsClient(): { cert?: string; key?: string } {
    const client = this.defaultClient()
    return client ? { cert: client.cert, key: client.key } : {}
  }

  /**
   * One HTTPS/1.1 request on a fresh connection, as the administrator unless another client
   * certificate is given or `client` is 'anonymous'.
   */
  get(path: string, headers: Record<string, string> = {}, method = 'GET', body?: string, as?: ClientCredentials | 'anonymous'): Promise<Reply> {
    const client = as === 'anonymous' ? undefined : (as ?? this.defaultClient())
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        { host: '127.0.0.1', port: this.port, path, method, headers, rejectUnauthorized: false, agent: false, ...(client ? { cert: client.cert, key: client.key } : {}) },
        (res) => {
          let data = ''
          res.setEncoding('utf8')
          res.on('data', (d) => (data += d))
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: data }))
          res.on('error', reject)
        },
      )
      req.on('error', reject)
      req.end(body)
    })
  }

  /** One request over HTTP/2, as the administrator unless 'anonymous'. */
  get2(path: string, as?: ClientCredentials | 'anonymous'): Promise<Reply & { alpn: string | false | undefined }> {
    const client = as === 'anonymous' ? undefined : (as ?? this.defaultClient())
    return new Promise((resolve, reject) => {
      const session = http2Connect(`https://127.0.0.1:${this.port}`, { rejectUnauthorized: false, ...(client ? { cert: client.cert, key: client.key } : {}) })
      session.on('error', reject)
      const stream = session.request({ ':path': path })
      let data = ''
      let status = 0
      let headers: Record<string, string | string[] | undefined> = {}
      stream.setEncoding('utf8')
      stream.on('response', (h) => {
        status = Number(h[':status'])
        headers = h as Record<string, string>
      })
      stream.on('data', (d) => (data += d))
      stream.on('end', () => {
        const alpn = session.alpnProtocol
        session.close()
        resolve({ status, headers, body: data, alpn })
      })
      stream.on('error', reject)
      stream.end()
    })
  }

  signal(sig: NodeJS.Signals = 'SIGTERM'): void {
    this.child.kill(sig)
  }

  /** Resolves with the exit code once the process has exited. */
  waitForExit(timeoutMs = 30_000): Promise<number | null> {
    return Promise.race([
      this.exited,
      new Promise<number | null>((_, reject) => setTimeout(() => reject(new Error(`server did not exit within ${timeoutMs}ms\n${this.output}`)), timeoutMs)),
    ])
  }

  /** Stops the server by PID (SIGKILL if it does not exit on SIGTERM) and removes its directories. */
  async stop(keepDirs = false): Promise<void> {
    if (this.exitCode === undefined) {
      this.child.kill('SIGTERM')
      try {
        await this.waitForExit(10_000)
      } catch {
        this.child.kill('SIGKILL')
        await this.exited
      }
    }
    if (!keepDirs) rmSync(this.tmp, { recursive: true, force: true })
  }
}

/** Spawns `client server start` expecting it to refuse to start; returns its exit code and output. */
export function startExpectingFailure(args: string[], timeoutMs = 30_000): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'server', 'start', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`server did not exit within ${timeoutMs}ms:\n${output}`))
    }, timeoutMs)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })
}
