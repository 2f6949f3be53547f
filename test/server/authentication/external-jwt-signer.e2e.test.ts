/**
 * --service-account-signing-endpoint end to end: a test signer speaking the reference's
 * ExternalJWTSigner v1 protocol on a Unix socket signs the token `kubectl create token` asks
 * for, the token authenticates as the service account, and the issuer's JWKS publishes the
 * signer's keys under its key ids (not those excluded from discovery). The reference's checks:
 * the signer's maximum lifetime caps --service-account-max-token-expiration, and an
 * unreachable signer stops the server.
 */
import assert from 'node:assert/strict'
import { createPublicKey, generateKeyPairSync } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { compactVerify, decodeJwt, decodeProtectedHeader } from 'jose'
import { ApiServer, startExpectingFailure } from '../../support/api-server.js'
import { freePorts } from '../../support/etcd.js'
import { TestJwtSigner } from '../../support/external-jwt-signer.js'
import { KUBECTL } from '../../support/kubectl-session.js'
import { kubectl, whoami, writeKubeconfig } from './helpers.js'

const ISSUER = 'https://issuer.example.com'

describe('authentication: the external JWT signer (end to end)', function () {
  this.timeout(180_000)
  let dir: string

  before(function () {
    if (!existsSync(KUBECTL)) {
      if (process.env.CI) throw new Error(`${KUBECTL} is missing`)
      this.skip()
    }
    dir = mkdtempSync(join(tmpdir(), 'external-signer-'))
  })
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('signs the token kubectl create token asks for, which authenticates; the JWKS publishes the signer keys', async () => {
    const retired = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey
    const signer = await TestJwtSigner.start({ keyId: 'signer-key-7', excludedKeys: [{ keyId: 'retired-key', key: retired }] })
    let server: ApiServer | undefined
    try {
      server = await ApiServer.start({
        admin: true,
        waitFor: 'ready',
        args: [`--service-account-issuer=${ISSUER}`, `--service-account-signing-endpoint=${signer.socketPath}`],
      })
      assert.ok(signer.calls.fetchKeys >= 1 && signer.calls.metadata >= 1, JSON.stringify(signer.calls))
      const adminConfig = writeKubeconfig(dir, 'admin', server.port, server.admin())
      const created = await kubectl(adminConfig, dir, 'create', 'serviceaccount', 'robot')
      assert.equal(created.code, 0, created.stderr)
      const run = await kubectl(adminConfig, dir, 'create', 'token', 'robot')
      assert.equal(run.code, 0, `${run.stderr}\n${server.logs.slice(-2000)}`)
      const token = run.stdout.trim()
      assert.equal(signer.calls.sign, 1)
      assert.deepEqual(decodeProtectedHeader(token), { alg: 'ES256', kid: 'signer-key-7', typ: 'JWT' })
      await compactVerify(token, signer.publicKey)
      const claims = decodeJwt(token)
      assert.equal(claims.iss, ISSUER)
      assert.equal(claims.sub, 'system:serviceaccount:default:robot')
      assert.deepEqual(signer.signed[0], claims, 'the token carries the payload the signer was given')

      const { userInfo, run: who } = await whoami(dir, server.port, { token }, 'robot')
      assert.equal(userInfo?.username, 'system:serviceaccount:default:robot', who.stderr)

      const jwks = JSON.parse((await server.get('/openid/v1/jwks')).body) as { keys: Array<Record<string, string>> }
      assert.deepEqual(jwks.keys.map((k) => [k.kid, k.alg, k.use]), [['signer-key-7', 'ES256', 'sig']])
      const published = createPublicKey({ key: jwks.keys[0] as never, format: 'jwk' })
      assert.ok(published.equals(signer.publicKey))
    } finally {
      await server?.stop()
      await signer.stop()
    }
  })

  it('refuses a --service-account-max-token-expiration longer than the signer supports', async () => {
    const signer = await TestJwtSigner.start({ maxTokenExpirationSeconds: 3600 })
    try {
      const { code, output } = await startExpectingFailure([
        '--bind-address=127.0.0.1',
        `--secure-port=${(await freePorts(1))[0]}`,
        `--cert-dir=${join(dir, 'certs-max')}`,
        `--data-dir=${join(dir, 'data-max')}`,
        `--service-account-issuer=${ISSUER}`,
        `--service-account-signing-endpoint=${signer.socketPath}`,
        '--service-account-max-token-expiration=2h',
      ])
      assert.notEqual(code, 0)
      assert.match(output, /service-account-max-token-expiration cannot be set longer than the token expiration supported by service-account-signing-endpoint: 2h0m0s > 1h0m0s/)
    } finally {
      await signer.stop()
    }
  })

  it('does not start when the signer cannot be reached', async () => {
    const { code, output } = await startExpectingFailure([
      '--bind-address=127.0.0.1',
      `--secure-port=${(await freePorts(1))[0]}`,
      `--cert-dir=${join(dir, 'certs-none')}`,
      `--data-dir=${join(dir, 'data-none')}`,
      `--service-account-issuer=${ISSUER}`,
      `--service-account-signing-endpoint=${join(dir, 'absent.sock')}`,
    ])
    assert.notEqual(code, 0)
    assert.match(output, /while setting up external-jwt-signer: while initially filling key cache: while performing initial cache fill: while fetching token verification keys: while getting externally supported jwt signing keys: rpc error: code = Unavailable/)
  })
})
