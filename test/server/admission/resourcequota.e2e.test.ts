/**
 * The ResourceQuota plugin, on by default, and the quota controller seen with the real
 * kubectl: a quota of two pods lets two in and refuses the third with the reference's 403
 * message, and `kubectl describe quota` shows the usage the plugin and controller keep.
 */
import assert from 'node:assert/strict'
import { KubectlSession } from '../../support/kubectl-session.js'
import { describeEachKubectl } from '../../support/kubectl-versions.js'

describeEachKubectl('admission: ResourceQuota with the real kubectl', function (client) {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'admission-quota-', { waitFor: 'ready', kubectl: client.tool })
  })
  after(async () => {
    await session?.close()
  })

  const ok = (...args: string[]): Promise<string> => session.ok(...args)

  it('a quota of two pods refuses the third, and describe shows pods 2 of 2', async () => {
    await ok('create', 'namespace', 'q')
    await ok('create', 'quota', 'quota', '--hard=pods=2', '-n', 'q')
    // The controller fills in status.used first (until then the reference refuses: status unknown).
    for (let i = 0; i < 100 && (await ok('get', 'quota', 'quota', '-n', 'q', '-o', 'jsonpath={.status.used.pods}')) !== '0'; i++) await new Promise((r) => setTimeout(r, 50))
    await ok('run', 'p1', '--image=nginx', '-n', 'q')
    await ok('run', 'p2', '--image=nginx', '-n', 'q')
    const r = await session.run('run', 'p3', '--image=nginx', '-n', 'q')
    assert.notEqual(r.code, 0)
    assert.equal(r.stderr, 'Error from server (Forbidden): pods "p3" is forbidden: exceeded quota: quota, requested: pods=1, used: pods=2, limited: pods=2\n')
    const described = await ok('describe', 'quota', 'quota', '-n', 'q')
    assert.match(described, /^Name:\s+quota\nNamespace:\s+q\nResource\s+Used\s+Hard\n-+\s+-+\s+-+\npods\s+2\s+2\n/)
  })
})
