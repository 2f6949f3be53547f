/**
 * Issue 13 items 10 and 12 against the built server: the reference's default TLS suites and
 * `--tls-cipher-suites` / `--tls-min-version` as `openssl s_client` sees them; the read-header
 * timeout (32 s) cutting a client that trickles its headers, and the same bound on a TLS
 * handshake that never comes; the port bound before anything is written; and every file
 * written for users complete before the first connection is accepted.
 */
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import tls from 'node:tls'
import { ApiServer, BIN, startExpectingFailure } from '../../support/api-server.js'
import { freePorts } from '../../support/etcd.js'

/** `openssl s_client` to the server with extra arguments: the negotiated cipher, or null when refused. */
function sClient(port: number, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    const child = execFile('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, ...args], { timeout: 20_000 }, (_err, stdout) => {
      const cipher = /Cipher is (\S+)/.exec(stdout)?.[1]
      resolve(cipher === undefined || cipher === '(NONE)' ? null : cipher)
    })
    child.stdin?.end()
  })
}

describe('server start: TLS suites, read-header timeout and start-up order (end to end)', function () {
  this.timeout(120_000)

  describe("the reference's TLS defaults and flags", () => {
    let server: ApiServer
    before(async () => {
      server = await ApiServer.start({ waitFor: 'ready' })
    })
    after(async () => {
      await server?.stop()
    })

    // The generated serving key is ECDSA P-256 (an RSA one only for RSA-only suites), so a TLS 1.2
    // client gets Go's ECDHE_ECDSA suites; the RSA ones are checked on an RSA pair in
    // test/server/tls/policy.test.ts.
    it("offers TLS 1.2 clients Go's default suites only: no static RSA, CBC-SHA256, DHE", async () => {
      assert.equal(await sClient(server.port, ['-tls1_2', '-cipher', 'ECDHE-ECDSA-AES128-GCM-SHA256']), 'ECDHE-ECDSA-AES128-GCM-SHA256')
      assert.equal(await sClient(server.port, ['-tls1_2', '-cipher', 'ECDHE-ECDSA-CHACHA20-POLY1305']), 'ECDHE-ECDSA-CHACHA20-POLY1305')
      assert.equal(await sClient(server.port, ['-tls1_2', '-cipher', 'ECDHE-ECDSA-AES256-SHA']), 'ECDHE-ECDSA-AES256-SHA')
      for (const refused of ['AES128-SHA', 'AES256-GCM-SHA384', 'ECDHE-ECDSA-AES128-SHA256', 'ECDHE-ECDSA-AES256-SHA384', 'DHE-RSA-AES256-GCM-SHA384']) {
        assert.equal(await sClient(server.port, ['-tls1_2', '-cipher', refused]), null, `${refused} was accepted`)
      }
      assert.equal(await sClient(server.port, ['-tls1_1', '-cipher', 'DEFAULT:@SECLEVEL=0']), null, 'TLS 1.1 was accepted')
      assert.equal(await sClient(server.port, ['-tls1_3']), 'TLS_AES_256_GCM_SHA384')
    })

    it('honours --tls-cipher-suites and --tls-min-version', async () => {
      const listed = await ApiServer.start({ args: ['--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384', '--tls-min-version=VersionTLS12'], waitFor: 'ready' })
      try {
        assert.equal(await sClient(listed.port, ['-tls1_2', '-cipher', 'ECDHE-RSA-AES256-GCM-SHA384']), 'ECDHE-RSA-AES256-GCM-SHA384')
        assert.equal(await sClient(listed.port, ['-tls1_2', '-cipher', 'ECDHE-RSA-AES128-GCM-SHA256']), null)
      } finally {
        await listed.stop()
      }
      const tls13 = await ApiServer.start({ args: ['--tls-min-version=VersionTLS13'], waitFor: 'ready' })
      try {
        assert.equal(await sClient(tls13.port, ['-tls1_2']), null)
        assert.notEqual(await sClient(tls13.port, ['-tls1_3']), null)
      } finally {
        await tls13.stop()
      }
    })

    it('closes, without an answer, a connection whose headers are not complete in 32 s, and one that never shakes hands', async () => {
      const started = Date.now()
      // Headers trickled a byte a second, never finished.
      const trickled = new Promise<{ afterMs: number; received: string }>((resolve) => {
        const socket = tls.connect({ host: '127.0.0.1', port: server.port, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] }, () => {
          socket.write('GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ')
          const timer = setInterval(() => socket.write('a'), 1000)
          socket.once('close', () => clearInterval(timer))
        })
        let received = ''
        socket.on('data', (d: Buffer) => (received += d.toString()))
        socket.on('error', () => {})
        socket.once('close', () => resolve({ afterMs: Date.now() - started, received }))
      })
      // A TCP connection that never starts the TLS handshake.
      const silent = new Promise<number>((resolve) => {
        const socket = net.connect(server.port, '127.0.0.1')
        socket.on('error', () => {})
        socket.once('close', () => resolve(Date.now() - started))
      })
      // Meanwhile the server answers others at once.
      assert.equal((await server.get('/livez')).status, 200)
      const [cut, silentMs] = await Promise.all([trickled, silent])
      assert.ok(cut.afterMs >= 31_000 && cut.afterMs < 45_000, `the trickling client was cut after ${cut.afterMs} ms (want about 32 s)`)
      assert.equal(cut.received, '', 'Go closes such a connection without an answer')
      assert.ok(silentMs >= 31_000 && silentMs < 45_000, `the silent connection was closed after ${silentMs} ms (want about 32 s)`)
    })
  })

  describe('start-up order', () => {
    let dir: string
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'client-startup-order-'))
    })
    after(() => rmSync(dir, { recursive: true, force: true }))

    it('refuses a port in use before writing certificates, a kubeconfig or a data directory', async () => {
      const holder = net.createServer()
      await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
      const port = (holder.address() as net.AddressInfo).port
      try {
        const certDir = join(dir, 'in-use', 'certs')
        const dataDir = join(dir, 'in-use', 'data')
        const kubeconfig = join(dir, 'in-use', 'kubeconfig')
        const failed = await startExpectingFailure(['--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${certDir}`, `--data-dir=${dataDir}`, `--write-kubeconfig=${kubeconfig}`])
        assert.notEqual(failed.code, 0)
        assert.match(failed.output, new RegExp(`failed to listen on 127\\.0\\.0\\.1:${port}: the address is already in use`))
        assert.doesNotMatch(failed.output, /at .*\.js:\d+/, 'no stack trace')
        for (const path of [certDir, dataDir, kubeconfig]) assert.equal(existsSync(path), false, `${path} was written`)
      } finally {
        holder.close()
      }
    })

    it('has the kubeconfig and its certificates complete on disk before it accepts a first connection', async () => {
      const [port] = await freePorts(1)
      const certDir = join(dir, 'order', 'certs')
      const kubeconfig = join(dir, 'order', 'kubeconfig')
      const child = spawn(process.execPath, [BIN, 'server', 'start', '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${certDir}`, `--data-dir=${join(dir, 'order', 'data')}`, `--write-kubeconfig=${kubeconfig}`], {
        stdio: 'ignore',
      })
      try {
        // Connect as early as possible; at the first completed handshake, look at the disk.
        const deadline = Date.now() + 60_000
        let snapshot: { kubeconfig: string; files: string[] } | undefined
        while (!snapshot && Date.now() < deadline) {
          snapshot = await new Promise<{ kubeconfig: string; files: string[] } | undefined>((resolve) => {
            const socket = tls.connect({ host: '127.0.0.1', port: port!, rejectUnauthorized: false }, () => {
              const seen = {
                kubeconfig: existsSync(kubeconfig) ? readFileSync(kubeconfig, 'utf8') : '',
                files: ['ca.crt', 'ca.key', 'apiserver.crt', 'apiserver.key', 'admin.crt', 'admin.key'].filter((f) => existsSync(join(certDir, f))),
              }
              socket.destroy()
              resolve(seen)
            })
            socket.on('error', () => resolve(undefined))
          })
          if (!snapshot) await new Promise((r) => setTimeout(r, 20))
        }
        assert.ok(snapshot, 'the server never accepted a connection')
        assert.deepEqual(snapshot.files, ['ca.crt', 'ca.key', 'apiserver.crt', 'apiserver.key', 'admin.crt', 'admin.key'])
        assert.match(snapshot.kubeconfig, new RegExp(`server: https://127\\.0\\.0\\.1:${port}\\n`))
        assert.match(snapshot.kubeconfig, /client-certificate-data: \S+/)
        assert.match(snapshot.kubeconfig, /client-key-data: \S+/)
        assert.match(snapshot.kubeconfig, /certificate-authority-data: \S+/)
      } finally {
        child.kill('SIGKILL')
      }
    })
  })
})
