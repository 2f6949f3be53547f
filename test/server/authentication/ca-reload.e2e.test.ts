/**
 * --client-ca-file reloaded while the server runs (end to end, kubectl 1.35): a certificate of
 * a CA added to the file is accepted within seconds, the published
 * extension-apiserver-authentication config map follows, and a broken file is logged while the
 * last good bundle stays in effect.
 */
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ApiServer } from '../../support/api-server.js'
import { KUBECTL } from '../../support/kubectl-session.js'
import { makeCa, makeClientCert, whoami } from './helpers.js'

async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

describe('authentication: --client-ca-file reloaded while running (end to end)', function () {
  this.timeout(120_000)
  let server: ApiServer
  let dir: string

  before(async function () {
    if (!existsSync(KUBECTL)) {
      if (process.env.CI) throw new Error(`${KUBECTL} is missing`)
      this.skip()
    }
    dir = mkdtempSync(join(tmpdir(), 'ca-reload-'))
  })
  after(async () => {
    await server?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('accepts the certificates of a CA added to the file, publishes it, and keeps the last good bundle on a broken file', async () => {
    const [caA, caB] = [await makeCa('team-a'), await makeCa('team-b')]
    const caFile = join(dir, 'client-ca.crt')
    writeFileSync(caFile, caA.certPem)
    server = await ApiServer.start({ waitFor: 'ready', args: [`--client-ca-file=${caFile}`] })
    const alice = await makeClientCert(caA, 'alice', ['devs'])
    const bob = await makeClientCert(caB, 'bob', ['ops'])
    assert.equal((await whoami(dir, server.port, alice)).userInfo?.username, 'alice')
    const refused = await whoami(dir, server.port, bob)
    assert.match(refused.run.stderr, /error: You must be logged in to the server \(Unauthorized\)/)

    writeFileSync(caFile, caA.certPem + caB.certPem)
    await eventually('bob to be recognised', async () => (await whoami(dir, server.port, bob)).userInfo?.username === 'bob')
    await eventually('the config map to publish the new CA', async () => {
      const reply = await server.get('/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication')
      return reply.status === 200 && (JSON.parse(reply.body).data['client-ca-file'] as string).includes(caB.certPem.trim().split('\n')[1]!)
    })

    writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\ngarbage\n-----END CERTIFICATE-----\n')
    await eventually('the broken file to be logged', async () => /key failed with : error loading CA bundle for "client-ca-bundle::.*client-ca\.crt"/.test(server.logs))
    assert.equal((await whoami(dir, server.port, bob)).userInfo?.username, 'bob', 'the last good bundle stays')

    writeFileSync(caFile, caB.certPem)
    await eventually('alice to be refused once her CA is removed', async () => (await whoami(dir, server.port, alice)).userInfo === undefined)
    assert.equal((await whoami(dir, server.port, bob)).userInfo?.username, 'bob')
  })
})
