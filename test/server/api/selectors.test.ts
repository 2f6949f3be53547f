import assert from 'node:assert/strict'
import { SelectorError, matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from '../../../src/server/http/selectors.js'

const labels = { app: 'web', tier: 'front', n: '5', 'example.com/team': 'a' }
const matches = (sel: string, l: Record<string, string> = labels) => matchesLabels(parseLabelSelector(sel), l)

describe('api: label selectors', () => {
  it('matches every operator', () => {
    assert.ok(matches(''))
    assert.ok(matches('app=web'))
    assert.ok(matches('app==web'))
    assert.ok(!matches('app=db'))
    assert.ok(matches('app!=db'))
    assert.ok(matches('missing!=x'))
    assert.ok(matches('app in (web, db)'))
    assert.ok(!matches('app in (db)'))
    assert.ok(matches('app notin (db)'))
    assert.ok(matches('missing notin (db)'))
    assert.ok(matches('app'))
    assert.ok(!matches('missing'))
    assert.ok(matches('!missing'))
    assert.ok(!matches('!app'))
    assert.ok(matches('n>4'))
    assert.ok(!matches('n>5'))
    assert.ok(matches('n<6'))
    assert.ok(!matches('app<6'))
    assert.ok(matches('example.com/team=a'))
    assert.ok(matches('app=web,tier in (front,back),!missing'))
    assert.ok(!matches('app=web,tier=back'))
  })

  it('rejects malformed selectors', () => {
    for (const bad of ['app=', 'a b', '=x', 'app in ()', 'app in (a', 'n>x', ',', 'a/b/c=d', '-x=y']) {
      if (bad === 'app=') continue // an empty value is a valid label value
      assert.throws(() => parseLabelSelector(bad), SelectorError, bad)
    }
    assert.deepEqual(parseLabelSelector('app='), [{ key: 'app', operator: '=', values: [''] }])
  })
})

describe('api: field selectors', () => {
  const fields = ['metadata.name', 'metadata.namespace']
  it('matches =, == and !=', () => {
    const obj = { 'metadata.name': 'x', 'metadata.namespace': 'default' }
    assert.ok(matchesFields(parseFieldSelector('metadata.name=x', fields), obj))
    assert.ok(matchesFields(parseFieldSelector('metadata.name==x,metadata.namespace=default', fields), obj))
    assert.ok(!matchesFields(parseFieldSelector('metadata.name!=x', fields), obj))
    assert.ok(matchesFields(parseFieldSelector('metadata.namespace!=kube-system', fields), obj))
  })
  it('rejects unsupported fields', () => {
    assert.throws(() => parseFieldSelector('spec.foo=x', fields), /field label not supported: spec.foo/)
    assert.throws(() => parseFieldSelector('nonsense', fields), SelectorError)
  })
})
