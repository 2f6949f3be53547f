/**
 * --admission-control-config-file at start-up (the reference's AdmissionOptions.ApplyTo): each
 * enabled plugin's factory gets its own section as `pluginConfig`; a file that cannot be read
 * stops the start-up with `failed to read plugin config: ...` naming it, and a plugin that
 * refuses its configuration with `couldn't init admission plugin "<name>": ...`.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ALL_ORDERED_PLUGINS } from '../../../src/server/admission/enabled-plugins.js'
import { admissionFromConfig } from '../../../src/server/admission/from-config.js'
import { Plugins } from '../../../src/server/admission/plugins.js'
import { StartupError } from '../../../src/server/lifecycle/startup-error.js'

const log = { v: () => {}, warning: () => {} }

describe('admission: the configuration file at start-up', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'admission-file-'))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  // Every allowed name is a plugin (as the server's registry has them); two record what they are given.
  const plugins = (seen: Map<string, unknown>, refuse?: string) => {
    const p = new Plugins()
    for (const name of ALL_ORDERED_PLUGINS) {
      p.register(name, (_init, pluginConfig) => {
        if (name === refuse) throw new Error('bad configuration')
        if (name === 'NamespaceLifecycle' || name === 'AlwaysPullImages') seen.set(name, pluginConfig)
        return { handles: () => false }
      })
    }
    return p
  }
  const config = (file: string) => ({ admissionControlConfigFile: file, admissionPlugins: { enable: ['AlwaysPullImages'], disable: [], given: true } })

  it('hands each enabled plugin its section (inline or by path), undefined to the others', () => {
    writeFileSync(join(dir, 'pull.yaml'), 'pull: always\n')
    const file = join(dir, 'admission.yaml')
    writeFileSync(file, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: AlwaysPullImages\n  path: pull.yaml\n- name: Unrelated\n  configuration: {a: 1}\n')
    const seen = new Map<string, unknown>()
    admissionFromConfig({ config: config(file), stores: () => undefined, log }, plugins(seen))
    assert.deepEqual([...seen], [['NamespaceLifecycle', undefined], ['AlwaysPullImages', { pull: 'always' }]])
  })

  it('a file that cannot be read stops the start-up, naming it', () => {
    const missing = join(dir, 'missing.yaml')
    assert.throws(() => admissionFromConfig({ config: config(missing), stores: () => undefined, log }, plugins(new Map())), (err: Error) => {
      assert.ok(err instanceof StartupError)
      assert.equal(err.message, `failed to read plugin config: unable to read admission control configuration from ${JSON.stringify(missing)} [open ${missing}: no such file or directory]`)
      return true
    })
  })

  it('a plugin that refuses its configuration stops the start-up with the reference\'s wrapping', () => {
    const file = join(dir, 'admission.yaml')
    writeFileSync(file, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: []\n')
    assert.throws(() => admissionFromConfig({ config: config(file), stores: () => undefined, log }, plugins(new Map(), 'AlwaysPullImages')), (err: Error) => {
      assert.ok(err instanceof StartupError)
      assert.equal(err.message, 'couldn\'t init admission plugin "AlwaysPullImages": bad configuration')
      return true
    })
  })
})
