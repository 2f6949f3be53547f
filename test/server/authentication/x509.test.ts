import assert from 'node:assert/strict'
import { X509Certificate, createPrivateKey } from 'node:crypto'
import { AuthenticationConfigError, AuthenticationError } from '../../../src/server/authentication/authenticator.js'
import { mergeBundles, parseCaBundle, verifyClientChain, x509Authenticator } from '../../../src/server/authentication/x509.js'
import type { Request } from '../../../src/server/http/types.js'
import { createLeafCertificate, generateKey } from '../../../src/server/tls/generate.js'
import { makeCa, makeClientCert, type TestCa } from './helpers.js'

const DAY = 86400_000

describe('authentication: x509 chain verification', function () {
  this.timeout(30_000)
  let ca: TestCa
  let other: TestCa
  before(async () => {
    ca = await makeCa('root')
    other = await makeCa('other')
  })
  const x = (pem: string) => new X509Certificate(pem)

  it('accepts a client certificate of a trusted CA and returns the chain up to it', async () => {
    const leaf = await makeClientCert(ca, 'jane', ['g'])
    const chain = verifyClientChain([x(leaf.cert)], [x(other.certPem), x(ca.certPem)])
    assert.deepEqual(chain.map((c) => c.subject), ['O=g\nCN=jane', 'CN=root'])
  })

  it('refuses a certificate of another CA, an expired one and a server-only one with Go\'s reasons', async () => {
    const foreign = await makeClientCert(other, 'mallory')
    assert.throws(() => verifyClientChain([x(foreign.cert)], [x(ca.certPem)]), (err: Error) => err instanceof AuthenticationError && /x509: certificate signed by unknown authority$/.test(err.message))
    const now = Date.now()
    const expired = await makeClientCert(ca, 'old', [], { notBefore: new Date(now - 3 * DAY), notAfter: new Date(now - DAY) })
    assert.throws(() => verifyClientChain([x(expired.cert)], [x(ca.certPem)]), /x509: certificate has expired or is not yet valid: current time \S+ is after \S+/)
    const server = await makeClientCert(ca, 'srv', [], { usage: 'server' })
    assert.throws(() => verifyClientChain([x(server.cert)], [x(ca.certPem)]), /x509: certificate specifies an incompatible key usage/)
  })

  it('refuses a chain through a certificate the client sends along that is not a CA', async () => {
    const leafOfLeaf = await generateKey('ecdsa')
    const notCa = await makeClientCert(ca, 'not-a-ca')
    const grandchild = await createLeafCertificate({
      ca: { certPem: notCa.cert, privateKey: createPrivateKey(notCa.key) },
      publicKey: leafOfLeaf.publicKey,
      commonName: 'sneaky',
      dns: [],
      ips: [],
      usage: 'client',
      notBefore: new Date(Date.now() - DAY),
      notAfter: new Date(Date.now() + DAY),
    })
    assert.throws(() => verifyClientChain([x(grandchild), x(notCa.cert)], [x(ca.certPem)]), /certificate signed by unknown authority/)
  })

  it('re-verifies a connection\'s certificate once the time leaves its validity, and hands out copies of the user', async () => {
    const now = Date.now()
    const leaf = await makeClientCert(ca, 'jane', ['team'], { notBefore: new Date(now - DAY), notAfter: new Date(now + DAY) })
    const der = x(leaf.cert).raw
    // One connection presenting the certificate (the verification is remembered per certificate).
    const socket = { getPeerCertificate: () => ({ raw: der }) }
    const req = { socket } as unknown as Request
    const authn = await x509Authenticator(parseCaBundle(ca.certPem, 'ca.crt'))
    const first = authn.authenticate(req, {} as never) as { user: { name: string; groups: string[]; extra: Record<string, string[]> } }
    assert.equal(first.user.name, 'jane')
    assert.deepEqual(first.user.groups, ['team'])
    first.user.groups.push('system:masters')
    first.user.extra['authentication.kubernetes.io/credential-id']!.push('changed')
    const second = authn.authenticate(req, {} as never) as { user: { groups: string[]; extra: Record<string, string[]> } }
    assert.deepEqual(second.user.groups, ['team'])
    assert.equal(second.user.extra['authentication.kubernetes.io/credential-id']!.length, 1)
    const realNow = Date.now
    try {
      Date.now = () => now + 2 * DAY
      assert.throws(() => authn.authenticate(req, {} as never), /x509: certificate has expired or is not yet valid/)
      Date.now = () => now - 2 * DAY
      assert.throws(() => authn.authenticate(req, {} as never), /x509: certificate has expired or is not yet valid/)
    } finally {
      Date.now = realNow
    }
    assert.equal((authn.authenticate(req, {} as never) as { user: { name: string } }).user.name, 'jane')
  })

  it('reads CA bundles, naming the line of a block that does not parse', () => {
    const bundle = parseCaBundle(`# team CAs\n${ca.certPem}${other.certPem}`, 'ca.crt')
    assert.equal(bundle.certs.length, 2)
    assert.equal(mergeBundles([bundle, parseCaBundle(ca.certPem, 'again')])!.certs.length, 2)
    assert.throws(() => parseCaBundle(`${ca.certPem}\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`, 'bad.crt'), (err: Error) => err instanceof AuthenticationConfigError && /^bad\.crt: line \d+: the certificate does not parse/.test(err.message))
    assert.throws(() => parseCaBundle('nothing here', 'empty.crt'), new AuthenticationConfigError('empty.crt: data does not contain any valid RSA or ECDSA certificates'))
  })
})
