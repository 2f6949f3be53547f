/**
 * The runtime's IDs the simulated nodes add to pod statuses: containerd's formats, as a kubelet
 * on containerd reports them (`imageID: docker.io/library/nginx@sha256:...`,
 * `containerID: containerd://...`), and an empty imageID for a container not started.
 */
import assert from 'node:assert/strict'
import { imageId, withRuntimeIds } from '../../../src/server/simnodes/runtime-ids.js'

describe('simulated nodes: runtime IDs in container statuses', () => {
  it("qualifies the image's repository as Docker does, without its tag, at a sha256 digest", () => {
    assert.match(imageId('nginx'), /^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/)
    assert.match(imageId('nginx:1.27'), /^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/)
    assert.match(imageId('me/app:v1'), /^docker\.io\/me\/app@sha256:[0-9a-f]{64}$/)
    assert.match(imageId('registry.k8s.io/pause:3.10'), /^registry\.k8s\.io\/pause@sha256:[0-9a-f]{64}$/)
    assert.match(imageId('localhost:5000/app'), /^localhost:5000\/app@sha256:[0-9a-f]{64}$/)
    assert.notEqual(imageId('nginx:1.26'), imageId('nginx:1.27'))
  })

  it('fills imageID and containerID of started containers, an empty imageID for waiting ones, and keeps given IDs', () => {
    const status = withRuntimeIds({
      phase: 'Running',
      containerStatuses: [
        { name: 'a', image: 'nginx', ready: true, restartCount: 0, state: { running: { startedAt: 'x' } } },
        { name: 'b', image: 'busybox', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } },
        { name: 'c', image: 'busybox', imageID: 'given', containerID: 'containerd://given', ready: true, restartCount: 0, state: { running: {} } },
      ],
    }, 'uid-1')
    const [a, b, c] = status.containerStatuses as Array<Record<string, unknown>>
    assert.match(String(a?.imageID), /^docker\.io\/library\/nginx@sha256:/)
    assert.match(String(a?.containerID), /^containerd:\/\/[0-9a-f]{64}$/)
    assert.equal(b?.imageID, '')
    assert.equal(b?.containerID, undefined)
    assert.equal(c?.imageID, 'given')
    assert.equal(c?.containerID, 'containerd://given')
  })
})
