import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { DAY_MS } from '../../../src/server/tls/generate.js'
import { TlsConfigError, defaultCertDir, prepareServing } from '../../../src/server/tls/index.js'
import { skipOrFail } from '../../support/tools.js'
import { baseOptions, handshake, startServer, tmpDir, x509 } from './helpers.js'

const FILES = ['ca.crt', 'ca.key', 'apiserver.crt', 'apiserver.key']

function snapshot(dir: string): Record<string, { bytes: string; mtimeMs: number }> {
  return Object.fromEntries(FILES.map((f) => {
    const file = path.join(dir, f)
    return [f, { bytes: fs.readFileSync(file, 'utf8'), mtimeMs: fs.statSync(file).mtimeMs }]
  }))
}

describe('server/tls: self-signed serving certificate in --cert-dir', function () {
  let root: string
  beforeEach(() => {
    root = tmpDir()
  })
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true })
  })

  it('generates a CA and a serving pair with private modes', async () => {
    const dir = path.join(root, 'state', 'certs')
    const serving = await prepareServing(baseOptions(dir))
    assert.equal(serving.generated, true)
    assert.deepEqual(serving.created, { ca: true, serving: true })
    assert.deepEqual(fs.readdirSync(dir).sort(), [...FILES].sort())
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700)
    assert.equal(fs.statSync(path.join(dir, 'ca.key')).mode & 0o777, 0o600)
    assert.equal(fs.statSync(path.join(dir, 'apiserver.key')).mode & 0o777, 0o600)
    assert.deepEqual(serving.certFiles, { cert: path.join(dir, 'apiserver.crt'), key: path.join(dir, 'apiserver.key') })
    assert.deepEqual(serving.caFiles, { cert: path.join(dir, 'ca.crt'), key: path.join(dir, 'ca.key') })
    assert.equal(serving.caCertPem, fs.readFileSync(path.join(dir, 'ca.crt'), 'utf8'))

    const ca = x509(serving.caCertPem!)
    const leaf = x509(fs.readFileSync(path.join(dir, 'apiserver.crt'), 'utf8'))
    assert.equal(ca.ca, true)
    assert.equal(leaf.ca, false)
    assert.ok(leaf.checkIssued(ca) && leaf.verify(ca.publicKey))
    assert.equal(leaf.checkHost('localhost'), 'localhost')
    assert.equal(leaf.checkHost('test-host.example'), 'test-host.example')
    assert.equal(leaf.checkIP('127.0.0.1'), '127.0.0.1')
    assert.equal(leaf.checkIP('::1'), '::1')
    // ECDSA P-256 keys, which Go's default TLS 1.2 suites (the reference's) and TLS 1.3 serve.
    for (const cert of [ca, leaf]) {
      assert.equal(cert.publicKey.asymmetricKeyType, 'ec')
      assert.equal(cert.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1')
    }
    // apiserver.crt holds the CA after the leaf, as the reference writes it.
    assert.ok(fs.readFileSync(path.join(dir, 'apiserver.crt'), 'utf8').endsWith(serving.caCertPem!))
  })

  it('serves a certificate that verifies against the returned CA for localhost, 127.0.0.1 and ::1', async function () {
    const serving = await prepareServing(baseOptions(path.join(root, 'certs')))
    const v4 = await startServer(serving)
    try {
      const byName = await handshake(v4, { ca: serving.caCertPem, servername: 'localhost', rejectUnauthorized: true })
      assert.ok(byName.ok, !byName.ok ? byName.error.message : '')
      assert.equal(byName.authorized, true)
      const byIp = await handshake(v4, { ca: serving.caCertPem, rejectUnauthorized: true })
      assert.ok(byIp.ok, !byIp.ok ? byIp.error.message : '')
      const wrongName = await handshake(v4, { ca: serving.caCertPem, servername: 'elsewhere.example', rejectUnauthorized: true })
      assert.equal(wrongName.ok, false)
      const untrusted = await handshake(v4, { servername: 'localhost', rejectUnauthorized: true })
      assert.equal(untrusted.ok, false)
    } finally {
      await v4.close()
    }
    let v6
    try {
      v6 = await startServer(serving, { host: '::1' })
    } catch (e) {
      // Only a machine without IPv6 loopback may skip (never under CI); any other error fails.
      const code = (e as NodeJS.ErrnoException).code
      if (code !== 'EADDRNOTAVAIL' && code !== 'EAFNOSUPPORT') throw e
      skipOrFail(this, `no IPv6 loopback here: listening on ::1 failed with ${code}`)
    }
    try {
      const result = await handshake(v6, { ca: serving.caCertPem, rejectUnauthorized: true })
      assert.ok(result.ok, !result.ok ? result.error.message : '')
    } finally {
      await v6.close()
    }
  })

  it('reuses the same files, byte for byte and untouched, on the next start', async () => {
    const dir = path.join(root, 'certs')
    const first = await prepareServing(baseOptions(dir))
    const before = snapshot(dir)
    await new Promise((r) => setTimeout(r, 20))
    const second = await prepareServing(baseOptions(dir))
    assert.deepEqual(snapshot(dir), before)
    assert.deepEqual(second.created, { ca: false, serving: false })
    assert.equal(second.generated, true)
    assert.equal(second.caCertPem, first.caCertPem)
    assert.equal(second.secureOptions.cert, first.secureOptions.cert)
    assert.equal(second.secureOptions.key, first.secureOptions.key)
  })

  it('regenerates only the serving certificate when the advertise address changes', async () => {
    const dir = path.join(root, 'certs')
    await prepareServing({ ...baseOptions(dir), advertiseAddress: '10.0.0.5' })
    const before = snapshot(dir)
    const again = await prepareServing({ ...baseOptions(dir), advertiseAddress: '10.0.0.5' })
    assert.deepEqual(again.created, { ca: false, serving: false })

    const moved = await prepareServing({ ...baseOptions(dir), advertiseAddress: '10.0.0.6' })
    const after = snapshot(dir)
    assert.deepEqual(moved.created, { ca: false, serving: true })
    assert.equal(again.generationReasons.length, 0)
    assert.match(moved.generationReasons.join('\n'), /apiserver\.crt does not cover 10\.0\.0\.6$/)
    assert.equal(after['ca.crt']!.bytes, before['ca.crt']!.bytes)
    assert.equal(after['ca.key']!.bytes, before['ca.key']!.bytes)
    assert.equal(after['ca.crt']!.mtimeMs, before['ca.crt']!.mtimeMs)
    assert.notEqual(after['apiserver.crt']!.bytes, before['apiserver.crt']!.bytes)
    assert.notEqual(after['apiserver.key']!.bytes, before['apiserver.key']!.bytes)
    const leaf = x509(after['apiserver.crt']!.bytes)
    assert.equal(leaf.checkIP('10.0.0.6'), '10.0.0.6')
    assert.equal(leaf.checkIP('10.0.0.5'), undefined)
    assert.ok(leaf.verify(x509(after['ca.crt']!.bytes).publicKey))
  })

  it('regenerates the serving certificate for a new host name or a specific bind address', async () => {
    const dir = path.join(root, 'certs')
    await prepareServing(baseOptions(dir))
    const renamed = await prepareServing({ ...baseOptions(dir), hostname: 'Other-Host' })
    assert.deepEqual(renamed.created, { ca: false, serving: true })
    assert.equal(x509(renamed.secureOptions.cert as string).checkHost('other-host'), 'other-host')
    const bound = await prepareServing({ ...baseOptions(dir), hostname: 'Other-Host', bindAddress: '192.0.2.7' })
    assert.deepEqual(bound.created, { ca: false, serving: true })
    assert.equal(x509(bound.secureOptions.cert as string).checkIP('192.0.2.7'), '192.0.2.7')
  })

  it('uses os.hostname() by default', async () => {
    const { hostname: _ignored, ...options } = baseOptions(path.join(root, 'certs'))
    const serving = await prepareServing(options)
    const name = os.hostname().toLowerCase()
    assert.equal(x509(serving.secureOptions.cert as string).checkHost(name, { subject: 'never' }), name)
  })

  it('regenerates an expired CA and everything signed by it', async () => {
    const dir = path.join(root, 'certs')
    const first = await prepareServing(baseOptions(dir))
    const later = new Date(Date.now() + 11 * 365 * DAY_MS)
    const renewed = await prepareServing({ ...baseOptions(dir), now: () => later })
    assert.deepEqual(renewed.created, { ca: true, serving: true })
    assert.notEqual(renewed.caCertPem, first.caCertPem)
  })

  it('regenerates a serving certificate close to expiry but keeps the CA', async () => {
    const dir = path.join(root, 'certs')
    const first = await prepareServing(baseOptions(dir))
    const later = new Date(Date.now() + 365 * DAY_MS - 3600_000)
    const renewed = await prepareServing({ ...baseOptions(dir), now: () => later })
    assert.deepEqual(renewed.created, { ca: false, serving: true })
    assert.equal(renewed.caCertPem, first.caCertPem)
  })

  it('regenerates a serving pair that a lost CA no longer signs', async () => {
    const dir = path.join(root, 'certs')
    await prepareServing(baseOptions(dir))
    fs.rmSync(path.join(dir, 'ca.key'))
    const renewed = await prepareServing(baseOptions(dir))
    assert.deepEqual(renewed.created, { ca: true, serving: true })
    const leaf = x509(fs.readFileSync(path.join(dir, 'apiserver.crt'), 'utf8'))
    assert.ok(leaf.verify(x509(renewed.caCertPem!).publicKey))
  })

  it('reports a garbage certificate in --cert-dir as a TlsConfigError naming the file', async () => {
    const dir = path.join(root, 'certs')
    await prepareServing(baseOptions(dir))
    const crt = path.join(dir, 'apiserver.crt')
    fs.writeFileSync(crt, 'this is not a certificate\n')
    await assert.rejects(prepareServing(baseOptions(dir)), (err: unknown) => {
      assert.ok(err instanceof TlsConfigError)
      assert.match(err.message, new RegExp(`cannot parse certificate in ${crt.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: no PEM "CERTIFICATE" block found`))
      assert.match(err.message, /to have them generated again/)
      assert.equal(err.file, crt)
      assert.doesNotMatch(err.message, /\n\s+at /)
      return true
    })
  })

  it('reports a mismatched key in --cert-dir instead of silently replacing it', async () => {
    const dir = path.join(root, 'certs')
    await prepareServing(baseOptions(dir))
    fs.copyFileSync(path.join(dir, 'ca.key'), path.join(dir, 'apiserver.key'))
    await assert.rejects(prepareServing(baseOptions(dir)), (err: unknown) => {
      assert.ok(err instanceof TlsConfigError)
      assert.match(err.message, /apiserver\.key does not match --cert-dir .*apiserver\.crt/)
      return true
    })
  })

  it('reports a cert dir that cannot be created', async () => {
    const blocker = path.join(root, 'file')
    fs.writeFileSync(blocker, 'x')
    await assert.rejects(prepareServing(baseOptions(path.join(blocker, 'certs'))), (err: unknown) => {
      assert.ok(err instanceof TlsConfigError)
      assert.match(err.message, /^--cert-dir: cannot create .*file\/certs: ENOTDIR/)
      return true
    })
  })

  it('defaultCertDir() follows XDG_STATE_HOME and falls back to ~/.local/state', () => {
    assert.equal(defaultCertDir({ XDG_STATE_HOME: '/srv/state' }), path.join('/srv/state', 'client', 'certs'))
    assert.equal(defaultCertDir({ XDG_STATE_HOME: 'relative/state' }), path.join(os.homedir(), '.local', 'state', 'client', 'certs'))
    assert.equal(defaultCertDir({}), path.join(os.homedir(), '.local', 'state', 'client', 'certs'))
  })

  it('uses defaultCertDir() when no --cert-dir is given', async () => {
    const saved = process.env['XDG_STATE_HOME']
    process.env['XDG_STATE_HOME'] = path.join(root, 'xdg')
    try {
      const { certDir: _unused, ...options } = baseOptions('')
      const serving = await prepareServing(options)
      assert.equal(serving.certFiles.cert, path.join(root, 'xdg', 'client', 'certs', 'apiserver.crt'))
    } finally {
      if (saved === undefined) delete process.env['XDG_STATE_HOME']
      else process.env['XDG_STATE_HOME'] = saved
    }
  })
})
