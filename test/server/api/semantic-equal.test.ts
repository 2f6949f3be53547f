/**
 * apiequality.Semantic.DeepEqual's rule for slices on JSON: nil and empty lists are equal
 * (k8s.io/apimachinery/third_party/forked/golang/reflect: "empty and nil slices/maps are
 * treated as equal"); anything else compares by value.
 */
import assert from 'node:assert/strict'
import { semanticEqual } from '../../../src/server/api/kinds/semantic-equal.js'

describe('semantic equality of specs (generation bumps)', () => {
  it('treats an empty list as an absent or null one, at any depth', () => {
    assert.ok(semanticEqual({ a: [{ namespaces: [], k: 'x' }] }, { a: [{ k: 'x' }] }))
    assert.ok(semanticEqual({ a: null }, {}))
  })
  it('still sees a changed value, a longer list or an added object', () => {
    assert.ok(!semanticEqual({ a: [1] }, { a: [] }))
    assert.ok(!semanticEqual({ a: [{ k: 'x' }] }, { a: [{ k: 'y' }] }))
    assert.ok(!semanticEqual({ securityContext: {} }, {}))
    assert.ok(!semanticEqual({ n: 0 }, {}))
  })
})
