/**
 * The Ink view of `client health watch`, rendered with ink-testing-library: rows of the spec's
 * checks, failed and excluded rows, transitions, keys, and the widths of 80 and 40 columns.
 */
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'mocha'
import { cleanup, render } from 'ink-testing-library'
import { createElement } from 'react'

import type { HealthEndpoint } from '../../../src/core/health/report.js'
import { createWatchStore } from '../../../src/core/health/watch-loop.js'
import { type WatchState, applyReport, endpointState, selectedRow } from '../../../src/core/health/watch-model.js'
import { HealthWatch, HealthWatchView } from '../../../src/core/views/index.js'
import { LIVEZ, READYZ, T0, delay, frameLines, report, stateWith, unreachable, width } from './watch-fixtures.js'

const SERVER = 'https://127.0.0.1:6443'
const DOWN = '\u001B[B'
const UP = '\u001B[A'

function view(state: WatchState, size: { columns?: number; rows?: number } = {}) {
  return render(createElement(HealthWatchView, { state, server: SERVER, version: 'v1.31.2', ...size }))
}

/** The row of a check: the line that shows its name (cut to the prefix when truncated). */
function rowOf(lines: string[], name: string): string {
  const found = lines.find((line) => new RegExp(` ${escape(name)}( |$)`).test(line))
  assert.ok(found, `a row for ${name} in\n${lines.join('\n')}`)
  return found
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}

/** Every check has a row showing its name, whole or cut with `…`. */
function assertRowsShowNames(lines: string[], names: readonly string[]) {
  for (const name of names) {
    const whole = lines.some((line) => line.includes(` ${name} `) || line.endsWith(` ${name}`))
    const cut = lines.some((line) => {
      const m = / (\S+)…/.exec(line)
      return m !== null && name.startsWith(m[1]) && m[1].length >= 8
    })
    assert.ok(whole || cut, `${name} shown in\n${lines.join('\n')}`)
  }
}

const passing = () => stateWith([report('livez', LIVEZ, { latencyMs: 2 }), report('readyz', READYZ, { latencyMs: 12 })])

