/**
 * The PEM reader as Go's encoding/pem Decode reads (text before a block skipped, headers,
 * what follows returned), and the PKCS#10 check of certificate validation on requests signed
 * with each key type the reference's x509.CheckSignature verifies.
 */
import assert from 'node:assert/strict'
import { webcrypto } from 'node:crypto'
import * as x509 from '@peculiar/x509'
import { certificateBundleError, csrError, decodePEM } from '../../../../src/server/api/validation/pem.js'

describe('validation/pem: decodePEM (encoding/pem Decode)', () => {
  it('skips text before the block and returns what follows it', () => {
    const { block, rest } = decodePEM('junk\n-----BEGIN THING-----\naGk=\n-----END THING-----\nafter')
    assert.equal(block?.type, 'THING')
    assert.equal(block?.bytes.toString(), 'hi')
    assert.deepEqual(block?.headers, {})
    assert.equal(rest, 'after')
  })

  it('reads headers up to the blank line', () => {
    const { block } = decodePEM('-----BEGIN THING-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\naGk=\n-----END THING-----\n')
    assert.deepEqual(block?.headers, { 'Proc-Type': '4,ENCRYPTED', 'DEK-Info': 'AES-128-CBC,00' })
    assert.equal(block?.bytes.toString(), 'hi')
  })

  it('finds no block without a matching END line, nor in plain text', () => {
    assert.equal(decodePEM('-----BEGIN THING-----\naGk=\n-----END OTHER-----\n').block, undefined)
    assert.equal(decodePEM('hello').block, undefined)
  })

  it('certificateBundleError: an empty bundle is allowed, an empty CERTIFICATE block is not', () => {
    assert.equal(certificateBundleError(Buffer.alloc(0)), undefined)
    assert.equal(certificateBundleError(Buffer.from('-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n')), 'found CERTIFICATE PEM block containing 0 certificates')
  })
})

describe('validation/pem: csrError (ParseCSR and CheckSignature)', () => {
  const request = async (algorithm: Record<string, unknown>, signing: Record<string, unknown> = algorithm) => {
    const keys = (await webcrypto.subtle.generateKey(algorithm as unknown as webcrypto.EcKeyGenParams, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=x', keys, signingAlgorithm: signing }, webcrypto)
    return Buffer.from(csr.toString('pem'))
  }

  it('verifies ECDSA P-384, RSA PKCS#1 v1.5 with SHA-512 and RSA-PSS requests', async () => {
    assert.equal(csrError(await request({ name: 'ECDSA', namedCurve: 'P-384', hash: 'SHA-384' })), undefined)
    const rsa = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-512', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 }
    assert.equal(csrError(await request(rsa)), undefined)
    const pss = { name: 'RSA-PSS', hash: 'SHA-384', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 }
    assert.equal(csrError(await request(pss, { ...pss, saltLength: 48 })), undefined)
  })

  it('refuses a tampered RSA request with crypto/rsa\'s text, and a block of another type', async () => {
    const rsa = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 }
    const pem = (await request(rsa)).toString()
    const der = x509.PemConverter.decodeFirst(pem)
    const bytes = Buffer.from(der)
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0x01
    assert.equal(csrError(Buffer.from(x509.PemConverter.encode(bytes, 'CERTIFICATE REQUEST'))), 'crypto/rsa: verification error')
    assert.equal(csrError(Buffer.from(pem.replaceAll('CERTIFICATE REQUEST', 'NEW CERTIFICATE REQUEST'))), 'PEM block type must be CERTIFICATE REQUEST')
  })
})
