/**
 * --log-text-split-stream and --log-text-info-buffer-size, as the reference's text logger
 * routes them (component-base/logs/api/v1/text.go): info lines to standard output, every other
 * severity to standard error, and info held in a buffer of the given size until it would
 * overflow or the logger flushes.
 */
import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { Logger } from '../../../src/server/log/logger.js'

function collector(): { stream: Writable; text: () => string; writes: () => number } {
  const chunks: string[] = []
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk))
      done()
    },
  })
  return { stream, text: () => chunks.join(''), writes: () => chunks.length }
}

describe('logger split streams', () => {
  it('writes everything to the error stream without --log-text-split-stream', () => {
    const err = collector()
    const out = collector()
    const log = new Logger({ verbosity: 0, vmodule: {}, flushFrequencyMs: 0, sink: err.stream, infoSink: out.stream })
    log.info('hello')
    log.error('broken')
    assert.match(err.text(), /^I.*hello\nE.*broken\n$/)
    assert.equal(out.text(), '')
  })

  it('sends info lines to the info stream and warnings and errors to the error stream', () => {
    const err = collector()
    const out = collector()
    const log = new Logger({ verbosity: 0, vmodule: {}, flushFrequencyMs: 0, sink: err.stream, infoSink: out.stream, splitStream: true })
    log.info('first')
    log.warning('careful')
    log.error('broken')
    log.info('second')
    assert.match(out.text(), /^I.*first\nI.*second\n$/)
    assert.match(err.text(), /^W.*careful\nE.*broken\n$/)
  })

  it('holds info lines back up to the buffer size, errors going out at once', () => {
    const err = collector()
    const out = collector()
    const log = new Logger({ verbosity: 0, vmodule: {}, flushFrequencyMs: 0, sink: err.stream, infoSink: out.stream, splitStream: true, infoBufferSize: 1024 })
    log.info('held')
    log.error('broken')
    assert.equal(out.text(), '', 'an info line smaller than the buffer is held')
    assert.match(err.text(), /broken/)
    // Enough lines to overflow 1 KiB: what was held goes out before the line that overflows it.
    for (let i = 0; i < 20; i++) log.info(`line ${i} ${'x'.repeat(60)}`)
    assert.match(out.text(), /^I.*held\n/)
    assert.doesNotMatch(out.text(), /line 19 /, 'the last lines are still held')
    log.flush()
    assert.match(out.text(), /line 19 x+\n$/)
  })
})
