/** The general client options built for `patch`: version, warnings, discovery cache, clientrc, profile. */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {
  ClientrcError,
  DiscoveryCache,
  WarningWriter,
  applyCommandDefaults,
  clientVersionInfo,
  clientrcFlag,
  discoveryDirName,
  expandAlias,
  expandCacheDir,
  formatVersion,
  loadPreferences,
  parsePreferences,
  parseVersionFlag,
  profileProblem,
  serverVersionMismatch,
  startProfile,
} from '../../../src/core/client/index.js'
import { CLIENT_OPTIONS } from '../../../src/core/options/catalogue/client.js'
import { PATCH_OPTIONS } from '../../../src/core/options/catalogue/patch.js'

const SPECS = [...PATCH_OPTIONS, ...CLIENT_OPTIONS]
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'client-general-'))

describe('client general options', () => {
  describe('--version', () => {
    it('parses verflag values', () => {
      assert.deepEqual(parseVersionFlag(undefined), { kind: 'print' })
      assert.deepEqual(parseVersionFlag('true'), { kind: 'print' })
      assert.deepEqual(parseVersionFlag('false'), { kind: 'none' })
      assert.deepEqual(parseVersionFlag('raw'), { kind: 'raw' })
      assert.deepEqual(parseVersionFlag('v1.34.2'), { kind: 'set', version: 'v1.34.2' })
      assert.throws(() => parseVersionFlag('bogus'), /invalid argument "bogus" for "--version" flag/)
      assert.throws(() => parseVersionFlag('v1.x'), /not a valid semantic version/)
    })
    it('reports the kubectl-compatible version, or the one set', () => {
      assert.equal(formatVersion(clientVersionInfo(), false), 'Client Version: v1.35.0\n')
      const set = clientVersionInfo('v1.34.2')
      assert.equal(set.minor, '34')
      assert.match(formatVersion(set, true), /^version\.Info\{Major:"1", Minor:"34", GitVersion:"v1\.34\.2", /)
    })
    it('compares major.minor with the server', () => {
      const body = JSON.stringify({ major: '1', minor: '35', gitVersion: 'v1.35.0' })
      assert.equal(serverVersionMismatch(clientVersionInfo(), 200, body), undefined)
      assert.equal(serverVersionMismatch(clientVersionInfo('v1.35.7'), 200, body), undefined)
      assert.equal(serverVersionMismatch(clientVersionInfo('v1.34.0'), 200, body), 'server version (v1.35.0) differs from client version (v1.34.0)')
      assert.match(serverVersionMismatch(clientVersionInfo(), 404, 'nope')!, /^couldn't read version from server/)
    })
  })

  describe('warnings', () => {
    it('prints each distinct warning once and counts them', () => {
      let err = ''
      const w = new WarningWriter((t) => (err += t))
      assert.equal(w.asError(), undefined)
      w.handle(['a', 'b', 'a'])
      assert.equal(err, 'Warning: a\nWarning: b\n')
      assert.equal(w.asError(), '2 warnings received')
      const one = new WarningWriter(() => {})
      one.handle(['x'])
      assert.equal(one.asError(), '1 warning received')
    })
  })

  describe('discovery cache', () => {
    it('uses kubectl\'s layout and directory names', () => {
      assert.equal(discoveryDirName('https://127.0.0.1:6443'), '127.0.0.1_6443')
      const cache = new DiscoveryCache('/c', 'https://h:1')
      assert.equal(cache.groupsFile(), '/c/discovery/h_1/servergroups.json')
      assert.equal(cache.resourcesFile('', 'v1'), '/c/discovery/h_1/v1/serverresources.json')
      assert.equal(cache.resourcesFile('apps', 'v1'), '/c/discovery/h_1/apps/v1/serverresources.json')
      assert.equal(expandCacheDir('$HOME/.client/cache', { HOME: '/home/u' }), '/home/u/.client/cache')
      assert.equal(expandCacheDir(undefined, { HOME: '/home/u' }), '/home/u/.client/cache')
    })
    it('reads fresh entries, forgets stale ones (6h TTL) and invalidates', () => {
      const dir = tmp()
      let now = Date.now()
      const cache = new DiscoveryCache(dir, 'https://h:1', undefined, () => now)
      cache.write(cache.groupsFile(), { groups: [] })
      assert.deepEqual(cache.read(cache.groupsFile()), { groups: [] })
      now += 6 * 3600 * 1000 + 1000
      assert.equal(cache.read(cache.groupsFile()), undefined)
      cache.invalidate()
      assert.equal(fs.existsSync(cache.dir), false)
    })
  })

  describe('clientrc', () => {
    const doc = (body: string) => `apiVersion: kubectl.config.k8s.io/v1beta1\nkind: Preference\n${body}`
    it('finds --clientrc / --kuberc on the command line', () => {
      assert.equal(clientrcFlag(['--clientrc', 'a']), 'a')
      assert.equal(clientrcFlag(['--kuberc=b']), 'b')
      assert.equal(clientrcFlag(['--', '--clientrc=c']), undefined)
    })
    it('refuses an unknown apiVersion or kind, naming the file', () => {
      assert.throws(() => parsePreferences('apiVersion: v1\nkind: Config\n', '/x/rc'), (e: Error) => e instanceof ClientrcError && e.message.includes('"/x/rc"') && e.message.includes('unsupported apiVersion "v1" and kind "Config"'))
      assert.throws(() => parsePreferences(': : :\n  - [', '/x/rc'), /clientrc file "\/x\/rc": invalid YAML/)
    })
    it('applies defaults for patch; explicit flags win', () => {
      const prefs = parsePreferences(doc('defaults:\n- command: patch\n  options:\n  - name: type\n    default: merge\n  - name: output\n    default: name\n- command: get\n  options:\n  - name: output\n    default: wide\n'), 'rc')
      assert.deepEqual(applyCommandDefaults(['cm', 'x'], 'patch', prefs, SPECS), ['--type=merge', '--output=name', 'cm', 'x'])
      assert.deepEqual(applyCommandDefaults(['cm', 'x', '-o', 'yaml', '--type=json'], 'patch', prefs, SPECS), ['cm', 'x', '-o', 'yaml', '--type=json'])
      assert.throws(() => applyCommandDefaults([], 'patch', parsePreferences(doc('defaults:\n- command: patch\n  options:\n  - name: nope\n    default: x\n'), 'rc'), SPECS), /unknown option "nope"/)
    })
    it('expands aliases whose command is patch (options or flags)', () => {
      const prefs = parsePreferences(doc('aliases:\n- name: pm\n  command: patch\n  prependArgs: [configmap]\n  appendArgs: ["-o", "name"]\n  flags:\n  - name: type\n    default: merge\n'), 'rc')
      assert.deepEqual(expandAlias('pm', ['x', '-p', '{}'], 'patch', prefs, SPECS), ['--type=merge', 'configmap', 'x', '-p', '{}', '-o', 'name'])
      assert.equal(expandAlias('other', [], 'patch', prefs, SPECS), undefined)
    })
    it('is off with CLIENTRC=off; a missing default file is no preferences', () => {
      const home = tmp()
      assert.equal(loadPreferences(undefined, { HOME: home }), undefined)
      fs.mkdirSync(path.join(home, '.client'))
      fs.writeFileSync(path.join(home, '.client', 'clientrc'), 'apiVersion: x\nkind: y\n')
      assert.throws(() => loadPreferences(undefined, { HOME: home }), ClientrcError)
      assert.equal(loadPreferences(undefined, { HOME: home, CLIENTRC: 'off' }), undefined)
      assert.throws(() => loadPreferences('missing.yaml', { HOME: home }, home), /no such file or directory/)
    })
  })

  describe('--profile', () => {
    it('refuses the Go-only profiles', () => {
      assert.equal(profileProblem('cpu'), undefined)
      for (const p of ['goroutine', 'threadcreate', 'block', 'mutex', 'trace']) assert.match(profileProblem(p)!, /not available in this client/)
    })
    it('writes a V8 CPU profile', async () => {
      const out = path.join(tmp(), 'p.cpuprofile')
      const profiler = await startProfile('cpu', out)
      await profiler.stop()
      const profile = JSON.parse(fs.readFileSync(out, 'utf8')) as { nodes: unknown[]; startTime: number }
      assert.ok(Array.isArray(profile.nodes) && typeof profile.startTime === 'number')
    })
  })
})
