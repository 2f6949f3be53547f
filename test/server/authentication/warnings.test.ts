/**
 * The `Warning` headers of odd credentials and the 401 as the reference's authentication gives
 * them: request/bearertoken/bearertoken.go (extra space before the token),
 * pkg/serviceaccount/legacy.go (an auto-generated secret-based token; a secret marked invalid),
 * endpoints/filters/authentication.go (the Unauthorized handler's negotiated Status, and an
 * HTTP/2 connection of an unknown or anonymous client ended after its request).
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { type IncomingHttpHeaders, createServer as createHttp1Server, request } from 'node:http'
import { connect as http2Connect, createServer as createHttp2Server } from 'node:http2'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { anonymousAuthenticator } from '../../../src/server/authentication/anonymous.js'
import { AuthenticationError, type AuthenticationContext, type TokenAuthenticator } from '../../../src/server/authentication/authenticator.js'
import { INVALID_TOKEN_WITH_SPACE_WARNING, bearerTokenAuthenticator } from '../../../src/server/authentication/bearer-token.js'
import { ensureGeneratedSigningKey } from '../../../src/server/authentication/service-account-keys.js'
import { AUTO_GENERATED_TOKEN_WARNING, LEGACY_TOKEN_INVALID_SINCE_LABEL, serviceAccountAuthenticator } from '../../../src/server/authentication/service-account.js'
import { UnionAuthenticator } from '../../../src/server/authentication/union.js'
import { legacyToken } from '../../../src/server/controllers/serviceaccount-token.js'
import { withAuthentication } from '../../../src/server/filters/authentication.js'
import { IncomingContext } from '../../../src/server/http/context.js'
import { decodeRequestPath } from '../../../src/server/http/request-info.js'
import type { Handler, Request } from '../../../src/server/http/types.js'

const GOOD: TokenAuthenticator = { name: 'test', authenticateToken: (token) => (token === 'good' ? { user: { name: 'alice', groups: [] } } : null) }
const warnings = () => {
  const seen: string[] = []
  return { seen, ctx: { audiences: [], path: '/api', warn: (text: string) => seen.push(text) } satisfies AuthenticationContext }
}
const withHeader = (authorization: string) => ({ headers: { authorization } }) as unknown as Request

describe('authentication: warnings and the 401 as the reference gives them', () => {
  it('bearertoken.go: `Bearer  <token>` is no token, and says why', async () => {
    const bearer = bearerTokenAuthenticator([GOOD])
    for (const header of ['Bearer  good', 'Bearer   good', 'bearer  x y']) {
      const { seen, ctx } = warnings()
      assert.equal(await bearer.authenticate(withHeader(header), ctx), null, header)
      assert.deepEqual(seen, [INVALID_TOKEN_WITH_SPACE_WARNING], header)
    }
    for (const header of ['Bearer good', 'Bearer  ', 'Bearer', 'Basic  x']) {
      const { seen, ctx } = warnings()
      await bearer.authenticate(withHeader(header), ctx)
      assert.deepEqual(seen, [], header)
    }
    assert.equal(INVALID_TOKEN_WITH_SPACE_WARNING, 'the provided Authorization header contains extra space before the bearer token, and is ignored')
  })

  describe('legacy.go: secret-based service-account tokens', () => {
    let dir: string
    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-legacy-'))
    })
    after(() => fs.rmSync(dir, { recursive: true, force: true }))

    async function setUp(labels: Record<string, string>, listed: boolean) {
      const key = await ensureGeneratedSigningKey(dir)
      const token = await legacyToken(key, 'team', { name: 'app', uid: 'sa-uid' }, 'app-token')
      const secret = { metadata: { name: 'app-token', namespace: 'team', labels }, data: { token: Buffer.from(token).toString('base64') } }
      const sa = { metadata: { name: 'app', namespace: 'team', uid: 'sa-uid' }, ...(listed ? { secrets: [{ name: 'app-token' }] } : {}) }
      const authenticator = serviceAccountAuthenticator({
        issuers: ['https://issuer.test'],
        keys: [{ key: key.publicKey, kid: key.kid }],
        lookup: true,
        objects: async (resource) => (resource === 'serviceaccounts' ? sa : resource === 'secrets' ? secret : undefined),
      })
      return { authenticator, token }
    }

    it('a token of a secret its service account lists (auto-generated) works with the warning; a manual one without', async () => {
      for (const listed of [true, false]) {
        const { authenticator, token } = await setUp({}, listed)
        const { seen, ctx } = warnings()
        assert.equal((await authenticator.authenticateToken(token, ctx))?.user.name, 'system:serviceaccount:team:app')
        assert.deepEqual(seen, listed ? [AUTO_GENERATED_TOKEN_WARNING] : [])
      }
      assert.equal(AUTO_GENERATED_TOKEN_WARNING, 'Use tokens from the TokenRequest API or manually created secret-based tokens instead of auto-generated secret-based tokens.')
    })

    it('a secret marked with the legacy-token-invalid-since label refuses its token', async () => {
      const { authenticator, token } = await setUp({ [LEGACY_TOKEN_INVALID_SINCE_LABEL]: '2026-01-01' }, true)
      await assert.rejects(
        Promise.resolve(authenticator.authenticateToken(token, warnings().ctx)),
        (err: Error) =>
          err instanceof AuthenticationError &&
          err.message ===
            "the token in secret team/app-token for service account team/app has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the 'kubernetes.io/legacy-token-invalid-since' label from the secret to temporarily allow use of this token",
      )
    })
  })

  describe('authentication.go: the filter', () => {
    const ok: Handler = (_req, res) => {
      res.statusCode = 200
      res.end('ok')
    }
    const filter = (anonymous: boolean) => withAuthentication({ union: new UnionAuthenticator([bearerTokenAuthenticator([GOOD])], anonymous ? anonymousAuthenticator() : undefined), audiences: [] })(ok)
    const serve = (handler: Handler) =>
      ((req: Request, res: Parameters<Handler>[1]) => {
        const target = req.url ?? '/'
        void handler(req, res, new IncomingContext(req, target, decodeRequestPath(target)))
      }) as never

    async function http1(anonymous: boolean, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
      const server = createHttp1Server(serve(filter(anonymous)))
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      try {
        return await new Promise((resolve, reject) => {
          const req = request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/api/v1/pods', headers, agent: false }, (res) => {
            const chunks: Buffer[] = []
            res.on('data', (c: Buffer) => chunks.push(c))
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
          })
          req.on('error', reject)
          req.end()
        })
      } finally {
        server.close()
      }
    }

    it('the warning goes with the answer, anonymous or 401', async () => {
      const warning = `299 - "${INVALID_TOKEN_WITH_SPACE_WARNING}"`
      const anonymous = await http1(true, { authorization: 'Bearer  good' })
      assert.equal(anonymous.status, 200)
      assert.equal(anonymous.headers.warning, warning)
      const refused = await http1(false, { authorization: 'Bearer  good' })
      assert.equal(refused.status, 401)
      assert.equal(refused.headers.warning, warning)
      assert.equal((await http1(true, { authorization: 'Bearer good' })).headers.warning, undefined)
    })

    it('the 401 is the Unauthorized Status in the negotiated type (ErrorNegotiated)', async () => {
      const json = await http1(false, { authorization: 'Bearer bad' })
      assert.equal(json.status, 401)
      assert.equal(json.headers['content-type'], 'application/json')
      assert.equal(json.body.toString(), '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}\n')
      const protobuf = await http1(false, { authorization: 'Bearer bad', accept: 'application/vnd.kubernetes.protobuf' })
      assert.equal(protobuf.status, 401)
      assert.equal(protobuf.headers['content-type'], 'application/vnd.kubernetes.protobuf')
      assert.equal(protobuf.body.subarray(0, 4).toString('latin1'), 'k8s\u0000')
    })

    it('HTTP/2: an anonymous or refused client\'s connection is ended (GOAWAY) after its request; a known one\'s is kept', async () => {
      const server = createHttp2Server(serve(filter(true)))
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      const goawayAfter = (headers: Record<string, string>) =>
        new Promise<{ status: number; goaway: boolean }>((resolve, reject) => {
          const session = http2Connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
          let goaway = false
          session.on('goaway', () => (goaway = true))
          session.on('error', reject)
          const stream = session.request({ ':path': '/api/v1/pods', ...headers })
          let status = 0
          stream.on('response', (h) => (status = Number(h[':status'])))
          stream.resume()
          stream.on('end', () =>
            setTimeout(() => {
              session.close()
              resolve({ status, goaway })
            }, 50),
          )
        })
      try {
        assert.deepEqual(await goawayAfter({}), { status: 200, goaway: true })
        assert.deepEqual(await goawayAfter({ authorization: 'Bearer good' }), { status: 200, goaway: false })
        const refused = await new Promise<{ status: number; goaway: boolean }>((resolve) => {
          const strict = createHttp2Server(serve(filter(false)))
          strict.listen(0, '127.0.0.1', () => {
            const session = http2Connect(`http://127.0.0.1:${(strict.address() as AddressInfo).port}`)
            let goaway = false
            session.on('goaway', () => (goaway = true))
            const stream = session.request({ ':path': '/api/v1/pods', authorization: 'Bearer bad' })
            let status = 0
            stream.on('response', (h) => (status = Number(h[':status'])))
            stream.resume()
            stream.on('end', () =>
              setTimeout(() => {
                session.close()
                strict.close()
                resolve({ status, goaway })
              }, 50),
            )
          })
        })
        assert.deepEqual(refused, { status: 401, goaway: true })
      } finally {
        server.close()
      }
    })
  })
})
