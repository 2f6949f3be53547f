import assert from 'node:assert/strict'
import { alwaysAllow, alwaysDeny, privilegedGroups } from '../../../src/server/authorization/always.js'
import { resourceAttributes, type Authorizer } from '../../../src/server/authorization/authorizer.js'
import { buildChain } from '../../../src/server/authorization/index.js'
import { UnionAuthorizer } from '../../../src/server/authorization/union.js'

const user = { name: 'bob', groups: ['system:authenticated'] }
const attrs = resourceAttributes(user, { verb: 'list', resource: 'pods', namespace: 'default' })
const deny: Authorizer = { authorize: () => ({ decision: 'deny', reason: 'no' }) }
const silent = (reason: string): Authorizer => ({ authorize: () => ({ decision: 'noOpinion', reason }) })

describe('union authorizer', () => {
  it('the first allow or deny decides', async () => {
    assert.equal((await new UnionAuthorizer([silent('a'), alwaysAllow, deny]).authorize(attrs)).decision, 'allow')
    assert.deepEqual(await new UnionAuthorizer([silent('a'), deny, alwaysAllow]).authorize(attrs), { decision: 'deny', reason: 'no' })
  })
  it('with no opinion anywhere, joins the reasons', async () => {
    assert.deepEqual(await new UnionAuthorizer([silent('a'), silent('b')]).authorize(attrs), { decision: 'noOpinion', reason: 'a\nb' })
  })
  it('AlwaysDeny has no opinion, so a later AlwaysAllow allows', async () => {
    assert.equal((await new UnionAuthorizer([alwaysDeny, alwaysAllow]).authorize(attrs)).decision, 'allow')
    assert.deepEqual(await new UnionAuthorizer([alwaysDeny]).authorize(attrs), { decision: 'noOpinion', reason: 'Everything is forbidden.' })
  })
  it('system:masters is allowed ahead of every mode', async () => {
    const chain = buildChain({ modes: ['AlwaysDeny'] })
    assert.equal((await chain.authorizer.authorize({ ...attrs, user: { name: 'admin', groups: ['system:masters'] } })).decision, 'allow')
    assert.equal((await chain.authorizer.authorize(attrs)).decision, 'noOpinion')
    assert.equal((await privilegedGroups('x').authorize(attrs)).decision, 'noOpinion')
  })
  it('an unknown mode is a configuration error', () => {
    assert.throws(() => buildChain({ modes: ['Bogus'] }), /unknown authorization mode Bogus specified/)
  })
})
