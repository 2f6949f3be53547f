import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { derNamedBits, derObjectIdentifier, derTime, derUnsignedInteger } from '../../../src/core/util/der-writer.js'
import { ipBytes, keyIdentifier } from '../../../src/server/tls/certificate-der.js'
import { createCaCertificate, createLeafCertificate, generateKey } from '../../../src/server/tls/generate.js'
import { tmpDir } from './helpers.js'

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')

describe('server/tls: certificates written as DER', () => {
  it("encodes X.690's forms", () => {
    // sha256WithRSAEncryption and ecdsa-with-SHA256 as RFC 4055 and RFC 5758 print them.
    assert.equal(hex(derObjectIdentifier('1.2.840.113549.1.1.11')), '06092a864886f70d01010b')
    assert.equal(hex(derObjectIdentifier('1.2.840.10045.4.3.2')), '06082a8648ce3d040302')
    // KeyUsage: digitalSignature | keyCertSign | cRLSign (bits 0, 5, 6), one unused bit.
    assert.equal(hex(derNamedBits([0, 5, 6])), '03020186')
    assert.equal(hex(derNamedBits([0])), '03020780')
    assert.equal(hex(derNamedBits([0, 2])), '030205a0')
    // INTEGER: a zero byte before a set top bit, leading zeros dropped.
    assert.equal(hex(derUnsignedInteger(Buffer.from([0x80]))), '02020080')
    assert.equal(hex(derUnsignedInteger(Buffer.from([0, 0, 5]))), '020105')
    // RFC 5280 4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050.
    assert.equal(Buffer.from(derTime(new Date(Date.UTC(2049, 11, 31, 23, 59, 59, 999)))).subarray(2).toString(), '491231235959Z')
    assert.equal(Buffer.from(derTime(new Date(Date.UTC(2050, 0, 1)))).subarray(2).toString(), '20500101000000Z')
    assert.equal(derTime(new Date(Date.UTC(2050, 0, 1)))[0], 0x18)
  })

  it('writes IP addresses as their 4 or 16 bytes', () => {
    assert.equal(hex(ipBytes('10.0.0.1')), '0a000001')
    assert.equal(hex(ipBytes('::1')), '00000000000000000000000000000001')
    assert.equal(hex(ipBytes('2001:db8::5')), '20010db8000000000000000000000005')
    assert.equal(hex(ipBytes('fe80::1:2')), 'fe800000000000000000000000010002')
    assert.equal(hex(ipBytes('::ffff:1.2.3.4')), '00000000000000000000ffff01020304')
    assert.equal(hex(ipBytes('1:2:3:4:5:6:7:8')), '00010002000300040005000600070008')
  })

  for (const type of ['ecdsa', 'rsa'] as const) {
    it(`builds a CA and a leaf that OpenSSL verifies strictly (${type})`, async function () {
      this.timeout(20_000)
      const dir = tmpDir()
      try {
        const caKey = await generateKey(type)
        const key = await generateKey(type)
        const now = Date.now()
        const caPem = await createCaCertificate({ key: caKey, commonName: 'host-ca@1', notBefore: new Date(now - 3_600_000), notAfter: new Date(now + 86_400_000) })
        const leafPem = await createLeafCertificate({
          ca: { certPem: caPem, privateKey: caKey.privateKey },
          publicKey: key.publicKey,
          commonName: 'system:admin',
          organizations: ['system:masters', 'ünï'],
          dns: ['localhost', 'host.example'],
          ips: ['127.0.0.1', '::1'],
          usage: 'client',
          notBefore: new Date(now - 3_600_000),
          notAfter: new Date(now + 86_400_000),
        })
        fs.writeFileSync(path.join(dir, 'ca.crt'), caPem)
        fs.writeFileSync(path.join(dir, 'leaf.crt'), leafPem)
        const verified = execFileSync('openssl', ['verify', '-x509_strict', '-purpose', 'sslclient', '-CAfile', path.join(dir, 'ca.crt'), path.join(dir, 'leaf.crt')]).toString()
        assert.match(verified, /leaf\.crt: OK/)
        const text = execFileSync('openssl', ['x509', '-noout', '-text', '-nameopt', 'RFC2253', '-in', path.join(dir, 'leaf.crt')]).toString()
        assert.match(text, /Subject: CN=system:admin,O=\\C3\\BCn\\C3\\AF,O=system:masters/)
        assert.match(text, /X509v3 Basic Constraints: critical\n\s+CA:FALSE/)
        assert.match(text, new RegExp(`X509v3 Key Usage: critical\\n\\s+${type === 'rsa' ? 'Digital Signature, Key Encipherment' : 'Digital Signature'}\\n`))
        assert.match(text, /X509v3 Extended Key Usage: \n\s+TLS Web Client Authentication/)
        assert.match(text, /DNS:localhost, DNS:host\.example, IP Address:127\.0\.0\.1, IP Address:0:0:0:0:0:0:0:1/)
        const caText = execFileSync('openssl', ['x509', '-noout', '-text', '-in', path.join(dir, 'ca.crt')]).toString()
        assert.match(caText, /X509v3 Basic Constraints: critical\n\s+CA:TRUE/)
        assert.match(caText, /X509v3 Key Usage: critical\n\s+Digital Signature, Certificate Sign, CRL Sign/)
        // The leaf names its issuer's key as the CA names its own (RFC 5280 4.2.1.1, method 1).
        const ski = /Subject Key Identifier: \n\s+(\S+)/.exec(caText)![1]!
        assert.match(text, new RegExp(`Authority Key Identifier: \\n\\s+(keyid:)?${ski}`))
        assert.equal(ski.replace(/:/g, '').toLowerCase(), hex(keyIdentifier(new crypto.X509Certificate(caPem).publicKey)))
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    })
  }
})
