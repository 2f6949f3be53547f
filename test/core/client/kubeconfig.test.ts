import assert from 'node:assert/strict'
import path from 'node:path'
import { ClientConfigError } from '../../../src/core/client/errors.js'
import { defaultKubeconfigPath, kubeconfigPaths, loadKubeconfig, parseKubeconfig } from '../../../src/core/client/kubeconfig.js'
import { FIXTURES, isolatedEnv, kubeconfigText, removeTmpDirs, tmpDir, write } from './support.js'

const DEV = path.join(FIXTURES, 'dev.kubeconfig.yaml')
const PROD = path.join(FIXTURES, 'prod.kubeconfig.json')
const BAD = path.join(FIXTURES, 'bad-indent.kubeconfig.yaml')

function thrown(fn: () => unknown): ClientConfigError {
  try {
    fn()
  } catch (err) {
    assert.ok(err instanceof ClientConfigError, `expected a ClientConfigError, got ${String(err)}`)
    return err
  }
  assert.fail('expected an error')
}

describe('core/client: kubeconfig loading', () => {
  after(removeTmpDirs)

  describe('KUBECONFIG merging', () => {
    it('reads the files in order; for each name the first file that defines it wins, as a whole entry', () => {
      const config = loadKubeconfig({ env: isolatedEnv({ KUBECONFIG: [DEV, PROD].join(path.delimiter) }) })
      assert.deepEqual(config.files, [DEV, PROD])
      assert.deepEqual([...config.clusters.keys()].sort(), ['dev', 'prod', 'shared'])
      assert.equal(config.clusters.get('shared')!.server, 'https://shared-from-dev.example.test')
      assert.equal(config.clusters.get('shared')!.origin, DEV)
      assert.equal(config.clusters.get('prod')!.origin, PROD)
      // The dev file's `shared` user has only a token: nothing of prod's entry is mixed in.
      assert.deepEqual(config.users.get('shared'), { token: 'from-dev', origin: DEV })
      assert.equal(config.contexts.get('shared')!.cluster, 'shared')
      assert.equal(config.currentContext, 'dev')
    })

    it('gives the other file precedence when the order is reversed', () => {
      const config = loadKubeconfig({ env: isolatedEnv({ KUBECONFIG: [PROD, DEV].join(path.delimiter) }) })
      assert.equal(config.clusters.get('shared')!.server, 'https://shared-from-prod.example.test')
      assert.deepEqual(config.users.get('shared'), { token: 'from-prod', clientCertificate: '/abs/prod.crt', origin: PROD })
      assert.equal(config.contexts.get('shared')!.cluster, 'prod')
      assert.equal(config.currentContext, 'prod')
    })

    it('takes current-context and preferences from the first file that sets them', () => {
      const dir = tmpDir()
      const first = write(dir, 'first.yaml', kubeconfigText({ clusters: [{ name: 'a', cluster: { server: 'https://a' } }] }))
      const second = write(dir, 'second.yaml', kubeconfigText({ 'current-context': 'from-second', preferences: { colors: false } }))
      const third = write(dir, 'third.yaml', kubeconfigText({ 'current-context': 'from-third', preferences: { colors: true, extra: 1 } }))
      const config = loadKubeconfig({ env: isolatedEnv({ KUBECONFIG: [first, second, third].join(path.delimiter) }) })
      assert.equal(config.currentContext, 'from-second')
      assert.deepEqual(config.preferences, { colors: false, extra: 1 })
    })

    it('skips missing files and records them; all missing gives an empty configuration', () => {
      const dir = tmpDir()
      const missing = path.join(dir, 'absent.yaml')
      const config = loadKubeconfig({ env: isolatedEnv({ KUBECONFIG: [missing, DEV].join(path.delimiter) }) })
      assert.deepEqual(config.missing, [missing])
      assert.equal(config.currentContext, 'dev')
      const empty = loadKubeconfig({ env: isolatedEnv({ KUBECONFIG: missing }) })
      assert.equal(empty.clusters.size + empty.users.size + empty.contexts.size, 0)
      assert.equal(empty.currentContext, undefined)
    })

    it('drops empty and repeated entries of the list', () => {
      const list = ['', DEV, '', PROD, DEV].join(path.delimiter)
      assert.deepEqual(kubeconfigPaths(undefined, { KUBECONFIG: list }), { paths: [DEV, PROD], explicit: false })
    })

    it('fails on a bad file anywhere in the list, naming it (kubectl: error loading config file)', () => {
      const err = thrown(() => loadKubeconfig({ env: isolatedEnv({ KUBECONFIG: [DEV, BAD].join(path.delimiter) }) }))
      assert.equal(err.message, `error loading config file "${BAD}": yaml: line 6: bad indentation of a mapping entry`)
      assert.equal(err.display, `error: error loading config file "${BAD}": yaml: line 6: bad indentation of a mapping entry`)
    })
  })

  describe('--kubeconfig', () => {
    it('reads that file alone, ignoring KUBECONFIG', () => {
      const config = loadKubeconfig({ kubeconfig: PROD, env: isolatedEnv({ KUBECONFIG: DEV }) })
      assert.deepEqual(config.files, [PROD])
      assert.equal(config.clusters.has('dev'), false)
      assert.equal(config.currentContext, 'prod')
    })

    it('fails when the file does not exist, with os.Stat text', () => {
      const missing = path.join(tmpDir(), 'nope.yaml')
      const err = thrown(() => loadKubeconfig({ kubeconfig: missing, env: isolatedEnv({ KUBECONFIG: DEV }) }))
      assert.equal(err.message, `stat ${missing}: no such file or directory`)
    })

    it('reports a directory as a file that cannot be read', () => {
      const dir = tmpDir()
      assert.equal(thrown(() => loadKubeconfig({ kubeconfig: dir, env: isolatedEnv() })).message, `error loading config file "${dir}": read ${dir}: is a directory`)
    })
  })

  describe('default file', () => {
    it('reads $HOME/.kube/config when neither --kubeconfig nor KUBECONFIG is set', () => {
      const home = tmpDir()
      write(home, '.kube/config', kubeconfigText({ 'current-context': 'home', contexts: [{ name: 'home', context: { cluster: 'c' } }] }))
      assert.equal(defaultKubeconfigPath({ HOME: home }), path.join(home, '.kube', 'config'))
      const config = loadKubeconfig({ env: { HOME: home } })
      assert.equal(config.currentContext, 'home')
      assert.deepEqual(config.files, [path.join(home, '.kube', 'config')])
    })

    it('gives an empty configuration when $HOME/.kube/config is absent', () => {
      const config = loadKubeconfig({ env: { HOME: tmpDir() } })
      assert.deepEqual(config.files, [])
      assert.equal(config.clusters.size, 0)
    })
  })

  describe('file contents', () => {
    it('resolves relative paths against the directory of the file that defines them', () => {
      const config = loadKubeconfig({ kubeconfig: DEV, env: isolatedEnv() })
      assert.equal(config.clusters.get('dev')!.certificateAuthority, path.join(FIXTURES, 'certs/dev-ca.crt'))
      assert.equal(config.users.get('dev-admin')!.clientCertificate, path.join(FIXTURES, 'certs/admin.crt'))
      assert.equal(config.users.get('dev-admin')!.clientKey, path.join(FIXTURES, 'certs/admin.key'))
      assert.equal(config.users.get('dev-token')!.tokenFile, path.join(FIXTURES, 'tokens/dev.token'))
      // Absolute paths stay as they are.
      const prod = loadKubeconfig({ kubeconfig: PROD, env: isolatedEnv() })
      assert.equal(prod.users.get('shared')!.clientCertificate, '/abs/prod.crt')
    })

    it('resolves against each file of a merge separately', () => {
      const a = tmpDir()
      const b = tmpDir()
      const fileA = write(a, 'config', kubeconfigText({ clusters: [{ name: 'x', cluster: { server: 'https://x', 'certificate-authority': 'ca.crt' } }] }))
      const fileB = write(b, 'sub/config', kubeconfigText({ users: [{ name: 'u', user: { 'client-certificate': '../u.crt', 'client-key': 'u.key' } }] }))
      const config = loadKubeconfig({ env: isolatedEnv({ KUBECONFIG: [fileA, fileB].join(path.delimiter) }) })
      assert.equal(config.clusters.get('x')!.certificateAuthority, path.join(a, 'ca.crt'))
      assert.equal(config.users.get('u')!.clientCertificate, path.join(b, 'u.crt'))
      assert.equal(config.users.get('u')!.clientKey, path.join(b, 'sub', 'u.key'))
    })

    it('decodes *-data fields from base64', () => {
      const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'
      const config = parseKubeconfig(
        kubeconfigText({
          clusters: [{ name: 'c', cluster: { server: 'https://c', 'certificate-authority-data': Buffer.from(pem).toString('base64') } }],
          users: [{ name: 'u', user: { 'client-certificate-data': Buffer.from('cert').toString('base64'), 'client-key-data': 'a2V5' } }],
        }),
        'inline.yaml',
      )
      assert.equal(config.clusters.get('c')!.certificateAuthorityData!.toString(), pem)
      assert.equal(config.users.get('u')!.clientCertificateData!.toString(), 'cert')
      assert.equal(config.users.get('u')!.clientKeyData!.toString(), 'key')
      assert.equal(loadKubeconfig({ kubeconfig: PROD, env: isolatedEnv() }).clusters.get('prod')!.certificateAuthorityData!.toString(), 'prod-ca')
    })

    it('rejects data that is not base64, naming the file and field', () => {
      const file = write(tmpDir(), 'config', kubeconfigText({ users: [{ name: 'u', user: { 'client-key-data': 'no*base64' } }] }))
      assert.equal(
        thrown(() => loadKubeconfig({ kubeconfig: file, env: isolatedEnv() })).message,
        `error loading config file "${file}": users["u"].user.client-key-data: illegal base64 data at input byte 2`,
      )
    })

    it('reads YAML 1.1 booleans as go-yaml does (yes, on)', () => {
      const config = loadKubeconfig({ kubeconfig: DEV, env: isolatedEnv() })
      assert.equal(config.clusters.get('shared')!.insecureSkipTlsVerify, true)
    })

    it('reads impersonation, basic auth and plugin fields of users', () => {
      const config = parseKubeconfig(
        [
          'users:',
          '- name: imp',
          '  user:',
          '    token: t',
          '    as: alice',
          '    as-uid: "42"',
          '    as-groups: [devs, ops]',
          '    as-user-extra: {scopes: [view, edit]}',
          '- name: p',
          '  user:',
          '    auth-provider: {name: oidc, config: {idp: x}}',
        ].join('\n'),
        'imp.yaml',
      )
      assert.deepEqual(config.users.get('imp'), {
        token: 't',
        as: 'alice',
        asUid: '42',
        asGroups: ['devs', 'ops'],
        asUserExtra: { scopes: ['view', 'edit'] },
        origin: path.resolve('imp.yaml'),
      })
      assert.deepEqual(config.users.get('p')!.authProvider, { name: 'oidc' })
    })

    it('treats an empty file, or one with comments only, as an empty configuration', () => {
      for (const text of ['', '# nothing here\n']) {
        const config = parseKubeconfig(text, 'empty.yaml')
        assert.equal(config.clusters.size + config.users.size + config.contexts.size, 0)
      }
    })

    it('rejects fields of the wrong type with encoding/json text', () => {
      const file = write(tmpDir(), 'config', 'clusters:\n- name: c\n  cluster:\n    server: 6443\n')
      assert.equal(
        thrown(() => loadKubeconfig({ kubeconfig: file, env: isolatedEnv() })).message,
        `error loading config file "${file}": json: cannot unmarshal number into Go struct field clusters["c"].cluster.server of type string`,
      )
      const list = write(tmpDir(), 'config', 'clusters: {c: {server: x}}\n')
      assert.match(thrown(() => loadKubeconfig({ kubeconfig: list, env: isolatedEnv() })).message, /cannot unmarshal object into Go struct field clusters of type \[\]v1\.NamedCluster$/)
      const scalar = write(tmpDir(), 'config', 'just text\n')
      assert.match(thrown(() => loadKubeconfig({ kubeconfig: scalar, env: isolatedEnv() })).message, /json: cannot unmarshal string into Go value of type v1\.Config$/)
    })

    it('rejects a name defined twice in one file', () => {
      const file = write(tmpDir(), 'config', kubeconfigText({ contexts: [{ name: 'x', context: {} }, { name: 'x', context: {} }] }))
      assert.match(thrown(() => loadKubeconfig({ kubeconfig: file, env: isolatedEnv() })).message, /duplicate name "x" in list: contexts$/)
    })
  })
})
