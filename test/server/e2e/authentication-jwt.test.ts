/**
 * End to end with the real kubectl 1.35 against the built server: an OIDC ID token from a test
 * issuer served over HTTPS (--oidc-* and --authentication-config with CEL), and a token
 * answered by a test webhook (and its cache); `kubectl auth whoami -o json` shows who the
 * token is. Each bad credential is a 401 (kubectl: "You must be logged in to the server
 * (Unauthorized)"), never anonymous access.
 */
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'mocha'

import { ApiServer, startExpectingFailure } from '../../support/api-server.js'
import { KUBECTL } from '../../support/kubectl-session.js'
import { kubectl, whoami } from '../authentication/helpers.js'
import { OidcIssuer, signingKey } from '../../support/oidc-issuer.js'
import { TokenWebhook } from '../../support/token-webhook.js'

const UNAUTHORIZED = /^error: You must be logged in to the server \(Unauthorized\)$/m

/** A server and a directory for the kubeconfigs of the tokens it is shown. */
class Session {
  private constructor(
    readonly server: ApiServer,
    readonly dir: string,
  ) {}

  static async open(ctx: Mocha.Context, args: string[]): Promise<Session> {
    if (!existsSync(KUBECTL)) {
      if (process.env.CI) throw new Error(`${KUBECTL} is missing: the kubectl end-to-end tests cannot run in CI`)
      ctx.skip()
    }
    const server = await ApiServer.start({ args, admin: true, waitFor: 'ready' })
    return new Session(server, mkdtempSync(join(tmpdir(), 'e2e-authn-jwt-kubeconfigs-')))
  }

  /** `kubectl auth whoami -o json` with the token: the user info the server saw. */
  async whoami(token: string): Promise<Record<string, unknown>> {
    const { userInfo, run } = await whoami(this.dir, this.server.port, { token })
    assert.ok(userInfo, `kubectl auth whoami failed: ${run.stderr}`)
    return userInfo
  }

  /** The token gets 401: kubectl says the user must log in. */
  async refused(token: string): Promise<void> {
    const { userInfo, run } = await whoami(this.dir, this.server.port, { token })
    assert.equal(userInfo, undefined, 'the token was accepted')
    assert.match(run.stderr, UNAUTHORIZED)
  }

