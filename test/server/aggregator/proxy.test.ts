/**
 * The headers the aggregator's proxy sends an extension server, after the reference's
 * transport.SetAuthProxyHeaders (the user, its groups one value each, its extras under the prefix
 * with the key %-escaped by headerKeyEscape, the previous identity headers removed) and its
 * filters (Authorization and Impersonate-* consumed by the chain).
 */
import assert from 'node:assert/strict'
import type { IncomingMessage } from 'node:http'
import { frontProxyHeaders, proxiedHeaders } from '../../../src/server/aggregator/proxy.js'

const request = (headers: Record<string, string>) => ({ headers, socket: { remoteAddress: '10.1.2.3' } }) as unknown as IncomingMessage

describe('aggregator proxy headers', () => {
  const defaults = frontProxyHeaders({ requestheaderUsernameHeaders: [], requestheaderGroupHeaders: [], requestheaderExtraHeadersPrefix: [], requestheaderUidHeaders: [] })

  it('uses the reference names when no --requestheader-*-headers are given, the first given otherwise', () => {
    assert.deepEqual(defaults, { user: 'X-Remote-User', group: 'X-Remote-Group', extraPrefix: 'X-Remote-Extra-', uid: 'X-Remote-Uid' })
    const given = frontProxyHeaders({ requestheaderUsernameHeaders: ['X-User', 'X-Other'], requestheaderGroupHeaders: ['X-Groups'], requestheaderExtraHeadersPrefix: ['X-Extra-'], requestheaderUidHeaders: ['X-Uid'] })
    assert.deepEqual(given, { user: 'X-User', group: 'X-Groups', extraPrefix: 'X-Extra-', uid: 'X-Uid' })
  })

  it('sends the user, groups and %-escaped extras, and drops the client credentials and forged identity headers', () => {
    const out = proxiedHeaders(
      request({ authorization: 'Bearer secret', 'impersonate-user': 'root', 'x-remote-user': 'forged', 'x-remote-extra-forged': 'x', accept: 'application/json', connection: 'keep-alive' }),
      { name: 'jane', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { 'example.com/team%': ['a', 'b'] } },
      defaults,
      '10.0.0.9:443',
    )
    assert.deepEqual(out, {
      accept: 'application/json',
      host: '10.0.0.9:443',
      'x-forwarded-for': '10.1.2.3',
      'X-Remote-User': 'jane',
      'X-Remote-Uid': 'u-1',
      'X-Remote-Group': ['dev', 'system:authenticated'],
      'X-Remote-Extra-example.com%2Fteam%25': ['a', 'b'],
    })
  })
})
