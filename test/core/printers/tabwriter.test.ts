/**
 * Go's text/tabwriter (padchar ' ', no flags) as its documentation states it: tab-terminated
 * cells of contiguous lines form a column, padded to the widest cell plus the padding and at
 * least the minimum width; the last cell of a line is not part of a column; a line without a
 * cell in a column ends that column's block.
 */
import assert from 'node:assert/strict'
import { KUBECTL_TABWRITER, tabwrite } from '../../../src/core/printers/tabwriter.js'

describe('tabwrite (Go text/tabwriter)', () => {
  it('pads each column to its widest cell plus the padding; the last cell is as written', () => {
    assert.equal(tabwrite('a\tbb\tlast\nccc\td\tx\n', { minWidth: 0, padding: 2 }), 'a    bb  last\nccc  d   x\n')
  })

  it('keeps at least the minimum width (kubectl: 6, padding 3)', () => {
    assert.equal(tabwrite('a\tb\n', KUBECTL_TABWRITER), 'a     b\n')
    assert.equal(tabwrite('abcdef\tb\n', KUBECTL_TABWRITER), 'abcdef   b\n')
  })

  it('ends a block at a line without the column: each block has its own widths', () => {
    assert.equal(tabwrite('a\tb\n\nlonger\tc\n', { minWidth: 0, padding: 2 }), 'a  b\n\nlonger  c\n')
  })

  it('counts runes, not UTF-16 units or bytes', () => {
    assert.equal(tabwrite('é\tx\nab\ty\n', { minWidth: 0, padding: 1 }), 'é  x\nab y\n')
  })
})
