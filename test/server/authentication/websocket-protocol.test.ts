import assert from 'node:assert/strict'
import type { TokenAuthenticator } from '../../../src/server/authentication/authenticator.js'
import { BEARER_PROTOCOL_PREFIX, isWebSocketRequest, protocolToken, webSocketProtocolAuthenticator } from '../../../src/server/authentication/websocket-protocol.js'
import type { Request } from '../../../src/server/http/types.js'

const encode = (token: string) => BEARER_PROTOCOL_PREFIX + Buffer.from(token).toString('base64url')
const request = (headers: Record<string, string | string[]>) => ({ headers }) as unknown as Request
const upgrade = { connection: 'keep-alive, Upgrade', upgrade: 'websocket' }

const tokens: TokenAuthenticator = {
  name: 'test tokens',
  authenticateToken: async (token) => (token === 'good-token' ? { user: { name: 'ws-user', groups: ['ws'] }, audiences: [] } : null),
}
const ctx = { audiences: [], path: '/api' }

describe('WebSocket bearer token subprotocol', () => {
  it('reads only WebSocket upgrade requests', () => {
    assert.equal(isWebSocketRequest(request(upgrade)), true)
    assert.equal(isWebSocketRequest(request({ connection: 'Upgrade', upgrade: 'h2c' })), false)
    assert.equal(isWebSocketRequest(request({ upgrade: 'websocket' })), false)
  })

  it('accepts the token and removes its subprotocol from the header', async () => {
    const req = request({ ...upgrade, 'sec-websocket-protocol': `${encode('good-token')}, v5.channel.k8s.io` })
    const response = await webSocketProtocolAuthenticator([tokens]).authenticate(req, ctx)
    assert.equal(response?.user.name, 'ws-user')
    assert.equal(req.headers['sec-websocket-protocol'], 'v5.channel.k8s.io')
  })

  it('ignores requests without the token subprotocol, and non-WebSocket ones', async () => {
    assert.equal(await webSocketProtocolAuthenticator([tokens]).authenticate(request({ ...upgrade, 'sec-websocket-protocol': 'v5.channel.k8s.io' }), ctx), null)
    assert.equal(await webSocketProtocolAuthenticator([tokens]).authenticate(request({ 'sec-websocket-protocol': `${encode('good-token')}, x` }), ctx), null)
  })

  it("refuses as the reference does", async () => {
    const refuse = async (protocols: string | string[]) => webSocketProtocolAuthenticator([tokens]).authenticate(request({ ...upgrade, 'sec-websocket-protocol': protocols }), ctx)
    await assert.rejects(refuse(`${encode('bad-token')}, v5.channel.k8s.io`), { message: 'invalid bearer token' })
    await assert.rejects(refuse(encode('good-token')), { message: 'missing additional subprotocol' })
    await assert.rejects(refuse([`${encode('good-token')}, v5.channel.k8s.io`, encode('other')]), { message: 'multiple base64.bearer.authorization tokens specified' })
    await assert.rejects(refuse(`${BEARER_PROTOCOL_PREFIX}not+base64/, x`), { message: 'invalid base64.bearer.authorization token encoding' })
    await assert.rejects(refuse(`${BEARER_PROTOCOL_PREFIX}${Buffer.from([0xff, 0xfe]).toString('base64url')}, x`), { message: 'invalid base64.bearer.authorization token' })
  })

  it('splits header values on commas and keeps the order of the others', () => {
    assert.deepEqual(protocolToken([`a, ${encode('t')}`, 'b,c']), { token: 't', others: ['a', 'b', 'c'] })
  })
})
