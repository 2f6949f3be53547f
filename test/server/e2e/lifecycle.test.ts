import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { connect } from 'node:net'
import { join } from 'node:path'
import { ApiServer, type Reply, startExpectingFailure } from '../../support/api-server.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    socket.once('connect', () => {
      socket.destroy()
      resolve(false)
    })
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'))
  })
}

describe('server: lifecycle (end to end)', function () {
  this.timeout(90_000)

  it('SIGTERM with a shutdown delay and send-retry-after: readyz fails at once, livez stays up, then 429 while a slow request drains, then exit 0', async () => {
    // The delay is long so that "during the delay" still holds on a loaded machine; the order of
    // what the server answers is asserted, not how fast it answers.
    const server = await ApiServer.start({ waitFor: 'ready', args: ['--shutdown-delay-duration=10s', '--shutdown-send-retry-after'] })
    try {
      // A real slow request, still running when the delay ends: a 14 s CPU profile of the server.
      const slow: Promise<Reply> = server.get('/debug/pprof/profile?seconds=14')
      await sleep(300)
      const t0 = Date.now()
      server.signal('SIGTERM')
      // readyz fails as soon as the signal is handled, long before the delay ends...
      const ready = await server.waitUntil('/readyz', 500, 5_000)
      assert.match(ready.body, /\[-\]shutdown failed: reason withheld\nreadyz check failed\n$/)
      assert.equal((await server.get('/readyz/shutdown')).body, 'internal server error: process is shutting down\n')

      // ...while everything but readyz is served normally.
      for (let i = 0; i < 3; i++) {
        assert.equal((await server.get('/livez')).status, 200, `livez, ${Date.now() - t0} ms after SIGTERM`)
        assert.equal((await server.get('/version')).status, 200, `version, ${Date.now() - t0} ms after SIGTERM`)
        await sleep(500)
      }
      // Once the delay is over, new requests are turned away with 429, not before.
      let rejected = await server.get('/version')
      while (rejected.status === 200) {
        assert.ok(Date.now() - t0 < 60_000, 'no 429 within a minute of SIGTERM')
        await sleep(200)
        rejected = await server.get('/version')
      }
      assert.ok(Date.now() - t0 >= 10_000, `429 ${Date.now() - t0} ms after SIGTERM, before the 10 s delay ended`)
      assert.equal(rejected.status, 429)
      assert.equal(rejected.headers['retry-after'], '5')
      assert.equal(rejected.headers.connection, 'close')
      assert.equal(rejected.body, 'The apiserver is shutting down, please try again later.\n')
      // Probes are exempt.
      assert.equal((await server.get('/livez')).status, 200)
      assert.equal((await server.get('/readyz')).status, 500)

      const finished = await slow
      assert.equal(finished.status, 200)
      assert.ok(JSON.parse(finished.body).nodes.length > 0, 'the slow request completed with a real profile')
      assert.equal(await server.waitForExit(15_000), 0)
    } finally {
      await server.stop()
    }
  })

  it('without send-retry-after the listener closes after the delay: new connections are refused', async () => {
    const server = await ApiServer.start({ waitFor: 'ready', args: ['--shutdown-delay-duration=5s'] })
    try {
      const t0 = Date.now()
      server.signal('SIGTERM')
      await sleep(300)
      assert.equal(await refused(server.port), false, 'still listening during the delay')
      while (!(await refused(server.port))) {
        assert.ok(Date.now() - t0 < 60_000, 'still listening a minute after SIGTERM')
        await sleep(100)
      }
      assert.ok(Date.now() - t0 >= 5_000, `refused ${Date.now() - t0} ms after SIGTERM, before the 5 s delay ended`)
      assert.equal(await server.waitForExit(15_000), 0)
    } finally {
      await server.stop()
    }
  })

  it('a second signal exits at once with status 1', async () => {
    const server = await ApiServer.start({ waitFor: 'ready', args: ['--shutdown-delay-duration=30s'] })
    try {
      server.signal('SIGTERM')
      await sleep(300)
      server.signal('SIGTERM')
      assert.equal(await server.waitForExit(5000), 1)
    } finally {
      await server.stop()
    }
  })

  it('max-in-flight without priority and fairness: a request over the limit gets 429', async () => {
    // system:masters is exempt from the limit, as in the reference: the requests are a token user's,
    // whom AlwaysAllow authorizes for the profile.
    const dir = mkdtempSync(join(tmpdir(), 'inflight-'))
    writeFileSync(join(dir, 'tokens.csv'), 'tester-token,tester,1\n')
    const server = await ApiServer.start({
      waitFor: 'ready',
      args: ['--enable-priority-and-fairness=false', '--max-requests-inflight=1', '--authorization-mode=AlwaysAllow', `--token-auth-file=${join(dir, 'tokens.csv')}`],
    })
    const asTester = (path: string) => server.get(path, { Authorization: 'Bearer tester-token' }, 'GET', undefined, 'anonymous')
    try {
      // Holds the only slot for 5 s: the next request arrives well within that on a loaded machine.
      const slow = asTester('/debug/pprof/profile?seconds=5')
      await sleep(300)
      const reply = await asTester('/version')
      assert.equal(reply.status, 429)
      assert.equal(reply.headers['retry-after'], '1')
      assert.equal(reply.body, 'Too many requests, please try again later.\n')
      assert.equal((await slow).status, 200)
      assert.equal((await asTester('/version')).status, 200)
    } finally {
      await server.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('its generated certificate is valid for the kubernetes service names and cluster IP, as the reference\'s', async () => {
    const server = await ApiServer.start({ waitFor: 'listening', args: ['--service-cluster-ip-range=10.96.0.0/16'] })
    try {
      const { connect: tlsConnect, checkServerIdentity } = await import('node:tls')
      const ca = readFileSync(join(server.certDir, 'ca.crt'), 'utf8')
      const peer = await new Promise<import('node:tls').PeerCertificate>((resolve, reject) => {
        const socket = tlsConnect({ host: '127.0.0.1', port: server.port, ca, servername: 'kubernetes.default.svc' }, () => {
          resolve(socket.getPeerCertificate())
          socket.destroy()
        })
        socket.once('error', reject)
      })
      for (const name of ['kubernetes.default.svc', 'kubernetes.default', 'kubernetes']) assert.equal(checkServerIdentity(name, peer), undefined, name)
      assert.match(peer.subjectaltname ?? '', /IP Address:10\.96\.0\.1\b/)
    } finally {
      await server.stop()
    }
  })

  it('reuses its generated certificates after a restart', async () => {
    const first = await ApiServer.start({ waitFor: 'listening' })
    const files = ['ca.crt', 'apiserver.crt', 'apiserver.key']
    const before = files.map((f) => readFileSync(join(first.certDir, f), 'utf8'))
    await first.stop(true)
    const second = await ApiServer.start({ waitFor: 'listening', certDir: first.certDir, dataDir: first.dataDir })
    try {
      assert.deepEqual(files.map((f) => readFileSync(join(second.certDir, f), 'utf8')), before)
    } finally {
      await second.stop()
    }
  })

  it('an invalid command line exits 1 before listening, naming the option', async () => {
    const { code, output } = await startExpectingFailure(['--secure-port=0'])
    assert.equal(code, 1)
    assert.match(output, /--secure-port 0 must be between 1 and 65535, inclusive/)
    assert.doesNotMatch(output, /Serving securely/)
    assert.doesNotMatch(output, /\n\s+at /, 'no stack trace')
  })


  it('two servers share one port with --permit-port-sharing; a third without it cannot bind', async () => {
    const first = await ApiServer.start({ waitFor: 'ready', args: ['--permit-port-sharing'] })
    let second: ApiServer | undefined
    try {
      // The second listens on the first's port (the port ApiServer chose for it is overridden).
      second = await ApiServer.start({ waitFor: 'none', args: ['--permit-port-sharing', `--secure-port=${first.port}`] })
      await second.waitForFile(second.adminKubeconfig, 90_000)
      // Each server generated its own serving certificate: the kernel spreads connections
      // over both listeners, so both certificates are seen among a few connections.
      const { connect: tlsConnect } = await import('node:tls')
      const seen = new Set<string>()
      for (let i = 0; i < 40 && seen.size < 2; i++) {
        seen.add(await new Promise<string>((resolve, reject) => {
          const socket = tlsConnect({ host: '127.0.0.1', port: first.port, rejectUnauthorized: false }, () => {
            resolve(socket.getPeerCertificate().fingerprint256)
            socket.destroy()
          })
          socket.once('error', reject)
        }))
      }
      assert.equal(seen.size, 2, 'connections reach both servers')
      const { code, output } = await startExpectingFailure(['--bind-address=127.0.0.1', `--secure-port=${first.port}`])
      assert.equal(code, 1)
      assert.match(output, new RegExp(`failed to listen on 127\\.0\\.0\\.1:${first.port}: the address is already in use`))
    } finally {
      await second?.stop()
      await first.stop()
    }
  })

  it('refuses TLS 1.2 clients with --tls-min-version=VersionTLS13', async () => {
    const server = await ApiServer.start({ waitFor: 'ready', args: ['--tls-min-version=VersionTLS13'] })
    try {
      const { request } = await import('node:https')
      const err = await new Promise<Error | undefined>((resolve) => {
        const req = request({ host: '127.0.0.1', port: server.port, path: '/livez', rejectUnauthorized: false, maxVersion: 'TLSv1.2', agent: false }, () => resolve(undefined))
        req.on('error', resolve)
        req.end()
      })
      assert.ok(err, 'the TLS 1.2 handshake must fail')
      assert.equal((await server.get('/livez')).status, 200)
    } finally {
      await server.stop()
    }
  })
})