  /** The administrator creates a TokenReview of the token (the TokenReview API); returns its status. */
  async tokenReview(token: string): Promise<{ authenticated?: boolean; user?: Record<string, unknown>; error?: string }> {
    const file = join(this.dir, 'tokenreview.json')
    writeFileSync(file, JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } }))
    const run = await kubectl(this.server.adminKubeconfig, this.dir, 'create', '-f', file, '-o', 'json')
    assert.equal(run.code, 0, `kubectl create tokenreview failed: ${run.stderr}`)
    return (JSON.parse(run.stdout) as { status: { authenticated?: boolean; user?: Record<string, unknown>; error?: string } }).status
  }

  /** Waits (up to 10 s: the log is flushed periodically) for the server's log to match. */
  async logged(pattern: RegExp): Promise<void> {
    const deadline = Date.now() + 10_000
    while (!pattern.test(this.server.logs)) {
      if (Date.now() > deadline) assert.fail(`the server log does not match ${pattern}:\n${this.server.logs.slice(-3000)}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  async close(): Promise<void> {
    await this.server.stop()
    rmSync(this.dir, { recursive: true, force: true })
  }
}

describe('e2e: JWT, structured authentication configuration and token webhook (kubectl 1.35)', function () {
  this.timeout(120_000)
  let issuer: OidcIssuer
  let dir: string

  before(async () => {
    issuer = await OidcIssuer.start()
    dir = mkdtempSync(join(tmpdir(), 'e2e-authn-jwt-'))
  })
  after(async () => {
    await issuer.close()
    rmSync(dir, { recursive: true, force: true })
  })

  describe('--oidc-* options', () => {
    let session: Session
    before(async function () {
      const ca = join(dir, 'oidc-ca.pem')
      writeFileSync(ca, issuer.tls.caPem)
      session = await Session.open(this, [
          `--oidc-issuer-url=${issuer.url}`,
          '--oidc-client-id=client-a',
          `--oidc-ca-file=${ca}`,
          '--oidc-username-claim=email',
          '--oidc-groups-claim=groups',
          '--oidc-required-claim=hd=example.com',
          '--v=2',
      ])
    })
    after(() => session?.close())

    it('recognises an ID token signed by the issuer (email claim, no prefix; groups)', async () => {
      const token = await issuer.token({ email: 'alice@example.com', email_verified: true, groups: ['dev', 'ops'], hd: 'example.com' })
      assert.deepEqual(await session.whoami(token), { username: 'alice@example.com', groups: ['dev', 'ops', 'system:authenticated'] })
    })

    it('answers a TokenReview of an ID token, and of a refused one', async () => {
      const token = await issuer.token({ email: 'erin@example.com', hd: 'example.com' })
      const accepted = await session.tokenReview(token)
      assert.equal(accepted.authenticated, true)
      assert.deepEqual(accepted.user, { username: 'erin@example.com', groups: ['system:authenticated'] })
      const refused = await session.tokenReview(await issuer.token({ email: 'erin@example.com' }))
      assert.notEqual(refused.authenticated, true)
      assert.ok(refused.error, 'the refusal carries an error')
    })

    it('refuses a wrong signature, a wrong audience, an expired token and a missing required claim with 401', async () => {
      const claims = { email: 'mallory@example.com', hd: 'example.com' }
      await session.refused(await issuer.token(claims, { key: await signingKey('key-1') }))
      await session.refused(await issuer.token({ ...claims, aud: 'someone-else' }))
      await session.refused(await issuer.token(claims, { expiresIn: -120 }))
      await session.refused(await issuer.token({ email: 'mallory@example.com' }))
      await session.refused('not-a-jwt')
      // The reasons are the reference's, in the server's log only.
      await session.logged(/Unable to authenticate the request: oidc: required claim hd not present in ID token/)
      await session.logged(/Unable to authenticate the request: oidc: verify token: oidc: expected audience "client-a" got \["someone-else"\]/)
    })
  })

  describe('--authentication-config with CEL', () => {
    let session: Session
    let configFile: string
    const config = (usernamePrefix: string) => `apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: ${issuer.url}
    audiences: [client-a, client-b]
    audienceMatchPolicy: MatchAny
    certificateAuthority: ${JSON.stringify(issuer.tls.caPem)}
  claimValidationRules:
  - expression: "claims.tier in ['gold', 'silver']"
    message: tier must be gold or silver
  claimMappings:
    username:
      expression: "'${usernamePrefix}' + claims.sub"
    groups:
      expression: "claims.roles.map(r, 'role:' + r)"
    uid:
      expression: "claims.sub + '-uid'"
    extra:
    - key: example.org/tier
      valueExpression: claims.tier
  userValidationRules:
  - expression: "!user.username.startsWith('cel:system:')"
    message: no system users from this issuer
`
    before(async function () {
      configFile = join(dir, 'authentication-config.yaml')
      writeFileSync(configFile, config('cel:'))
      session = await Session.open(this, [`--authentication-config=${configFile}`, '--v=2'])
    })
    after(() => session?.close())

    it('maps username, uid, groups and extra with CEL expressions', async () => {
      const token = await issuer.token({ aud: 'client-b', sub: 'bob', roles: ['reader'], tier: 'gold' })
      assert.deepEqual(await session.whoami(token), {
        username: 'cel:bob',
        uid: 'bob-uid',
        groups: ['role:reader', 'system:authenticated'],
        extra: { 'example.org/tier': ['gold'] },
      })
    })

    it('refuses a token failing a claim or user validation rule with 401', async () => {
      await session.refused(await issuer.token({ sub: 'carol', roles: [], tier: 'bronze' }))
      await session.refused(await issuer.token({ sub: 'system:carol', roles: [], tier: 'gold' }))
      await session.refused(await issuer.token({ aud: 'client-c', sub: 'carol', roles: [], tier: 'gold' }))
      await session.logged(/validation expression 'claims\.tier in \['gold', 'silver'\]' failed: tier must be gold or silver/)
      await session.logged(/validation expression '!user\.username\.startsWith\('cel:system:'\)' failed: no system users from this issuer/)
    })

    it('applies a change of the file without a restart', async () => {
      writeFileSync(configFile, config('reloaded:'))
      const token = await issuer.token({ sub: 'dora', roles: [], tier: 'silver' })
      const deadline = Date.now() + 20_000
      let user = (await session.whoami(token)).username
      while (user !== 'reloaded:dora' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250))
        user = (await session.whoami(token)).username
      }
      assert.equal(user, 'reloaded:dora')
    })
  })

  describe('--authentication-token-webhook-config-file', () => {
    let session: Session
    let webhook: TokenWebhook
    before(async function () {
      webhook = await TokenWebhook.start()
      webhook.users.set('webhook-good', { username: 'hook-user', uid: 'h-1', groups: ['hookers'] })
      session = await Session.open(this, [
        `--authentication-token-webhook-config-file=${webhook.kubeconfig(dir)}`,
        '--authentication-token-webhook-version=v1',
        '--authentication-token-webhook-cache-ttl=1h',
      ])
    })
    after(async () => {
      await session?.close()
      await webhook?.close()
    })

    it('recognises a token the webhook accepts, and answers again from the cache', async () => {
      assert.deepEqual(await session.whoami('webhook-good'), { username: 'hook-user', uid: 'h-1', groups: ['hookers', 'system:authenticated'] })
      // No --api-audiences: the server's audience is its default service-account issuer.
      assert.deepEqual(webhook.reviews.at(-1)!.spec.audiences, ['https://kubernetes.default.svc.cluster.local'])
      const reviews = webhook.reviews.filter((r) => r.spec.token === 'webhook-good').length
      assert.equal(reviews, 1)
      assert.equal(webhook.reviews.at(-1)!.apiVersion, 'authentication.k8s.io/v1')
      assert.equal((await session.whoami('webhook-good')).username, 'hook-user')
      assert.equal(webhook.reviews.filter((r) => r.spec.token === 'webhook-good').length, 1, 'the second request was answered from the cache')
    })

    it('refuses a token the webhook denies, and every token while the webhook fails, with 401', async () => {
      await session.refused('webhook-unknown')
      webhook.failWith = 500
      try {
        await session.refused('webhook-other')
      } finally {
        webhook.failWith = undefined
      }
    })
  })

  describe('the anonymous section of --authentication-config', () => {
    let server: ApiServer
    before(async () => {
      const file = join(dir, 'anonymous.yaml')
      writeFileSync(file, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\nanonymous:\n  enabled: true\n  conditions:\n  - path: /livez\n  - path: /readyz\n')
      server = await ApiServer.start({ args: [`--authentication-config=${file}`] })
    })
    after(() => server?.stop())

    it('lets anonymous requests reach the listed paths only', async () => {
      assert.equal((await server.waitUntil('/livez', 200)).body, 'ok')
      const api = await server.get('/api', {}, 'GET', undefined, 'anonymous')
      assert.equal(api.status, 401)
      assert.equal(JSON.parse(api.body).message, 'Unauthorized')
    })

    it('cannot be combined with --anonymous-auth', async () => {
      const file = join(dir, 'anonymous.yaml')
      const { code, output } = await startExpectingFailure([`--authentication-config=${file}`, '--anonymous-auth=true'])
      assert.equal(code, 1)
      assert.match(output, /anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file/)
    })
  })

  describe('start-up errors', () => {
    it('a malformed --authentication-config stops the server with a message naming the file and line', async () => {
      const bad = join(dir, 'bad.yaml')
      writeFileSync(bad, 'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\njwt:\n  - issuer: [\n')
      const { code, output } = await startExpectingFailure([`--authentication-config=${bad}`])
      assert.equal(code, 1)
      assert.match(output, new RegExp(`failed to load authentication configuration from file "${bad.replace(/[.]/g, '\\.')}": error converting YAML to JSON: yaml: line \\d+: `))
      assert.doesNotMatch(output, /\n\s+at /)
    })

    it('an invalid configuration stops the server with the reference field errors', async () => {
      const invalid = join(dir, 'invalid.yaml')
      writeFileSync(invalid, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt:\n- issuer:\n    url: http://issuer.example.com\n    audiences: [a]\n  claimMappings:\n    username: {expression: "claims.nope +"}\n')
      const { code, output } = await startExpectingFailure([`--authentication-config=${invalid}`])
      assert.equal(code, 1)
      assert.match(output, /invalid authentication configuration: \[jwt\[0\]\.issuer\.url: Invalid value: "http:\/\/issuer\.example\.com": URL scheme must be https, jwt\[0\]\.claimMappings\.username\.expression: Invalid value: "claims\.nope \+": compilation failed: ERROR: <input>:1:/)
    })

    it('an unreadable webhook configuration stops the server', async () => {
      const { code, output } = await startExpectingFailure([`--authentication-token-webhook-config-file=${join(dir, 'missing.kubeconfig')}`])
      assert.equal(code, 1)
      assert.match(output, /--authentication-token-webhook-config-file .*missing\.kubeconfig: /)
    })
  })
})
