/**
 * The kubelet's restart rule on its own: which exits restart (restartPolicy), the back-off
 * (10 s doubling to 5 min, printed as Go prints a duration) and when a waiting container runs again.
 */
import assert from 'node:assert/strict'
import { applyRestartStep, backOffMs, goDuration, nextRestartStep, restarts } from '../../../src/server/simnodes/container-restarts.js'

const pod = (restartPolicy: string | undefined, containerStatuses: unknown[]) => ({
  metadata: { name: 'p', namespace: 'default', uid: 'u' },
  spec: { ...(restartPolicy ? { restartPolicy } : {}), containers: [{ name: 'app' }] },
  status: { phase: 'Running', containerStatuses },
})

describe('container restarts', () => {
  it('restarts on Always (the default) and on OnFailure after a non-zero exit only', () => {
    assert.deepEqual(
      [restarts(pod(undefined, []), 0), restarts(pod('Always', []), 0), restarts(pod('OnFailure', []), 1), restarts(pod('OnFailure', []), 0), restarts(pod('Never', []), 1)],
      [true, true, true, false, false],
    )
  })

  it("backs off 10s, doubling up to 5m0s, in Go's duration notation", () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 12].map((n) => goDuration(backOffMs(n))), ['10s', '20s', '40s', '1m20s', '2m40s', '5m0s', '5m0s', '5m0s'])
  })

  it('puts an exited container in back-off, then runs it when its back-off since the exit has passed', () => {
    const exited = pod('Always', [{ name: 'app', restartCount: 0, state: { terminated: { exitCode: 1 } } }])
    assert.deepEqual(nextRestartStep(exited, 0), { kind: 'back-off', container: 'app', delayMs: 1000 })
    const finishedAt = '2026-01-01T00:00:00Z'
    const waiting = pod('Always', [{ name: 'app', restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, finishedAt } } }])
    assert.deepEqual(nextRestartStep(waiting, Date.parse(finishedAt) + 5_000), { kind: 'run', container: 'app', delayMs: 15_000 })
    assert.equal(nextRestartStep(pod('Never', [{ name: 'app', state: { terminated: { exitCode: 1 } } }]), 0), undefined)
  })

  it("restarts the first exit at once, as the kubelet's doBackOff, with the exited container as the last state", () => {
    const exited = pod('Always', [{ name: 'app', restartCount: 0, containerID: 'containerd://old', state: { terminated: { exitCode: 1, finishedAt: '2026-01-01T00:00:00Z' } } }])
    const first = applyRestartStep(exited, { kind: 'back-off', container: 'app', delayMs: 0 }, '2026-01-01T00:00:01Z')!
    const [again] = first.status.containerStatuses as Array<{ containerID?: string; restartCount: number; ready: boolean; lastState: { terminated: { containerID?: string } }; state: { running?: { startedAt: string } } }>
    assert.deepEqual([again!.containerID, again!.lastState.terminated.containerID, again!.restartCount, again!.ready, again!.state.running?.startedAt], [undefined, 'containerd://old', 1, true, '2026-01-01T00:00:01Z'])
    assert.deepEqual(first.events, [])
  })

  it("backs off a later exit keeping the exited container's ID and restart count while it waits; the new container counts one more", () => {
    const exited = pod('Always', [{ name: 'app', restartCount: 1, containerID: 'containerd://old', state: { terminated: { exitCode: 1, finishedAt: '2026-01-01T00:00:00Z' } } }])
    const waiting = applyRestartStep(exited, { kind: 'back-off', container: 'app', delayMs: 0 }, '2026-01-01T00:00:01Z')!
    const [backedOff] = waiting.status.containerStatuses as Array<{ containerID?: string; restartCount: number; lastState: { terminated: { containerID?: string } }; state: { waiting?: { reason: string; message: string } } }>
    assert.deepEqual([backedOff!.containerID, backedOff!.lastState.terminated.containerID, backedOff!.restartCount], ['containerd://old', 'containerd://old', 1])
    assert.equal(backedOff!.state.waiting?.reason, 'CrashLoopBackOff')
    assert.match(backedOff!.state.waiting!.message, /^back-off 10s restarting failed container=app pod=/)
    assert.deepEqual(waiting.events.map((e) => e.reason), ['BackOff'])
    const running = applyRestartStep({ ...exited, status: waiting.status }, { kind: 'run', container: 'app', delayMs: 0 }, '2026-01-01T00:00:11Z')!
    const [again] = running.status.containerStatuses as Array<{ containerID?: string; ready: boolean; restartCount: number; state: { running?: { startedAt: string } } }>
    assert.deepEqual([again!.containerID, again!.ready, again!.restartCount, again!.state.running?.startedAt], [undefined, true, 2, '2026-01-01T00:00:11Z'])
  })
})
