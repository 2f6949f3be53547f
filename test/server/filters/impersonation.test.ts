import assert from 'node:assert/strict'
import type { Attributes, Authorizer } from '../../../src/server/authorization/authorizer.js'
import { ImpersonationError, impersonationRequests, withImpersonation } from '../../../src/server/filters/impersonation.js'
import { resolveRequestInfo } from '../../../src/server/http/request-info.js'
import type { Request, RequestContext, Response } from '../../../src/server/http/types.js'

const req = (headers: Array<[string, string]>) => {
  const h: Record<string, string> = {}
  for (const [k, v] of headers) h[k.toLowerCase()] = v
  return { rawHeaders: headers.flat(), headers: h, url: '/api/v1/pods', method: 'GET' } as unknown as Request
}

describe('impersonation', () => {
  it('reads users, service accounts, each group header line, extras (unescaped keys) and uids', () => {
    assert.deepEqual(
      impersonationRequests(req([
        ['Impersonate-User', 'system:serviceaccount:ns:robot'],
        ['Impersonate-Group', 'a,b'],
        ['Impersonate-Group', 'c'],
        ['Impersonate-Extra-Scopes%2Fx', 'view'],
        ['Impersonate-Uid', '42'],
      ])),
      [
        { kind: 'ServiceAccount', namespace: 'ns', name: 'robot' },
        { kind: 'Group', name: 'a,b' },
        { kind: 'Group', name: 'c' },
        { kind: 'UserExtra', name: 'view', key: 'scopes/x' },
        { kind: 'UID', name: '42' },
      ],
    )
  })
  it('groups without a user are an error', () => {
    assert.throws(() => impersonationRequests(req([['Impersonate-Group', 'g']])), ImpersonationError)
  })

  const run = async (authorizer: Authorizer, headers: Array<[string, string]>) => {
    const asked: Attributes[] = []
    const recording: Authorizer = { authorize: (a) => (asked.push(a), authorizer.authorize(a)) }
    const ctx = { user: { name: 'bob', groups: ['system:authenticated'] }, info: resolveRequestInfo('GET', new URL('https://x/api/v1/pods')), url: new URL('https://x/api/v1/pods') } as unknown as RequestContext
    let status = 0
    let body = ''
    const res = { headersSent: false, setHeader() {}, removeHeader() {}, end(b: string) { body = b }, set statusCode(v: number) { status = v }, get statusCode() { return status } } as unknown as Response
    let reached: RequestContext | undefined
    await withImpersonation(recording)((_q, _s, c) => {
      reached = c
    })(req(headers), res, ctx)
    return { asked, reached, status, body }
  }

  it('checks the impersonate verb on each, then runs as the impersonated user (service accounts get their groups)', async () => {
    const { asked, reached } = await run({ authorize: () => ({ decision: 'allow' }) }, [['Impersonate-User', 'system:serviceaccount:ns:robot']])
    assert.deepEqual(asked.map((a) => [a.verb, a.resource, a.namespace, a.name]), [['impersonate', 'serviceaccounts', 'ns', 'robot']])
    assert.deepEqual(reached?.user, { name: 'system:serviceaccount:ns:robot', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated'] })
  })
  it('refuses with the reference 403 text', async () => {
    const { reached, status, body } = await run({ authorize: () => ({ decision: 'noOpinion' }) }, [['Impersonate-User', 'jane']])
    assert.equal(reached, undefined)
    assert.equal(status, 403)
    assert.equal(JSON.parse(body).message, 'users "jane" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope')
  })
})
