import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { DAY_MS } from '../../../src/server/tls/generate.js'
import { TlsConfigError, prepareServing, type ServingOptions } from '../../../src/server/tls/index.js'
import { handshake, makeCa, makeLeaf, peerCn, startServer, tmpDir, writePair, type TestCa, type TestLeaf } from './helpers.js'

function userOptions(certFile: string, keyFile: string, extra: Partial<ServingOptions> = {}): ServingOptions {
  return { certFile, keyFile, sniCertKeys: [], cipherSuites: [], bindAddress: '127.0.0.1', alpn: [], ...extra }
}

function tlsError(pattern: RegExp, option?: string): (err: unknown) => boolean {
  return (err: unknown) => {
    assert.ok(err instanceof TlsConfigError, `expected a TlsConfigError, got ${String(err)}`)
    assert.match(err.message, pattern)
    if (option) assert.equal(err.option, option)
    return true
  }
}

describe('server/tls: --tls-cert-file and --tls-private-key-file', function () {
  let dir: string
  let ca: TestCa
  let leaf: TestLeaf
  let other: TestLeaf
  before(async () => {
    ca = await makeCa('user-ca')
    ;[leaf, other] = await Promise.all([
      makeLeaf(ca, { cn: 'user-serving', dns: ['localhost'], ips: ['127.0.0.1'] }),
      makeLeaf(ca, { cn: 'other', dns: ['other.example'] }),
    ])
  })
  beforeEach(() => {
    dir = tmpDir()
  })
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('serves the user pair, with the CA chain concatenated after the leaf, and generates nothing', async () => {
    const { certFile, keyFile } = writePair(dir, 'serving', leaf.certPem + ca.certPem, leaf.keyPem)
    const certDir = path.join(dir, 'unused-cert-dir')
    const serving = await prepareServing(userOptions(certFile, keyFile, { certDir }))
    assert.equal(serving.generated, false)
    assert.equal(serving.caCertPem, undefined)
    assert.deepEqual(serving.certFiles, { cert: certFile, key: keyFile })
    assert.equal(fs.existsSync(certDir), false)
    assert.deepEqual(serving.warnings, [])
    const server = await startServer(serving)
    try {
      const result = await handshake(server, { ca: ca.certPem, servername: 'localhost', rejectUnauthorized: true })
      assert.equal(peerCn(result), 'user-serving')
      assert.ok(result.ok)
      // The chain was sent: the issuer certificate came with the leaf.
      assert.equal(result.cert.issuerCertificate?.subject?.CN, 'user-ca')
    } finally {
      await server.close()
    }
  })

  it('accepts CRLF line ends and text around the PEM blocks', async () => {
    const certText = `subject=user-serving\r\n${(leaf.certPem + ca.certPem).replace(/\n/g, '\r\n')}`
    const { certFile, keyFile } = writePair(dir, 'crlf', certText, leaf.keyPem.replace(/\n/g, '\r\n'))
    const serving = await prepareServing(userOptions(certFile, keyFile))
    assert.ok(String(serving.secureOptions.cert).startsWith('-----BEGIN CERTIFICATE-----\n'))
  })

  it('rejects a key that does not match the certificate', async () => {
    const { certFile } = writePair(dir, 'serving', leaf.certPem, leaf.keyPem)
    const { keyFile } = writePair(dir, 'other', other.certPem, other.keyPem)
    await assert.rejects(
      prepareServing(userOptions(certFile, keyFile)),
      tlsError(new RegExp(`^--tls-private-key-file ${keyFile} does not match --tls-cert-file ${certFile}$`), '--tls-cert-file'),
    )
  })

  it('explains a chain whose leaf is not first', async () => {
    const { certFile, keyFile } = writePair(dir, 'serving', ca.certPem + leaf.certPem, leaf.keyPem)
    await assert.rejects(prepareServing(userOptions(certFile, keyFile)), tlsError(/does not match .*the key belongs to certificate #2 of the file, but the serving \(leaf\) certificate must come first/))
  })

  it('names the file and the cause for garbage certificates and keys', async () => {
    const good = writePair(dir, 'good', leaf.certPem, leaf.keyPem)
    const garbage = path.join(dir, 'garbage.pem')
    fs.writeFileSync(garbage, 'hello world\n')
    await assert.rejects(prepareServing(userOptions(garbage, good.keyFile)), tlsError(new RegExp(`^--tls-cert-file: cannot parse certificate in ${garbage}: no PEM "CERTIFICATE" block found$`)))
    await assert.rejects(prepareServing(userOptions(good.certFile, garbage)), tlsError(new RegExp(`^--tls-private-key-file: cannot parse private key in ${garbage}: no PEM private key block found$`)))

    const corrupt = path.join(dir, 'corrupt.pem')
    fs.writeFileSync(corrupt, '-----BEGIN CERTIFICATE-----\nTUlJQm9ndXM=\n-----END CERTIFICATE-----\n')
    await assert.rejects(prepareServing(userOptions(corrupt, good.keyFile)), tlsError(new RegExp(`^--tls-cert-file: cannot parse certificate in ${corrupt}: \\S`)))
    const corruptKey = path.join(dir, 'corrupt.key')
    fs.writeFileSync(corruptKey, '-----BEGIN PRIVATE KEY-----\nTUlJQm9ndXM=\n-----END PRIVATE KEY-----\n')
    await assert.rejects(prepareServing(userOptions(good.certFile, corruptKey)), tlsError(new RegExp(`^--tls-private-key-file: cannot parse private key in ${corruptKey}: \\S`)))

    const empty = path.join(dir, 'empty.pem')
    fs.writeFileSync(empty, '')
    await assert.rejects(prepareServing(userOptions(empty, good.keyFile)), tlsError(/cannot parse certificate in .*empty\.pem: the file is empty$/))
  })

  it('notices switched certificate and key files', async () => {
    const { certFile, keyFile } = writePair(dir, 'serving', leaf.certPem, leaf.keyPem)
    await assert.rejects(prepareServing(userOptions(keyFile, certFile)), tlsError(/cannot parse certificate in .*serving\.key: found a private key but no certificate \(were the certificate and key files switched\?\)/))
  })

  it('reports missing files and half-given pairs', async () => {
    const { certFile } = writePair(dir, 'serving', leaf.certPem, leaf.keyPem)
    const missing = path.join(dir, 'missing.key')
    await assert.rejects(prepareServing(userOptions(certFile, missing)), tlsError(new RegExp(`^--tls-private-key-file: cannot read ${missing}: ENOENT`)))
    await assert.rejects(prepareServing(userOptions(certFile, '')), tlsError(/must be given together/, '--tls-private-key-file'))
  })

  it('rejects encrypted keys with a clear message', async () => {
    const { certFile } = writePair(dir, 'serving', leaf.certPem, leaf.keyPem)
    const crypto = await import('node:crypto')
    const encrypted = crypto.createPrivateKey(leaf.keyPem).export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'secret' })
    const keyFile = path.join(dir, 'encrypted.key')
    fs.writeFileSync(keyFile, encrypted)
    await assert.rejects(prepareServing(userOptions(certFile, keyFile)), tlsError(/cannot parse private key in .*encrypted\.key: the key is encrypted/))
  })

  it('warns about an expired user certificate but still serves it', async () => {
    const expired = await makeLeaf(ca, { cn: 'expired', dns: ['localhost'], notBefore: new Date(Date.now() - 10 * DAY_MS), notAfter: new Date(Date.now() - DAY_MS) })
    const { certFile, keyFile } = writePair(dir, 'expired', expired.certPem, expired.keyPem)
    const serving = await prepareServing(userOptions(certFile, keyFile))
    assert.equal(serving.warnings.length, 1)
    assert.match(serving.warnings[0]!, /^--tls-cert-file .*expired\.crt expired on /)
  })
})
