/** The layout of the health watch screen, without Ink: columns, styles, widths, scrolling. */
import assert from 'node:assert/strict'
import { describe, it } from 'mocha'

import { applyReport, moveSelection } from '../../../src/core/health/watch-model.js'
import {
  type Line,
  clipLine,
  columnsFor,
  formatSince,
  layoutWatch,
  scrollOffset,
  textOf,
  truncate,
} from '../../../src/core/views/health-watch-layout.js'
import { LIVEZ, READYZ, T0, report, stateWith, unreachable, width } from './watch-fixtures.js'

const options = { server: 'https://127.0.0.1:6443', version: 'v1.31.2', columns: 80 }

function segmentOf(line: Line, text: string) {
  const found = line.find((s) => s.text.includes(text))
  assert.ok(found, `${text} in ${JSON.stringify(line)}`)
  return found
}

describe('health watch layout', () => {
  it('formats the time since the last change in at most 3 characters', () => {
    const cases: Array<[number, string]> = [
      [0, '0s'],
      [999, '0s'],
      [12_000, '12s'],
      [59_999, '59s'],
      [60_000, '1m'],
      [3 * 60_000 + 59_000, '3m'],
      [3_600_000, '1h'],
      [23 * 3_600_000, '23h'],
      [2 * 86_400_000, '2d'],
      [8 * 86_400_000, '1w'],
      [52 * 7 * 86_400_000, '52w'],
      [400 * 86_400_000, '1y'],
      [-5, '0s'],
    ]
    for (const [ms, text] of cases) {
      assert.equal(formatSince(ms), text, `${ms}ms`)
      assert.ok(text.length <= 3)
    }
  })

  it('truncates with …', () => {
    assert.equal(truncate('poststarthook/crd-informer-synced', 12), 'poststarthoo'.slice(0, 11) + '…')
    assert.equal(truncate('ping', 4), 'ping')
    assert.equal(truncate('ping', 1), '…')
    assert.equal(truncate('ping', 0), '')
    const line: Line = [{ text: 'abc', bold: true }, { text: 'defgh', color: 'red' }]
    assert.equal(textOf(clipLine(line, 8)), 'abcdefgh')
    assert.equal(textOf(clipLine(line, 5)), 'abcd…')
    assert.equal(textOf(clipLine(line, 3)), 'ab…')
    assert.equal(clipLine(line, 5)[1].color, 'red', 'styles kept')
  })

  it('chooses the columns by width', () => {
    assert.deepEqual(columnsFor(80), { word: true, since: true, history: true })
    assert.deepEqual(columnsFor(59), { word: true, since: true, history: false })
    assert.deepEqual(columnsFor(49), { word: true, since: false, history: false })
    assert.deepEqual(columnsFor(39), { word: false, since: false, history: false })
  })

  it('scrolls only as far as needed to show the selection', () => {
    assert.equal(scrollOffset(0, 0, 10, 5), 0, 'everything fits')
    assert.equal(scrollOffset(0, 9, 10, 19), 0)
    assert.equal(scrollOffset(0, 10, 10, 19), 1)
    assert.equal(scrollOffset(9, 18, 10, 19), 9)
    assert.equal(scrollOffset(9, 12, 10, 19), 9, 'kept while the selection is inside')
    assert.equal(scrollOffset(9, 3, 10, 19), 3)
    assert.equal(scrollOffset(50, 0, 10, 19), 0)
    assert.equal(scrollOffset(50, 18, 10, 19), 9, 'never past the end')
  })

  it('colors states: ok green, FAILED red bold, excluded gray; fresh changes inverse and yellow', () => {
    let state = stateWith([report('readyz', READYZ, { at: T0, states: { shutdown: 'excluded' } })])
    state = applyReport(state, report('readyz', READYZ, { at: T0 + 2000, states: { store: 'failed', shutdown: 'excluded' } }))
    const { body, header } = layoutWatch(state, options)
    const row = (name: string) => body.find((line) => textOf(line).includes(` ${name} `))!
    assert.deepEqual(segmentOf(row('ping'), '✓ ok'), { text: '✓ ok', color: 'green', bold: undefined, inverse: false })
    assert.deepEqual(segmentOf(row('store'), '✗ FAILED'), { text: '✗ FAILED', color: 'red', bold: true, inverse: true })
    assert.equal(segmentOf(row('store'), 'store').color, 'yellow')
    assert.equal(segmentOf(row('store'), '*').color, 'yellow')
    assert.equal(segmentOf(row('shutdown'), '○ excluded').color, 'gray')
    assert.deepEqual(
      row('store').filter((s) => s.text === 'x' || s.text === '·').map((s) => [s.text, s.color]),
      [['·', 'green'], ['x', 'red']],
    )
    assert.equal(segmentOf(row('ping'), '›').color, 'cyan', 'the selected row')
    assert.equal(segmentOf(header[1], 'FAILED (500)').color, 'red')
    for (const line of [...header, ...body]) assert.ok(width(textOf(line)) <= 80)
  })

  it('greys every row while the endpoint is unreachable, with the error in red', () => {
    const state = stateWith([report('readyz', READYZ, { states: { store: 'failed' } }), unreachable('readyz', T0 + 2000)])
    const { header, body } = layoutWatch(state, options)
    assert.equal(header.length, 4)
    assert.deepEqual(header[3], [{ text: 'unreachable: connect ECONNREFUSED 127.0.0.1:6443 (last known states)', color: 'red' }])
    for (const line of body) {
      for (const segment of line) {
        if (segment.text.trim() === '' || segment.text === '›') continue
        assert.equal(segment.color, 'gray', JSON.stringify(segment))
        assert.equal(segment.dim, true)
      }
    }
  })

  it('shows the status line of an answer that lists no checks', () => {
    const forbidden = { ...report('readyz', [], { at: T0 + 2000, statusCode: 403 }), body: '\nforbidden: User "system:anonymous" cannot get path "/readyz"\n' }
    const { header } = layoutWatch(stateWith([report('readyz', READYZ), forbidden]), { ...options, columns: 100 })
    assert.equal(textOf(header[3]), '403: forbidden: User "system:anonymous" cannot get path "/readyz" (last known states)')
  })

  it('keeps the selection visible and leaves the last terminal line free', () => {
    let state = stateWith([report('livez', LIVEZ), report('readyz', READYZ)])
    assert.equal(layoutWatch(state, { ...options, rows: 24 }).visibleRows, 20)
    assert.equal(layoutWatch(state, { ...options, rows: 24 }).body.length, 19)
    state = moveSelection(state, 15)
    const short = layoutWatch(state, { ...options, rows: 10 })
    assert.equal(short.visibleRows, 6)
    assert.equal(short.offset, 10)
    assert.equal(short.body.length, 6)
    assert.match(textOf(short.body[5]), /^› /)
    assert.match(textOf(short.header[2]), /^readyz 11-16\/19 /)
    const tiny = layoutWatch(state, { ...options, rows: 2 })
    assert.equal(tiny.visibleRows, 1, 'at least the selected row')
    assert.ok(textOf(tiny.body[0]).startsWith(`› ✓ ok       ${READYZ[15]} `))
  })

  it('cuts every header line to the width', () => {
    const state = stateWith([report('livez', LIVEZ), report('readyz', READYZ, { states: { store: 'failed' } })], { endpoints: ['livez', 'readyz', 'healthz'] })
    for (const columns of [80, 60, 40, 20, 10, 1]) {
      const { header, body } = layoutWatch(state, { ...options, server: 'https://very-long-host-name.internal.example.com:6443', columns })
      for (const line of [...header, ...body]) assert.ok(width(textOf(line)) <= columns, `${columns}: ${textOf(line)}`)
    }
  })
})
