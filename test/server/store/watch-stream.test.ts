import assert from 'node:assert/strict'
import { UnavailableError } from '../../../src/server/store/errors.js'
import { WatchStream } from '../../../src/server/store/watch-stream.js'
import type { WatchEvent } from '../../../src/server/store/types.js'

const ev = (revision: number): WatchEvent => ({ type: 'create', key: `/k/${revision}`, value: Buffer.from('v'), revision, createRevision: revision })

describe('store: WatchStream.listen (events handed over as they are pushed)', () => {
  it('hands what was buffered first, then each push synchronously, in order', () => {
    const stream = new WatchStream('test', 1, () => {})
    stream.push(ev(1))
    stream.push(ev(2))
    const seen: number[] = []
    stream.listen({ event: (e) => seen.push(e.revision), end: () => seen.push(-1) })
    assert.deepEqual(seen, [1, 2])
    stream.push(ev(3))
    assert.deepEqual(seen, [1, 2, 3])
    assert.equal(stream.awaitingEvents, true)
  })

  it('ends the sink once with the failure, and not after a cancel', () => {
    const failed = new WatchStream('test', 1, () => {})
    const ends: unknown[] = []
    failed.listen({ event: () => {}, end: (err) => ends.push(err) })
    const error = new UnavailableError('gone')
    failed.fail(error)
    failed.fail(error)
    assert.deepEqual(ends, [error])

    const cancelled = new WatchStream('test', 1, () => {})
    const seen: string[] = []
    cancelled.listen({ event: () => seen.push('event'), end: () => seen.push('end') })
    cancelled.cancel()
    cancelled.push(ev(1))
    cancelled.end()
    assert.deepEqual(seen, [])
  })

  it('a stream that already ended ends the sink after its buffered events', () => {
    const stream = new WatchStream('test', 1, () => {})
    stream.push(ev(1))
    stream.end()
    const seen: unknown[] = []
    stream.listen({ event: (e) => seen.push(e.revision), end: (err) => seen.push(err ?? 'end') })
    assert.deepEqual(seen, [1, 'end'])
  })

  it('stops handing over buffered events when the sink cancels the stream', () => {
    const stream = new WatchStream('test', 1, () => {})
    stream.push(ev(1))
    stream.push(ev(2))
    const seen: number[] = []
    stream.listen({
      event: (e) => {
        seen.push(e.revision)
        stream.cancel()
      },
      end: () => seen.push(-1),
    })
    assert.deepEqual(seen, [1])
  })

  it('refuses a listener while next() waits', () => {
    const stream = new WatchStream('test', 1, () => {})
    void stream.next()
    assert.throws(() => stream.listen({ event: () => {}, end: () => {} }), /next\(\) is pending/)
  })
})
