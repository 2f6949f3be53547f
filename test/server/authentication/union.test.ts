import assert from 'node:assert/strict'
import type { Request } from '../../../src/server/http/types.js'
import { AuthenticationError, type Authenticator } from '../../../src/server/authentication/authenticator.js'
import { anonymousAuthenticator } from '../../../src/server/authentication/anonymous.js'
import { bearerToken, bearerTokenAuthenticator } from '../../../src/server/authentication/bearer-token.js'
import { UnionAuthenticator } from '../../../src/server/authentication/union.js'

const req = (headers: Record<string, string> = {}) => ({ headers, rawHeaders: Object.entries(headers).flat() }) as unknown as Request
const ctx = { audiences: [], path: '/api' }
const fixed = (name: string, answer: 'user' | 'none' | 'refuse'): Authenticator => ({
  name,
  authenticate: () => {
    if (answer === 'refuse') throw new AuthenticationError(`${name} refused`)
    return answer === 'user' ? { user: { name, groups: ['g'] } } : null
  },
})

describe('authentication: union', () => {
  it('asks the methods in order; the first user wins and gets system:authenticated', async () => {
    const union = new UnionAuthenticator([fixed('a', 'none'), fixed('b', 'user'), fixed('c', 'user')], anonymousAuthenticator())
    const result = await union.authenticate(req(), ctx)
    assert.deepEqual(result, { ok: true, response: { user: { name: 'b', groups: ['g', 'system:authenticated'] } } })
  })

  it('a refusal does not stop the others, but with no user it is never anonymous', async () => {
    const accepted = await new UnionAuthenticator([fixed('bad-cert', 'refuse'), fixed('token', 'user')], anonymousAuthenticator()).authenticate(req(), ctx)
    assert.equal(accepted.ok && accepted.response.user.name, 'token')
    const refused = await new UnionAuthenticator([fixed('bad-cert', 'refuse'), fixed('token', 'none')], anonymousAuthenticator()).authenticate(req(), ctx)
    assert.equal(refused.ok, false)
    assert.deepEqual(!refused.ok && refused.errors.map((e) => e.message), ['bad-cert refused'])
  })

  it('no credentials: anonymous when allowed (on its paths only, with conditions), else refused', async () => {
    const open = await new UnionAuthenticator([fixed('a', 'none')], anonymousAuthenticator()).authenticate(req(), ctx)
    assert.deepEqual(open, { ok: true, response: { user: { name: 'system:anonymous', groups: ['system:unauthenticated'] } } })
    assert.deepEqual(await new UnionAuthenticator([fixed('a', 'none')]).authenticate(req(), ctx), { ok: false, errors: [] })
    const conditional = new UnionAuthenticator([], anonymousAuthenticator([{ path: '/livez' }]))
    assert.equal((await conditional.authenticate(req(), { audiences: [], path: '/livez' })).ok, true)
    assert.equal((await conditional.authenticate(req(), ctx)).ok, false)
  })

  it('reads bearer tokens as the reference: scheme case-insensitive, empty tokens ignored', () => {
    assert.equal(bearerToken(req({ authorization: 'Bearer abc' })), 'abc')
    assert.equal(bearerToken(req({ authorization: '  bearer abc  ' })), 'abc')
    assert.equal(bearerToken(req({ authorization: 'Bearer  abc' })), undefined)
    assert.equal(bearerToken(req({ authorization: 'Basic abc' })), undefined)
    assert.equal(bearerToken(req({ authorization: 'Bearer a b' })), 'a')
  })

  it('a bearer token no method recognises is refused as "invalid bearer token"', async () => {
    const bearer = bearerTokenAuthenticator([{ name: 't', authenticateToken: (t) => (t === 'good' ? { user: { name: 'u', groups: [] } } : null) }])
    assert.deepEqual(await bearer.authenticate(req({ authorization: 'Bearer good' }), ctx), { user: { name: 'u', groups: [] } })
    await assert.rejects(async () => bearer.authenticate(req({ authorization: 'Bearer bad' }), ctx), new AuthenticationError('invalid bearer token'))
    assert.equal(await bearer.authenticate(req(), ctx), null)
  })
})
