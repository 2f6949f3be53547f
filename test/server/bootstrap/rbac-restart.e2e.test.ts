/**
 * rbac/bootstrap-roles on a restart (end to end, embedded store): the defaults are reconciled
 * from the RBAC informers' list, so this checks what the hook must still do from it: a default
 * that lost rules gets them back (keeping the added ones), one marked autoupdate "false" is left
 * alone, a deleted default is created again, and an untouched one is not written at all.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { jsYaml } from '../../../src/core/util/yaml.js'
import { KubectlSession } from '../../support/kubectl-session.js'

type Obj = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const yamlOf = (text: string): Obj => jsYaml().load(text) as Obj

describe('rbac/bootstrap-roles across a restart (end to end)', function () {
  this.timeout(120_000)
  let dir: string

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'rbac-restart-'))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  const open = (ctx: Mocha.Context) => KubectlSession.open(ctx, 'rbac-restart-', { waitFor: 'ready', dataDir: join(dir, 'data'), certDir: join(dir, 'certs') })

  it('restores lost rules and deleted defaults, leaves autoupdate "false" and untouched defaults unwritten', async function () {
    let untouchedVersion: string
    let defaultRules: unknown[]
    const first = await open(this)
    try {
      defaultRules = yamlOf(await first.ok('get', 'clusterrole', 'system:discovery', '-o', 'yaml')).rules
      assert.ok(defaultRules.length > 0)
      untouchedVersion = yamlOf(await first.ok('get', 'clusterrole', 'system:node-proxier', '-o', 'yaml')).metadata.resourceVersion
      const added = { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }
      await first.ok('patch', 'clusterrole', 'system:discovery', '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/rules', value: [added] }]))
      await first.ok('annotate', 'clusterrole', 'system:basic-user', '--overwrite', 'rbac.authorization.kubernetes.io/autoupdate=false')
      await first.ok('patch', 'clusterrole', 'system:basic-user', '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/rules', value: [added] }]))
      await first.ok('delete', 'clusterrolebinding', 'system:monitoring')
    } finally {
      await first.close()
    }
    const second = await open(this)
    try {
      const discovery = yamlOf(await second.ok('get', 'clusterrole', 'system:discovery', '-o', 'yaml'))
      // The added rule kept, then the missing ones broken down one URL each, as the reference's Covers gives them.
      const urls = (rules: Obj[]) => rules.flatMap((r) => (r.nonResourceURLs as string[]).map((u) => `${r.verbs.join(',')} ${u}`)).sort()
      assert.deepEqual(discovery.rules[0], { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] })
      assert.deepEqual(urls(discovery.rules.slice(1)), urls(defaultRules as Obj[]))
      const basic = yamlOf(await second.ok('get', 'clusterrole', 'system:basic-user', '-o', 'yaml'))
      assert.deepEqual(basic.rules, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }])
      const monitoring = yamlOf(await second.ok('get', 'clusterrolebinding', 'system:monitoring', '-o', 'yaml'))
      assert.deepEqual(monitoring.subjects, [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:monitoring' }])
      const proxier = yamlOf(await second.ok('get', 'clusterrole', 'system:node-proxier', '-o', 'yaml'))
      assert.equal(proxier.metadata.resourceVersion, untouchedVersion)
    } finally {
      await second.close()
    }
  })
})
