/**
 * --emulated-version with the forward-compatibility options, end to end: emulating 1.33,
 * resource.k8s.io/v1 (GA in 1.34) is not served; --emulation-forward-compatible serves it when
 * its beta version is enabled; enabling it in --runtime-config without
 * --runtime-config-emulation-forward-compatible stops the server with the reference's error.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ApiServer, startExpectingFailure } from '../../support/api-server.js'
import { freePorts } from '../../support/etcd.js'

describe('server: emulation forward compatibility (end to end)', function () {
  this.timeout(120_000)

  it('serves resource.k8s.io/v1 at 1.33 only when forward compatible', async () => {
    const args = ['--emulated-version=1.33', '--runtime-config=resource.k8s.io/v1beta2=true']
    const plain = await ApiServer.start({ waitFor: 'ready', args })
    try {
      assert.equal((await plain.get('/apis/resource.k8s.io/v1')).status, 404)
      assert.equal((await plain.get('/apis/resource.k8s.io/v1beta2')).status, 200)
    } finally {
      await plain.stop()
    }
    const forward = await ApiServer.start({ waitFor: 'ready', args: [...args, '--emulation-forward-compatible'] })
    try {
      const reply = await forward.get('/apis/resource.k8s.io/v1')
      assert.equal(reply.status, 200, reply.body)
      const names = (JSON.parse(reply.body) as { resources: Array<{ name: string }> }).resources.map((r) => r.name)
      assert.ok(names.includes('deviceclasses'), names.join(', '))
    } finally {
      await forward.stop()
    }
  })

  it('refuses a --runtime-config version introduced after the emulated one without --runtime-config-emulation-forward-compatible', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'emulation-'))
    try {
      const { code, output } = await startExpectingFailure([
        '--bind-address=127.0.0.1',
        `--secure-port=${(await freePorts(1))[0]}`,
        `--cert-dir=${join(dir, 'certs')}`,
        `--data-dir=${join(dir, 'data')}`,
        '--emulated-version=1.33',
        '--runtime-config=resource.k8s.io/v1=true',
      ])
      assert.notEqual(code, 0)
      assert.match(output, /cannot enable version resource\.k8s\.io\/v1 in runtime-config because all the resources have been introduced after the current version 1\.33\. Consider setting --runtime-config-emulation-forward-compatible=true/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
