import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { prepareServing, type ServingTls, type SniCertKey } from '../../../src/server/tls/index.js'
import { buildNameMap, lookupName, type SniCertificate } from '../../../src/server/tls/sni.js'
import { baseOptions, handshake, makeCa, makeLeaf, peerCn, startServer, tmpDir, writePair, x509, type RunningServer, type TestCa } from './helpers.js'

describe('server/tls: --tls-sni-cert-key', function () {
  let dir: string
  let ca: TestCa
  let serving: ServingTls
  let server: RunningServer
  let entries: SniCertKey[]
  // The generated default certificate's CN is `<public host>@<unix time>`.
  const DEFAULT_CN = /^localhost@\d+$/

  before(async () => {
    dir = tmpDir()
    ca = await makeCa('sni-ca')
    const [exact, wildcard, claimsA2, overriding, ipCert, first, second] = await Promise.all([
      makeLeaf(ca, { cn: 'a.example.com', dns: ['a.example.com'] }),
      makeLeaf(ca, { cn: '*.example.com', dns: ['*.example.com'] }),
      makeLeaf(ca, { cn: 'claims-a2', dns: ['a2.example.com'] }),
      makeLeaf(ca, { cn: 'explicit', dns: ['own-san.example.org'] }),
      makeLeaf(ca, { cn: 'by-ip', dns: ['ip-cert.example.org'] }),
      makeLeaf(ca, { cn: 'first-dup', dns: ['dup.example.net'] }),
      makeLeaf(ca, { cn: 'second-dup', dns: ['dup.example.net'] }),
    ])
    const files = (name: string, leaf: { certPem: string; keyPem: string }): { certFile: string; keyFile: string } =>
      writePair(dir, name, leaf.certPem, leaf.keyPem)
    entries = [
      // claims a2.example.com through its SAN, listed before the explicit claim
      { ...files('claims-a2', claimsA2), names: [] },
      { ...files('exact', exact), names: [] },
      { ...files('wildcard', wildcard), names: [] },
      // explicit patterns: beat the SAN of `claims-a2`; its own SAN is not used
      { ...files('explicit', overriding), names: ['a2.example.com', 'B.Example.Com', '*.explicit.test'] },
      { ...files('ip', ipCert), names: ['127.0.0.1', '::1'] },
      { ...files('first', first), names: [] },
      { ...files('second', second), names: [] },
    ]
    serving = await prepareServing({ ...baseOptions(path.join(dir, 'certs')), sniCertKeys: entries })
    server = await startServer(serving)
  })
  after(async () => {
    await server?.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  const cnFor = async (servername: string): Promise<string | undefined> => peerCn(await handshake(server, { servername }))

  it('chooses the certificate whose name matches exactly', async () => {
    assert.equal(await cnFor('a.example.com'), 'a.example.com')
    assert.equal(await cnFor('A.EXAMPLE.com'), 'a.example.com')
  })

  it('matches a wildcard for one label, below the exact names', async () => {
    assert.equal(await cnFor('c.example.com'), '*.example.com')
    assert.match((await cnFor('x.c.example.com'))!, DEFAULT_CN)
    assert.match((await cnFor('example.com'))!, DEFAULT_CN)
    assert.equal(await cnFor('z.explicit.test'), 'explicit')
  })

  it('lets explicit patterns beat names taken from certificates', async () => {
    assert.equal(await cnFor('a2.example.com'), 'explicit')
    // exact explicit name beats the wildcard certificate
    assert.equal(await cnFor('b.example.com'), 'explicit')
    // a certificate with explicit patterns is not chosen for its own SAN
    assert.match((await cnFor('own-san.example.org'))!, DEFAULT_CN)
  })

  it('lets the earlier certificate win a name claimed by two', async () => {
    assert.equal(await cnFor('dup.example.net'), 'first-dup')
  })

  it('falls back to the default certificate when nothing matches', async () => {
    assert.match((await cnFor('nothing.example.org'))!, DEFAULT_CN)
    const verified = await handshake(server, { servername: 'localhost', ca: serving.caCertPem, rejectUnauthorized: true })
    assert.match(peerCn(verified)!, DEFAULT_CN)
  })

  it('chooses by the local IP address for clients without SNI (IP patterns)', async () => {
    // tls.connect sends no SNI when connecting to an IP address.
    assert.equal(peerCn(await handshake(server)), 'by-ip')
    // A client that sends a (non-matching) name gets the name rules, like the reference.
    assert.match((await cnFor('nothing.example.org'))!, DEFAULT_CN)
    assert.equal(await cnFor('a.example.com'), 'a.example.com')
  })

  it('without attach(), clients without SNI get the default certificate', async () => {
    const plain = await startServer(serving, { attach: false })
    try {
      assert.match(peerCn(await handshake(plain))!, DEFAULT_CN)
      assert.equal(peerCn(await handshake(plain, { servername: 'a.example.com' })), 'a.example.com')
    } finally {
      await plain.close()
    }
  })

  it('serves SNI certificates on an http2 server too', async () => {
    const h2 = await startServer(serving, { kind: 'http2' })
    try {
      assert.equal(peerCn(await handshake(h2, { servername: 'c.example.com', ALPNProtocols: ['h2'] })), '*.example.com')
      assert.equal(peerCn(await handshake(h2, { ALPNProtocols: ['h2'] })), 'by-ip')
    } finally {
      await h2.close()
    }
  })

  it('lists the names each certificate is chosen for', () => {
    assert.deepEqual(serving.sni.map((s) => [path.basename(s.certFile), s.names, s.explicit]), [
      ['claims-a2.crt', ['claims-a2', 'a2.example.com'], false],
      ['exact.crt', ['a.example.com'], false],
      ['wildcard.crt', ['*.example.com'], false],
      ['explicit.crt', ['a2.example.com', 'b.example.com', '*.explicit.test'], true],
      ['ip.crt', ['127.0.0.1', '::1'], true],
      ['first.crt', ['first-dup', 'dup.example.net'], false],
      ['second.crt', ['second-dup', 'dup.example.net'], false],
    ])
  })

  it('gives the generated default pair the SNI certificates\' RSA key type, so that a TLS 1.3 client gets the SNI one', async () => {
    // Node replaces only the default certificate of the SNI certificate's key type
    // (nodejs/node#54235): an ECDSA default pair would be served in place of an RSA SNI one.
    assert.equal(x509(serving.secureOptions.cert as string).publicKey.asymmetricKeyType, 'rsa')
    const certs = path.join(dir, 'ec-first-certs')
    const ec = await prepareServing(baseOptions(certs))
    assert.equal(x509(ec.secureOptions.cert as string).publicKey.asymmetricKeyType, 'ec')
    const withSni = await prepareServing({ ...baseOptions(certs), sniCertKeys: [entries[1]!] })
    assert.deepEqual(withSni.created, { ca: false, serving: true })
    assert.match(withSni.generationReasons.join('\n'), /apiserver\.crt is not of the type of the --tls-sni-cert-key certificates' \(RSA\)/)
    assert.equal(x509(withSni.secureOptions.cert as string).publicKey.asymmetricKeyType, 'rsa')
    const s = await startServer(withSni, { attach: false })
    try {
      const result = await handshake(s, { servername: 'a.example.com' })
      assert.ok(result.ok && result.protocol === 'TLSv1.3')
      assert.equal(peerCn(result), 'a.example.com')
    } finally {
      await s.close()
    }
  })

  it('reports a broken SNI pair naming the file', async () => {
    const bad = { certFile: entries[0]!.certFile, keyFile: entries[1]!.keyFile, names: [] }
    await assert.rejects(prepareServing({ ...baseOptions(path.join(dir, 'certs')), sniCertKeys: [bad] }), (err: unknown) => {
      assert.match((err as Error).message, /^--tls-sni-cert-key key .*exact\.key does not match --tls-sni-cert-key certificate .*claims-a2\.crt$/)
      assert.equal((err as Error).name, 'TlsConfigError')
      return true
    })
  })
})

describe('server/tls: SNI name rules', () => {
  const cert = (index: number, explicitNames: string[], certificateNames: string[]): SniCertificate =>
    ({ index, explicitNames, certificateNames, pair: {} as SniCertificate['pair'], context: {} as SniCertificate['context'] })

  it('uses IPs and names canonically, ignoring case and trailing dots', () => {
    const map = buildNameMap([cert(0, ['10.0.0.1', '2001:db8::1', 'host.example'], [])])
    assert.equal(lookupName(map, '10.0.0.1')?.index, 0)
    assert.equal(lookupName(map, '2001:0db8:0:0:0:0:0:1')?.index, 0)
    assert.equal(lookupName(map, '::ffff:10.0.0.1')?.index, 0)
    assert.equal(lookupName(map, 'HOST.example.')?.index, 0)
    assert.equal(lookupName(map, '10.0.0.2'), undefined)
    assert.equal(lookupName(map, ''), undefined)
  })

  it('does not apply wildcards to IP addresses', () => {
    const map = buildNameMap([cert(0, ['*.0.0.1'], [])])
    assert.equal(lookupName(map, '10.0.0.1'), undefined)
  })

  it('gives explicit names precedence regardless of order', () => {
    const map = buildNameMap([cert(0, [], ['x.test']), cert(1, ['x.test'], [])])
    assert.equal(lookupName(map, 'x.test')?.index, 1)
  })
})
