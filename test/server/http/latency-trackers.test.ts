import assert from 'node:assert/strict'
import { LatencyTrackers, latencyAnnotations } from '../../../src/server/http/latency-trackers.js'

// The reference's writeLatencyToAnnotation and AuditAnnotationsFromLatencyTrackers; durations as Go's time.Duration.String prints them.
describe('http: latency trackers (slow requests)', () => {
  it('a request at or under 500ms, or with no layer measured, gets no annotation', () => {
    const trackers = new LatencyTrackers()
    trackers.add('responseWrite', 3)
    assert.equal(latencyAnnotations(trackers, 500), undefined)
    assert.equal(latencyAnnotations(new LatencyTrackers(), 900), undefined)
    assert.equal(latencyAnnotations(undefined, 900), undefined)
  })

  it('a slow request gets each measured layer and the total', () => {
    const trackers = new LatencyTrackers()
    trackers.add('responseWrite', 1.25)
    trackers.add('responseWrite', 0.5)
    trackers.max('apfQueueWait', 300)
    trackers.max('apfQueueWait', 200)
    assert.deepEqual(latencyAnnotations(trackers, 1500.5), {
      'apiserver.latency.k8s.io/response-write': '1.75ms',
      'apiserver.latency.k8s.io/apf-queue-wait': '300ms',
      'apiserver.latency.k8s.io/total': '1.5005s',
    })
  })

  it('a layer with no time spent is left out', () => {
    const trackers = new LatencyTrackers()
    trackers.add('responseWrite', 0)
    trackers.max('apfQueueWait', 0.0123)
    assert.deepEqual(latencyAnnotations(trackers, 501), {
      'apiserver.latency.k8s.io/apf-queue-wait': '12.3µs',
      'apiserver.latency.k8s.io/total': '501ms',
    })
  })
})