describe('health watch view', () => {
  afterEach(() => cleanup())

  it('shows all 19 readyz checks of the spec with their state in an 80×24 terminal', () => {
    const { lastFrame } = view(passing(), { columns: 80, rows: 24 })
    const lines = frameLines(lastFrame())
    assert.ok(lines.length <= 23, `${lines.length} lines fit 24 rows with the last one free`)
    const header = lines.slice(0, 3)
    assert.match(header[0], /^https:\/\/127\.0\.0\.1:6443 {2}v1\.31\.2 {2}every 2s$/)
    assert.match(header[1], /^livez: ok 2ms {2}readyz: ok 12ms$/)
    assert.match(header[2], /^readyz {2}q quit {2}v switch {2}e exclude {2}↑↓ select · 19 checks$/)
    const rows = lines.slice(3)
    assert.equal(rows.length, 19)
    assertRowsShowNames(rows, READYZ)
    for (const row of rows) assert.match(row, /^[ ›] ✓ ok {7}\S/)
    assert.match(rows[0], /^› ✓ ok {7}ping {2,}0s {10}·$/, 'selected, since, history')
    for (const line of lines) assert.ok(width(line) <= 80, `${width(line)} > 80: ${line}`)
  })

  it('shows a failed check as FAILED and the verdict with its status code', () => {
    const state = stateWith([report('livez', LIVEZ), report('readyz', READYZ, { states: { store: 'failed' } })])
    const lines = frameLines(view(state, { columns: 80 }).lastFrame())
    assert.match(lines[1], /readyz: FAILED \(500\) 3ms/)
    assert.match(lines[2], /19 checks, 1 failed$/)
    assert.match(rowOf(lines, 'store'), /^ {2}✗ FAILED {3}store /)
    assert.match(rowOf(lines, 'ping'), /✓ ok/)
  })

  it('shows excluded checks', () => {
    const state = stateWith([report('readyz', READYZ, { states: { shutdown: 'excluded', log: 'excluded' } })])
    const lines = frameLines(view(state, { columns: 80 }).lastFrame())
    assert.match(rowOf(lines, 'shutdown'), /○ excluded shutdown +0s {10}-$/)
    assert.match(rowOf(lines, 'log'), /○ excluded log/)
    assert.match(lines[2], /19 checks, 2 excluded$/)
  })

  it('marks a transition on the next frame, for two intervals, with the history', () => {
    let state = stateWith([report('livez', LIVEZ), report('readyz', READYZ, { at: T0 })])
    const { lastFrame, rerender } = view(state, { columns: 80 })
    assert.doesNotMatch(lastFrame() ?? '', /\*/)
    const next = (at: number, states: Record<string, 'failed'> = {}) => {
      state = applyReport(state, report('readyz', READYZ, { at, states }))
      rerender(createElement(HealthWatchView, { state, server: SERVER, columns: 80 }))
      return frameLines(lastFrame())
    }
    let lines = next(T0 + 2000)
    assert.doesNotMatch(rowOf(lines, 'store'), /\*/)
    lines = next(T0 + 4000, { store: 'failed' })
    assert.match(rowOf(lines, 'store'), /^ \*✗ FAILED {3}store +0s {8}··x$/)
    assert.match(lines[1], /readyz: FAILED \(500\)/)
    assert.equal(lines.filter((l) => l.includes('*')).length, 1, 'only the changed row')
    lines = next(T0 + 6000, { store: 'failed' })
    assert.match(rowOf(lines, 'store'), /^ \*✗ FAILED {3}store +2s {7}··xx$/, 'still fresh one interval later')
    lines = next(T0 + 8000, { store: 'failed' })
    assert.match(rowOf(lines, 'store'), /^ {2}✗ FAILED {3}store +4s {6}··xxx$/, 'no longer fresh')
    lines = next(T0 + 10_000)
    assert.match(rowOf(lines, 'store'), /^ \*✓ ok {7}store +0s {5}··xxx·$/, 'recovery is a change too')
    assert.match(lines[1], /readyz: ok/)
  })

  it('keeps the rows greyed with a red line when the server is unreachable', () => {
    const state = stateWith([report('readyz', READYZ), unreachable('readyz', T0 + 2000)])
    const lines = frameLines(view(state, { columns: 80, rows: 24 }).lastFrame())
    assert.match(lines[1], /readyz: unreachable/)
    assert.equal(lines[3], 'unreachable: connect ECONNREFUSED 127.0.0.1:6443 (last known states)')
    assert.equal(lines.length, 23, 'four header lines and the 19 rows still fit 80×24')
    assert.match(rowOf(lines, 'store'), /✓ ok {7}store +2s {9}·\?$/)
  })

  it('says when it waits for the first report', () => {
    const lines = frameLines(view(stateWith([]), { columns: 80 }).lastFrame())
    assert.match(lines[1], /^livez: … {2}readyz: …$/)
    assert.equal(lines[3], 'waiting for /readyz…')
  })

  it('fits 40 columns: every check named (cut with …), no line longer than 40', () => {
    const state = stateWith([report('livez', LIVEZ), report('readyz', READYZ, { states: { store: 'failed', shutdown: 'excluded' } })])
    const lines = frameLines(view(state, { columns: 40, rows: 30 }).lastFrame())
    for (const line of lines) assert.ok(width(line) <= 40, `${width(line)} > 40: ${line}`)
    assertRowsShowNames(lines.slice(3), READYZ)
    assert.match(rowOf(lines, 'store'), /^ {2}✗ FAILED {3}store$/, 'no since, no history')
    assert.match(rowOf(lines, 'shutdown'), /^ {2}○ excluded shutdown$/)
    assert.ok(lines.includes('  ✓ ok       poststarthook/start-apiser…'), 'cut to 40 columns')
  })

  it('drops the history below 60 columns, the since below 50, the words below 40', () => {
    const state = stateWith([report('readyz', READYZ, { states: { store: 'failed' } })])
    const at = (columns: number) => rowOf(frameLines(view(state, { columns }).lastFrame()), 'store')
    assert.match(at(60), /store +0s {10}x$/)
    assert.match(at(59), /^ {2}✗ FAILED {3}store +0s$/)
    assert.equal(width(at(59)), 59)
    assert.match(at(49), /^ {2}✗ FAILED {3}store$/)
    assert.match(at(39), /^ {2}✗ store$/)
    const narrow = frameLines(view(state, { columns: 24 }).lastFrame())
    for (const line of narrow) assert.ok(width(line) <= 24, line)
    assertRowsShowNames(narrow.slice(3), READYZ.filter((n) => n.length < 20 || n.startsWith('poststarthook/')))
  })

  describe('keys', () => {
    function app(state: WatchState, size: { columns?: number; rows?: number } = { columns: 80 }) {
      const store = createWatchStore(state)
      const calls: { quit: number; excludes: Array<[HealthEndpoint, readonly string[]]> } = { quit: 0, excludes: [] }
      const instance = render(
        createElement(HealthWatch, {
          server: SERVER,
          store,
          onQuit: () => calls.quit++,
          onExcludeChange: (endpoint, excludes) => calls.excludes.push([endpoint, excludes]),
          ...size,
        }),
      )
      const press = async (key: string) => {
        instance.stdin.write(key)
        await delay(20)
        return frameLines(instance.lastFrame())
      }
      return { store, calls, press, ...instance }
    }

    it('moves the selection with the arrows and j/k, stopping at the ends', async () => {
      const { store, press, lastFrame } = app(passing())
      await delay(20)
      assert.match(rowOf(frameLines(lastFrame()), 'ping'), /^›/)
      let lines = await press(DOWN)
      assert.match(rowOf(lines, 'log'), /^›/)
      assert.match(rowOf(lines, 'ping'), /^ /)
      lines = await press('j')
      assert.equal(selectedRow(store.getState())?.name, 'store')
      assert.match(rowOf(lines, 'store'), /^›/)
      await press(UP)
      lines = await press('k')
      assert.equal(store.getState().selected, 0)
      lines = await press(UP)
      assert.equal(store.getState().selected, 0, 'stays on the first row')
      assert.match(rowOf(lines, 'ping'), /^›/)
    })

    it('counts each key of a chunk typed together, and ignores Ctrl and other keys', async () => {
      const { store, calls, press } = app(passing())
      await delay(20)
      await press('jjj')
      assert.equal(selectedRow(store.getState())?.name, READYZ[3])
      await press('\u0005') // Ctrl+E
      await press('x')
      assert.deepEqual(calls.excludes, [])
      assert.equal(store.getState().selected, 3)
      await press('jeq')
      assert.deepEqual(calls.excludes, [['readyz', [READYZ[4]]]])
      assert.equal(calls.quit, 1)
    })

    it('v switches between the endpoints', async () => {
      const { store, press } = app(passing())
      await delay(20)
      let lines = await press('v')
      assert.equal(store.getState().active, 'livez')
      assert.match(lines[2], /^livez {2}q quit/)
      assert.equal(lines.filter((l) => /^[ ›] [✓✗○] /.test(l)).length, LIVEZ.length)
      assert.ok(!lines.some((l) => / shutdown /.test(l)), 'livez has no shutdown check')
      lines = await press('v')
      assert.equal(store.getState().active, 'readyz')
      assert.match(lines[2], /^readyz {2}/)
    })

    it('e excludes the selected check, and includes it again', async () => {
      const { store, calls, press } = app(passing())
      await delay(20)
      await press(DOWN)
      await press(DOWN)
      await press('e')
      assert.deepEqual(calls.excludes, [['readyz', ['store']]])
      assert.deepEqual(endpointState(store.getState(), 'readyz').excludes, ['store'])
      // The server's next report shows it excluded.
      store.update((s) => applyReport(s, report('readyz', READYZ, { at: T0 + 2000, states: { store: 'excluded' } })))
      await delay(20)
      await press('e')
      assert.deepEqual(calls.excludes, [['readyz', ['store']], ['readyz', []]])
      assert.deepEqual(endpointState(store.getState(), 'livez').excludes, [])
    })

    it('q quits', async () => {
      const { calls, press, frames } = app(passing())
      await delay(20)
      await press('q')
      assert.equal(calls.quit, 1)
      const count = frames.length
      await press(DOWN)
      assert.equal(frames.length, count, 'no more frames after the exit')
    })

    it('redraws when the store gets a new report', async () => {
      const { store, lastFrame } = app(passing())
      await delay(20)
      store.update((s) => applyReport(s, report('readyz', READYZ, { at: T0 + 2000, states: { store: 'failed' } })))
      await delay(20)
      const lines = frameLines(lastFrame())
      assert.match(rowOf(lines, 'store'), /^ \*✗ FAILED/)
    })

    it('scrolls to keep the selection visible in a short terminal', async () => {
      const { store, press } = app(passing(), { columns: 80, rows: 12 })
      await delay(20)
      // 12 rows: 3 header lines, 8 check rows, the last line free.
      let lines = await press(DOWN)
      assert.equal(lines.length, 11)
      assert.match(lines[2], /^readyz 1-8\/19 {2}q quit/)
      for (let i = 0; i < 8; i++) lines = await press(DOWN)
      assert.equal(selectedRow(store.getState())?.name, READYZ[9])
      assert.match(lines[2], /^readyz 3-10\/19/)
      assert.match(lines[lines.length - 1], /^› ✓ ok {7}poststarthook\/rbac\/bootstrap-roles /)
      lines = await press('\u001B[F') // End
      assert.match(lines[2], /^readyz 12-19\/19/)
      assert.match(lines[lines.length - 1], /^› ✓ ok {7}shutdown /)
      lines = await press(UP)
      assert.match(lines[2], /^readyz 12-19\/19/, 'the window stays while the selection is in it')
      lines = await press('\u001B[H') // Home
      assert.match(lines[2], /^readyz 1-8\/19/)
      assert.match(lines[3], /^› ✓ ok {7}ping /)
    })

    it('follows the terminal size of stdout, and its resizes', async () => {
      const { stdout, lastFrame } = app(passing(), {})
      await delay(20)
      // ink-testing-library's stdout is 100 columns wide, without rows.
      assert.equal(frameLines(lastFrame()).length, 22)
      assert.ok(frameLines(lastFrame()).some((l) => width(l) > 80))
      Object.defineProperty(stdout, 'columns', { value: 80, configurable: true })
      Object.defineProperty(stdout, 'rows', { value: 24, configurable: true })
      stdout.emit('resize')
      await delay(20)
      let lines = frameLines(lastFrame())
      assert.equal(lines.length, 22)
      for (const line of lines) assert.ok(width(line) <= 80, line)
      assertRowsShowNames(lines.slice(3), READYZ)
      Object.defineProperty(stdout, 'columns', { value: 40, configurable: true })
      Object.defineProperty(stdout, 'rows', { value: 10, configurable: true })
      stdout.emit('resize')
      await delay(20)
      lines = frameLines(lastFrame())
      assert.equal(lines.length, 9)
      for (const line of lines) assert.ok(width(line) <= 40, line)
    })
  })
})
