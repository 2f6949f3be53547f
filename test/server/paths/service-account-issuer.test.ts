import assert from 'node:assert/strict'
import { createHash, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Mux } from '../../../src/server/http/mux.js'
import {
  JWKS_PATH,
  OPENID_CONFIG_PATH,
  OpenIDMetadataError,
  installServiceAccountIssuer,
  serviceAccountIssuerDocuments,
  serviceAccountIssuerHandlers,
} from '../../../src/server/paths/service-account-issuer.js'
import { send, serve, type TestServer } from './harness.js'

/** The kid computed independently: the PEM body of a PUBLIC KEY block is the DER SPKI. */
function expectedKid(spkiPem: string): string {
  const der = Buffer.from(spkiPem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64')
  return createHash('sha256').update(der).digest().toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

interface Jwk {
  use: string
  kty: string
  kid: string
  alg: string
  crv?: string
  n?: string
  e?: string
  x?: string
  y?: string
}

describe('server paths: service account issuer', () => {
  let dir: string
  let rsa: { privateKey: KeyObject; publicKey: KeyObject }
  let ec: { privateKey: KeyObject; publicKey: KeyObject }
  let rsaFile: string
  let ecFile: string
  let rsaPublicPem: string
  let ecPublicPem: string
  let server: TestServer
  const issuer = 'https://kubernetes.default.svc.cluster.local'

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sa-issuer-'))
    rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
    ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    rsaPublicPem = rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString()
    ecPublicPem = ec.publicKey.export({ type: 'spki', format: 'pem' }).toString()
    // The RSA key as a PKCS#1 private key (sa.key), the EC one as a public key.
    rsaFile = join(dir, 'sa.key')
    writeFileSync(rsaFile, rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }))
    ecFile = join(dir, 'sa-ec.pub')
    writeFileSync(ecFile, `-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n${ecPublicPem}`)
    server = await serve(installServiceAccountIssuer(new Mux(), { issuers: [issuer, 'https://other'], keyFiles: [rsaFile, ecFile], externalHost: 'api.example.com:6443' }).serve)
  })
  after(async () => {
    await server.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('serves the OIDC discovery document', async () => {
    const reply = await send(OPENID_CONFIG_PATH, { port: server.port })
    assert.equal(reply.status, 200)
    assert.equal(reply.headers['content-type'], 'application/json')
    assert.equal(reply.headers['cache-control'], 'public, max-age=3600')
    assert.equal(
      reply.text,
      '{"issuer":"https://kubernetes.default.svc.cluster.local","jwks_uri":"https://api.example.com:6443/openid/v1/jwks",' +
        '"response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256","RS256"]}',
    )
  })

  it('serves the key set with the reference\'s kids and fields', async () => {
    const reply = await send(JWKS_PATH, { port: server.port })
    assert.equal(reply.status, 200)
    assert.equal(reply.headers['content-type'], 'application/jwk-set+json')
    assert.equal(reply.headers['cache-control'], 'public, max-age=3600')
    const { keys } = JSON.parse(reply.text) as { keys: Jwk[] }
    assert.equal(keys.length, 2)
    const [r, e] = keys
    assert.equal(r.kid, expectedKid(rsaPublicPem))
    assert.match(r.kid, /^[A-Za-z0-9_-]{43}$/)
    const rsaJwk = rsa.publicKey.export({ format: 'jwk' })
    assert.deepEqual(r, { use: 'sig', kty: 'RSA', kid: r.kid, alg: 'RS256', n: rsaJwk.n, e: 'AQAB' })
    assert.equal(e.kid, expectedKid(ecPublicPem))
    const ecJwk = ec.publicKey.export({ format: 'jwk' })
    assert.deepEqual(e, { use: 'sig', kty: 'EC', kid: e.kid, crv: 'P-256', alg: 'ES256', x: ecJwk.x, y: ecJwk.y })
    // go-jose's field order.
    assert.ok(reply.text.startsWith(`{"keys":[{"use":"sig","kty":"RSA","kid":"${r.kid}","alg":"RS256","n":"`), reply.text)
    assert.ok(reply.text.includes(`{"use":"sig","kty":"EC","kid":"${e.kid}","crv":"P-256","alg":"ES256","x":"`))
    assert.ok(!/private|"d"/.test(reply.text), 'no private material')
  })

  it('publishes keys that verify what the private keys sign', async () => {
    const { keys } = JSON.parse((await send(JWKS_PATH, { port: server.port })).text) as { keys: Jwk[] }
    const data = Buffer.from('header.payload')
    const rsaKey = createPublicKey({ key: keys[0] as unknown as import('node:crypto').JsonWebKey, format: 'jwk' })
    assert.ok(verify('sha256', data, rsaKey, sign('sha256', data, rsa.privateKey)))
    const ecKey = createPublicKey({ key: keys[1] as unknown as import('node:crypto').JsonWebKey, format: 'jwk' })
    assert.ok(verify('sha256', data, ecKey, sign('sha256', data, ec.privateKey)))
  })

  it('keeps the kid stable across starts and key file forms', () => {
    const a = serviceAccountIssuerDocuments({ issuers: [issuer], keyFiles: [rsaFile] }).keys[0].kid
    const publicFile = join(dir, 'sa.pub')
    writeFileSync(publicFile, rsaPublicPem)
    const pkcs8File = join(dir, 'sa-pkcs8.key')
    writeFileSync(pkcs8File, rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }))
    const b = serviceAccountIssuerDocuments({ issuers: [issuer], keyFiles: [publicFile] }).keys[0].kid
    const c = serviceAccountIssuerDocuments({ issuers: [issuer], keyFiles: [pkcs8File] }).keys[0].kid
    assert.equal(a, expectedKid(rsaPublicPem))
    assert.equal(b, a)
    assert.equal(c, a)
    // The private key and its public half given together are one key.
    assert.equal(serviceAccountIssuerDocuments({ issuers: [issuer], keyFiles: [rsaFile, publicFile] }).keys.length, 1)
  })

  it('reads an EC private key and names the algorithm by curve', () => {
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' })
    const file = join(dir, 'p384.key')
    writeFileSync(file, p384.privateKey.export({ type: 'sec1', format: 'pem' }))
    const docs = serviceAccountIssuerDocuments({ issuers: [issuer], keyFiles: [file] })
    assert.equal(docs.keys[0].alg, 'ES384')
    assert.equal(docs.keys[0].kid, expectedKid(p384.publicKey.export({ type: 'spki', format: 'pem' }).toString()))
    assert.match(docs.configuration, /"id_token_signing_alg_values_supported":\["ES384"\]/)
  })

  it('builds jwks_uri from the flag, the external host, or the issuer', () => {
    const uri = (o: { jwksUri?: string; externalHost?: string }) =>
      (JSON.parse(serviceAccountIssuerDocuments({ issuers: [`${issuer}/`], keyFiles: [ecFile], ...o }).configuration) as { jwks_uri: string }).jwks_uri
    assert.equal(uri({ jwksUri: 'https://keys.example.com/jwks?a=1&b=2', externalHost: 'ignored' }), 'https://keys.example.com/jwks?a=1&b=2')
    assert.equal(uri({ externalHost: '10.0.0.1:443' }), 'https://10.0.0.1:443/openid/v1/jwks')
    assert.equal(uri({}), 'https://kubernetes.default.svc.cluster.local/openid/v1/jwks')
    // Go's encoding/json escapes & < > in strings.
    assert.match(serviceAccountIssuerDocuments({ issuers: [issuer], keyFiles: [ecFile], jwksUri: 'https://k/j?a=1&b=2' }).configuration, /"jwks_uri":"https:\/\/k\/j\?a=1\\u0026b=2"/)
  })

  it('throws an error naming a key file it cannot read', () => {
    const missing = join(dir, 'missing.key')
    assert.throws(() => serviceAccountIssuerHandlers({ issuers: [issuer], keyFiles: [missing] }), (err: Error) => {
      assert.ok(!(err instanceof OpenIDMetadataError))
      assert.ok(err.message.includes(missing), err.message)
      return true
    })
    const unreadable = join(dir, 'unreadable.key')
    writeFileSync(unreadable, rsaPublicPem)
    chmodSync(unreadable, 0o000)
    if (process.getuid?.() !== 0) {
      assert.throws(() => serviceAccountIssuerHandlers({ issuers: [issuer], keyFiles: [unreadable] }), new RegExp(unreadable.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    }
    const notKeys = join(dir, 'not-keys.pem')
    writeFileSync(notKeys, 'hello\n-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n')
    assert.throws(
      () => serviceAccountIssuerHandlers({ issuers: [issuer], keyFiles: [notKeys] }),
      { message: `error reading service account key file ${notKeys}: data does not contain any valid RSA or ECDSA public keys` },
    )
  })

  it('reports a key file error before an issuer error', () => {
    assert.throws(() => serviceAccountIssuerHandlers({ issuers: ['http://insecure'], keyFiles: [join(dir, 'missing.key')] }), (err: Error) => !(err instanceof OpenIDMetadataError))
  })

  it('rejects what the OIDC rules do with an OpenIDMetadataError', () => {
    const bad: Array<[string[], string | undefined, RegExp]> = [
      [['http://kubernetes.default.svc'], undefined, /issuer URL must use https scheme/],
      [['kubernetes.default.svc'], undefined, /could not parse issuer URL/],
      [['https://issuer?x=1'], undefined, /may not include a query/],
      [['https://issuer#frag'], undefined, /may not include a fragment/],
      [[], undefined, /empty issuer URL/],
      [[issuer], 'http://keys', /jwksURI must use https scheme/],
    ]
    for (const [issuers, jwksUri, message] of bad) {
      assert.throws(() => serviceAccountIssuerHandlers({ issuers, jwksUri, keyFiles: [ecFile] }), (err: Error) => {
        assert.ok(err instanceof OpenIDMetadataError, String(err))
        assert.match(err.message, message)
        return true
      })
    }
    assert.throws(() => serviceAccountIssuerHandlers({ issuers: [issuer], keyFiles: [] }), OpenIDMetadataError)
  })

  it('returns [path, handler] pairs and refuses writes', async () => {
    const pairs = serviceAccountIssuerHandlers({ issuers: [issuer], keyFiles: [ecFile] })
    assert.deepEqual(pairs.map(([p]) => p), [OPENID_CONFIG_PATH, JWKS_PATH])
    const reply = await send(JWKS_PATH, { port: server.port, method: 'POST' })
    assert.equal(reply.status, 405)
  })
})
