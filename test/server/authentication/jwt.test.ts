/**
 * The JWT authenticator against a real HTTPS test issuer (discovery and JWKS): accepted tokens
 * map to users through claims or CEL; every bad token is refused with the reference's reason.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'mocha'

import { decodeAuthenticationConfig, oidcOptionsConfig, validateAuthenticationConfig } from '../../../src/core/config-files/authentication-config.js'
import { ALL_SIGNING_ALGS, JwtAuthenticator, untrustedIssuer } from '../../../src/server/authentication/jwt.js'
import { JwtIssuers } from '../../../src/server/authentication/jwt-issuers.js'
import { OidcIssuer, signingKey } from '../../support/oidc-issuer.js'

const quietLog = { error: () => undefined, v: () => undefined, info: () => undefined }

/** Polls an async condition every 100 ms, failing after `timeoutMs`. */
async function eventually(what: string, condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (err) {
    return (err as Error).message
  }
  assert.fail('the token was accepted')
}

describe('server/authentication/jwt', () => {
  let issuer: OidcIssuer

  before(async () => {
    issuer = await OidcIssuer.start()
  })
  after(() => issuer.close())

  function flagsAuthenticator(extra: Partial<Parameters<typeof oidcOptionsConfig>[0]> = {}, algs = ['RS256']): JwtAuthenticator {
    const config = oidcOptionsConfig({
      issuerUrl: issuer.url,
      clientId: 'client-a',
      usernameClaim: 'sub',
      requiredClaims: {},
      signingAlgs: algs,
      ...extra,
    })
    config.jwt[0]!.spec.issuer.certificateAuthority = issuer.tls.caPem
    return new JwtAuthenticator(config.jwt[0]!, algs)
  }

  function fileAuthenticator(yaml: string): JwtAuthenticator {
    const text = `apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\njwt:\n- issuer:\n    url: ${issuer.url}\n    certificateAuthority: ${JSON.stringify(issuer.tls.caPem)}\n${yaml}`
    const config = validateAuthenticationConfig(decodeAuthenticationConfig(text))
    return new JwtAuthenticator(config.jwt[0]!, ALL_SIGNING_ALGS)
  }

  it('reads the issuer of a compact JWT without trusting it', async () => {
    assert.equal(untrustedIssuer(await issuer.token({})), issuer.url)
    assert.equal(untrustedIssuer('not-a-jwt'), undefined)
    assert.equal(untrustedIssuer('{"iss":"x"}'), undefined)
  })

  describe('with the --oidc-* options', () => {
    let authenticator: JwtAuthenticator
    before(async () => {
      authenticator = flagsAuthenticator({ groupsClaim: 'groups', groupsPrefix: 'oidc:', requiredClaims: { hd: 'example.com' } })
      await authenticator.start()
      assert.ok(authenticator.initialized, 'discovery succeeded')
    })
    after(() => authenticator.close())

    it('maps sub (prefixed with the issuer URL) and groups (prefixed), after checking the required claim', async () => {
      const token = await issuer.token({ sub: 'alice', groups: ['dev', 'ops'], hd: 'example.com' })
      assert.deepEqual(await authenticator.authenticateToken(token), { user: { name: `${issuer.url}#alice`, groups: ['oidc:dev', 'oidc:ops'] } })
    })

    it('accepts a single string as the groups claim', async () => {
      const token = await issuer.token({ sub: 'bob', groups: 'admins', hd: 'example.com' })
      assert.deepEqual((await authenticator.authenticateToken(token))?.user.groups, ['oidc:admins'])
    })

    it('ignores tokens of other issuers', async () => {
      const token = await issuer.token({ iss: 'https://elsewhere.example.com', hd: 'example.com' })
      assert.equal(await authenticator.authenticateToken(token), null)
    })

    it('refuses a wrong audience, an expired token, a missing or different required claim', async () => {
      assert.equal(
        await refusal(authenticator.authenticateToken(await issuer.token({ aud: 'other', hd: 'example.com' }))),
        'oidc: verify token: oidc: expected audience "client-a" got ["other"]',
      )
      assert.match(await refusal(authenticator.authenticateToken(await issuer.token({ hd: 'example.com' }, { expiresIn: -60 }))), /^oidc: verify token: oidc: token is expired \(Token Expiry: /)
      assert.equal(await refusal(authenticator.authenticateToken(await issuer.token({}))), 'oidc: required claim hd not present in ID token')
      assert.equal(
        await refusal(authenticator.authenticateToken(await issuer.token({ hd: 'evil.com' }))),
        'oidc: required claim hd value does not match. Got = evil.com, want = example.com',
      )
    })

    it('refuses a token signed by a key the issuer does not publish', async () => {
      const stranger = await signingKey('key-1')
      const message = await refusal(authenticator.authenticateToken(await issuer.token({ hd: 'example.com' }, { key: stranger })))
      assert.match(message, /^oidc: verify token: failed to verify signature: /)
    })

    it('refuses an algorithm outside --oidc-signing-algs', async () => {
      const es = await signingKey('key-es', 'ES256')
      issuer.published = [issuer.key, es]
      try {
        const message = await refusal(authenticator.authenticateToken(await issuer.token({ hd: 'example.com' }, { key: es })))
        assert.equal(message, 'oidc: verify token: oidc: id token signed with unsupported algorithm, expected ["RS256"] got "ES256"')
      } finally {
        issuer.published = [issuer.key]
      }
    })

    it('fetches the keys again for a key id it has not seen (rotation)', async () => {
      const rotated = await signingKey('key-2')
      issuer.published = [issuer.key, rotated]
      try {
        const before = issuer.hits['/keys'] ?? 0
        const token = await issuer.token({ sub: 'carol', hd: 'example.com' }, { key: rotated })
        // Refetches are spaced by a few seconds; retry until the new key is picked up.
        await eventually('the rotated key', async () => (await authenticator.authenticateToken(token).catch(() => null)) !== null, 10_000)
        assert.ok((issuer.hits['/keys'] ?? 0) > before, 'the key set was fetched again')
      } finally {
        issuer.published = [issuer.key]
      }
    })
  })

  describe('with the structured configuration', () => {
    it('maps username, groups, uid and extra with CEL and passes the validation rules', async () => {
      const authenticator = fileAuthenticator(`    audiences: [client-a, client-b]
    audienceMatchPolicy: MatchAny
  claimValidationRules:
  - expression: "claims.hd == 'example.com'"
    message: the hosted domain must be example.com
  claimMappings:
    username:
      expression: "'oidc:' + claims.sub"
    groups:
      expression: "claims.roles.map(r, 'role:' + r)"
    uid:
      expression: "claims.sub + '-uid'"
    extra:
    - key: example.org/tenant
      valueExpression: "claims.tenant"
    - key: example.org/empty
      valueExpression: "''"
  userValidationRules:
  - expression: "!user.username.startsWith('oidc:system:')"
    message: no system users
`)
      await authenticator.start()
      try {
        const token = await issuer.token({ aud: ['client-b'], sub: 'dave', roles: ['reader', 'writer'], tenant: 'blue', hd: 'example.com' })
        assert.deepEqual(await authenticator.authenticateToken(token), {
          user: { name: 'oidc:dave', uid: 'dave-uid', groups: ['role:reader', 'role:writer'], extra: { 'example.org/tenant': ['blue'] } },
        })
        assert.equal(
          await refusal(authenticator.authenticateToken(await issuer.token({ sub: 'eve', roles: [], tenant: 't', hd: 'other.com' }))),
          "oidc: error evaluating claim validation expression: validation expression 'claims.hd == 'example.com'' failed: the hosted domain must be example.com",
        )
        assert.equal(
          await refusal(authenticator.authenticateToken(await issuer.token({ sub: 'system:x', roles: [], tenant: 't', hd: 'example.com' }))),
          "oidc: error evaluating user info validation rule: validation expression '!user.username.startsWith('oidc:system:')' failed: no system users",
        )
        assert.equal(
          await refusal(authenticator.authenticateToken(await issuer.token({ aud: 'client-c', hd: 'example.com' }))),
          'oidc: verify token: oidc: expected audience in ["client-a","client-b"] got ["client-c"]',
        )
        assert.match(
          await refusal(authenticator.authenticateToken(await issuer.token({ sub: 'frank', tenant: 't', hd: 'example.com' }))),
          /^oidc: error evaluating group claim expression: /,
        )
      } finally {
        authenticator.close()
      }
    })

    it('refuses an unverified email used as the username claim', async () => {
      const authenticator = fileAuthenticator(`    audiences: [client-a]
  claimMappings:
    username:
      claim: email
      prefix: ""
`)
      await authenticator.start()
      try {
        const ok = await authenticator.authenticateToken(await issuer.token({ email: 'gina@example.com', email_verified: true }))
        assert.equal(ok?.user.name, 'gina@example.com')
        assert.equal(await refusal(authenticator.authenticateToken(await issuer.token({ email: 'gina@example.com', email_verified: false }))), 'oidc: email not verified')
      } finally {
        authenticator.close()
      }
    })
  })

  it('answers "not initialized" while the issuer cannot be reached', async () => {
    const unreachable = await OidcIssuer.start({ tls: issuer.tls })
    const url = unreachable.url
    await unreachable.close()
    const config = oidcOptionsConfig({ issuerUrl: url, clientId: 'client-a', usernameClaim: 'sub', requiredClaims: {}, signingAlgs: ['RS256'] })
    config.jwt[0]!.spec.issuer.certificateAuthority = issuer.tls.caPem
    const authenticator = new JwtAuthenticator(config.jwt[0]!, ['RS256'])
    await authenticator.start()
    try {
      assert.equal(authenticator.initialized, false)
      const token = await issuer.token({ iss: url })
      assert.equal(await refusal(authenticator.authenticateToken(token)), 'oidc: authenticator not initialized')
    } finally {
      authenticator.close()
    }
  })

  it('refuses an issuer whose certificate the configured CA did not sign', async () => {
    const config = oidcOptionsConfig({ issuerUrl: issuer.url, clientId: 'client-a', usernameClaim: 'sub', requiredClaims: {}, signingAlgs: ['RS256'] })
    const other = await OidcIssuer.start()
    config.jwt[0]!.spec.issuer.certificateAuthority = other.tls.caPem
    await other.close()
    const authenticator = new JwtAuthenticator(config.jwt[0]!, ['RS256'])
    await authenticator.start()
    authenticator.close()
    assert.equal(authenticator.initialized, false)
  })

  describe('reloading --authentication-config', () => {
    let dir: string
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'authn-reload-'))
    })
    after(() => rmSync(dir, { recursive: true, force: true }))

    const file = (prefix: string) => `apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: ${issuer.url}
    audiences: [client-a]
    certificateAuthority: ${JSON.stringify(issuer.tls.caPem)}
  claimMappings:
    username:
      claim: sub
      prefix: "${prefix}"
`

    it('applies a valid change and keeps the running configuration on a bad one', async () => {
      const path = join(dir, 'authn.yaml')
      writeFileSync(path, file('first:'))
      const issuers = new JwtIssuers({ authenticationConfigFile: path, serviceAccountIssuers: [], log: quietLog })
      await issuers.start()
      try {
        const token = await issuer.token({ sub: 'henry' })
        assert.equal((await issuers.authenticateToken(token))?.user.name, 'first:henry')
        writeFileSync(path, file('second:'))
        await eventually('the reload', async () => (await issuers.authenticateToken(token))?.user.name === 'second:henry', 10_000)
        writeFileSync(path, 'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\njwt:\n- issuer: {url: "http://bad"}\n')
        await issuers.reload()
        assert.equal((await issuers.authenticateToken(token))?.user.name, 'second:henry')
      } finally {
        issuers.stop()
      }
    })
  })
})
