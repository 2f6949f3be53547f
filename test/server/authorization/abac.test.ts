import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { AbacAuthorizer, loadPolicyFile, parsePolicyLine } from '../../../src/server/authorization/abac.js'
import { resourceAttributes } from '../../../src/server/authorization/authorizer.js'

const alice = { name: 'alice', groups: ['system:authenticated'] }
const bob = { name: 'bob', groups: ['readers', 'system:authenticated'] }
const anon = { name: 'system:anonymous', groups: ['system:unauthenticated'] }

describe('ABAC', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'abac-'))
  after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const write = (lines: string[]) => {
    const file = path.join(dir, `p${Math.random()}.jsonl`)
    fs.writeFileSync(file, lines.join('\n'))
    return file
  }
  const v1 = (spec: object) => JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec })

  it('allows by user, group, namespace, resource and read-only', () => {
    const abac = AbacAuthorizer.fromFile(
      write([
        '# comment',
        v1({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' }),
        '',
        v1({ group: 'readers', readonly: true, namespace: 'team', resource: 'pods', apiGroup: '' }),
        v1({ user: '*', nonResourcePath: '/version' }),
      ]),
    )
    assert.equal(abac.authorize(resourceAttributes(alice, { verb: 'delete', resource: 'secrets', namespace: 'x' })).decision, 'allow')
    assert.equal(abac.authorize(resourceAttributes(bob, { verb: 'list', resource: 'pods', namespace: 'team' })).decision, 'allow')
    assert.deepEqual(abac.authorize(resourceAttributes(bob, { verb: 'create', resource: 'pods', namespace: 'team' })), { decision: 'noOpinion', reason: 'No policy matched.' })
    assert.equal(abac.authorize(resourceAttributes(bob, { verb: 'get', resource: 'pods', namespace: 'other' })).decision, 'noOpinion')
    const version = { ...resourceAttributes(anon, { verb: 'get', resource: '' }), resourceRequest: false, path: '/version' }
    assert.equal(abac.authorize(version).decision, 'allow')
  })
  it('v0 lines without a subject mean every authenticated user and every path', () => {
    const p = parsePolicyLine('{"readonly": true}')
    assert.equal(p.group, 'system:authenticated')
    assert.equal(p.nonResourcePath, '*')
    assert.equal(p.apiGroup, '*')
  })
  it('names the bad line at start-up', () => {
    const file = write([v1({ user: 'alice' }), '{not json'])
    assert.throws(() => loadPolicyFile(file), (err: Error) => err.message.startsWith(`error reading policy file ${file}, line 2: {not json: `))
    assert.throws(() => loadPolicyFile(path.join(dir, 'absent')), /error reading policy file .*absent: open .*: no such file or directory/)
  })
  it('reports the rules of a user', () => {
    const abac = AbacAuthorizer.fromFile(write([v1({ group: 'readers', readonly: true, namespace: 'team', resource: 'pods', apiGroup: '' })]))
    assert.deepEqual(abac.rulesFor(bob, 'team').resourceRules, [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'], resourceNames: [] }])
    assert.deepEqual(abac.rulesFor(bob, 'other').resourceRules, [])
  })
})
