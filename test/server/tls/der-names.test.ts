/**
 * src/server/tls/der-names.ts: the subject's names and the alternative names read from a
 * certificate's DER, against what @peculiar/x509 (a full certificate library) reads from the same
 * certificates, and the refusals of broken DER.
 */
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import * as x509 from '@peculiar/x509'
import { DerError, altNamesFromDer, subjectFromDer } from '../../../src/server/tls/der-names.js'

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }

async function certificate(name: string, altNames: { type: 'dns' | 'ip'; value: string }[] | undefined, version3 = true): Promise<x509.X509Certificate> {
  const keys = (await crypto.webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as crypto.webcrypto.CryptoKeyPair
  const extensions = altNames ? [new x509.SubjectAlternativeNameExtension(altNames)] : []
  return x509.X509CertificateGenerator.createSelfSigned(
    { serialNumber: '01', name, notBefore: new Date(0), notAfter: new Date(Date.now() + 86_400_000), keys, signingAlgorithm: algorithm, extensions: version3 ? [new x509.BasicConstraintsExtension(false), ...extensions] : extensions },
    crypto.webcrypto,
  )
}

const der = (cert: x509.X509Certificate) => new Uint8Array(cert.rawData)

describe('certificate names from the DER', () => {
  const cases: { title: string; name: string; alt?: { type: 'dns' | 'ip'; value: string }[] }[] = [
    { title: 'one CN, no alternative names', name: 'CN=admin' },
    { title: 'CN and several O, in order', name: 'O=system:masters, CN=kube-admin, O=dev, O=ops' },
    { title: 'two CNs (the last is the one Go keeps)', name: 'CN=first, CN=second' },
    { title: 'a multi-valued RDN', name: 'CN=a+O=b, O=c' },
    { title: 'non-ASCII text (UTF8String)', name: 'CN=Zoë Ünïcode, O=café' },
    { title: 'no CN or O', name: 'L=Berlin' },
    {
      title: 'DNS and IP names, IPv4 and IPv6',
      name: 'CN=apiserver',
      alt: [
        { type: 'dns', value: 'kubernetes.default.svc' },
        { type: 'ip', value: '10.0.0.1' },
        { type: 'dns', value: 'localhost' },
        { type: 'ip', value: '2001:db8::1' },
        { type: 'ip', value: '::1' },
      ],
    },
  ]
  for (const c of cases) {
    it(c.title, async () => {
      const cert = await certificate(c.name, c.alt)
      assert.deepEqual(subjectFromDer(der(cert)), { commonNames: cert.subjectName.getField('CN'), organizations: cert.subjectName.getField('O') })
      const san = cert.getExtension(x509.SubjectAlternativeNameExtension)
      const items = san?.names.items ?? []
      assert.deepEqual(altNamesFromDer(der(cert)), {
        dns: items.filter((i) => i.type === 'dns').map((i) => i.value),
        ips: items.filter((i) => i.type === 'ip').map((i) => i.value),
      })
    })
  }

  it('reads a DER inside a larger buffer (Node gives X509Certificate.raw as a view)', async () => {
    const cert = await certificate('CN=inner, O=g', [{ type: 'dns', value: 'x.example' }])
    const raw = new crypto.X509Certificate(cert.toString('pem')).raw
    const padded = Buffer.concat([Buffer.from([1, 2, 3]), raw, Buffer.from([9])]).subarray(3, 3 + raw.length)
    assert.deepEqual(subjectFromDer(padded), { commonNames: ['inner'], organizations: ['g'] })
    assert.deepEqual(altNamesFromDer(padded), { dns: ['x.example'], ips: [] })
  })

  it('refuses truncated DER with a DerError', async () => {
    const cert = der(await certificate('CN=cut', undefined))
    assert.throws(() => subjectFromDer(cert.subarray(0, 40)), DerError)
    assert.throws(() => subjectFromDer(new Uint8Array([0x30])), DerError)
  })
})
