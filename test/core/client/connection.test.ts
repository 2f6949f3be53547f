import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { NO_SERVER_MESSAGE, normalizeServer, resolveConnection } from '../../../src/core/client/connection.js'
import { ClientConfigError } from '../../../src/core/client/errors.js'
import type { ClientFlags } from '../../../src/core/client/flags.js'
import { headerKeyEscape, impersonationHeaders } from '../../../src/core/client/impersonation.js'
import { INVALID_TIMEOUT, parseRequestTimeout } from '../../../src/core/client/request-timeout.js'
import { type Pki, isolatedEnv, kubeconfigText, removeTmpDirs, testPki, tmpDir, write } from './support.js'

function thrown(fn: () => unknown): ClientConfigError {
  try {
    fn()
  } catch (err) {
    assert.ok(err instanceof ClientConfigError, `expected a ClientConfigError, got ${String(err)}`)
    return err
  }
  assert.fail('expected an error')
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

describe('core/client: connection resolution', () => {
  let pki: Pki
  let dir: string
  let kubeconfig: string
  let files: { ca: string; otherCa: string; cert: string; key: string; strangerCert: string; strangerKey: string; token: string }

  before(async () => {
    pki = await testPki()
    dir = tmpDir()
    files = {
      ca: write(dir, 'pki/ca.crt', pki.ca.certPem),
      otherCa: write(dir, 'pki/other-ca.crt', pki.otherCa.certPem),
      cert: write(dir, 'pki/admin.crt', pki.client.certPem),
      key: write(dir, 'pki/admin.key', pki.client.keyPem),
      strangerCert: write(dir, 'pki/stranger.crt', pki.stranger.certPem),
      strangerKey: write(dir, 'pki/stranger.key', pki.stranger.keyPem),
      token: write(dir, 'token.txt', '  file-token\n'),
    }
    kubeconfig = write(
      dir,
      'config',
      kubeconfigText({
        'current-context': 'main',
        clusters: [
          { name: 'main', cluster: { server: 'https://main.example.test:6443', 'certificate-authority': 'pki/ca.crt', 'tls-server-name': 'main-sni' } },
          { name: 'other', cluster: { server: 'https://other.example.test', 'insecure-skip-tls-verify': true } },
          { name: 'plain', cluster: { server: 'http://127.0.0.1:8080' } },
          { name: 'bare', cluster: { server: '127.0.0.1:6443' } },
          { name: 'bare-ca', cluster: { server: '127.0.0.1:6443', 'certificate-authority-data': Buffer.from(pki.ca.certPem).toString('base64') } },
          { name: 'serverless', cluster: { 'certificate-authority': 'pki/ca.crt' } },
          { name: 'compressionless', cluster: { server: 'https://c.example.test', 'disable-compression': true } },
        ],
        users: [
          { name: 'cert-user', user: { 'client-certificate': 'pki/admin.crt', 'client-key': 'pki/admin.key' } },
          { name: 'token-user', user: { token: 't0k' } },
          { name: 'file-user', user: { tokenFile: 'token.txt' } },
          { name: 'basic-user', user: { username: 'ops', password: 's3cret' } },
          { name: 'exec-user', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'cloud-login' } } },
          { name: 'oidc-user', user: { 'auth-provider': { name: 'oidc' } } },
          { name: 'imp-user', user: { token: 'imp', as: 'bob', 'as-groups': ['g1'], 'as-uid': 'u1', 'as-user-extra': { scopes: ['a', 'b'] } } },
          { name: 'test', user: { token: 'x', 'as-groups': ['devs'] } },
        ],
        contexts: [
          { name: 'main', context: { cluster: 'main', user: 'cert-user', namespace: 'team' } },
          { name: 'other', context: { cluster: 'other', user: 'token-user' } },
          { name: 'exec', context: { cluster: 'main', user: 'exec-user' } },
          { name: 'oidc', context: { cluster: 'main', user: 'oidc-user' } },
          { name: 'imp', context: { cluster: 'other', user: 'imp-user' } },
          { name: 'plain', context: { cluster: 'plain', user: 'token-user' } },
          { name: 'test', context: { cluster: 'other', user: 'test' } },
          { name: 'serverless', context: { cluster: 'serverless' } },
          { name: 'dangling', context: { cluster: 'not-defined' } },
        ],
      }),
    )
  })
  after(removeTmpDirs)

  const resolve = (flags: ClientFlags = {}) => resolveConnection({ kubeconfig, ...flags }, isolatedEnv(), { version: '1.2.3' })

  describe('selection and overrides', () => {
    it('uses the current context: its cluster, user and namespace', () => {
      const conn = resolve()
      assert.equal(conn.server, 'https://main.example.test:6443')
      assert.equal(conn.namespace, 'team')
      assert.equal(conn.tls.ca!.toString(), pki.ca.certPem)
      assert.equal(conn.tls.cert!.toString(), pki.client.certPem)
      assert.equal(conn.tls.key!.toString(), pki.client.keyPem)
      assert.equal(conn.tls.serverName, 'main-sni')
      assert.equal(conn.tls.insecureSkipVerify, false)
      assert.deepEqual(conn.headers, {})
      assert.deepEqual(conn.origin, { context: 'main', cluster: 'main', user: 'cert-user', files: [kubeconfig] })
      assert.deepEqual(conn.warnings, [])
    })

    it('--context selects another context', () => {
      const conn = resolve({ context: 'other' })
      assert.equal(conn.server, 'https://other.example.test')
      assert.equal(conn.tls.insecureSkipVerify, true)
      assert.equal(conn.tls.ca, undefined)
      assert.deepEqual(conn.headers, { Authorization: 'Bearer t0k' })
      assert.equal(conn.namespace, 'default')
    })

    it('--cluster and --user select entries over the context', () => {
      const conn = resolve({ cluster: 'other', user: 'token-user' })
      assert.equal(conn.server, 'https://other.example.test')
      assert.deepEqual(conn.headers, { Authorization: 'Bearer t0k' })
      assert.equal(conn.tls.cert, undefined)
      assert.equal(conn.namespace, 'team') // still the context's
      assert.deepEqual(conn.origin, { context: 'main', cluster: 'other', user: 'token-user', files: [kubeconfig] })
    })

    it('--server overrides the server and drops the cluster tls-server-name', () => {
      const conn = resolve({ server: 'https://127.0.0.1:7443' })
      assert.equal(conn.server, 'https://127.0.0.1:7443')
      assert.equal(conn.tls.serverName, undefined)
      assert.equal(conn.tls.ca!.toString(), pki.ca.certPem) // the CA stays
      assert.equal(resolve({ server: 'https://127.0.0.1:7443', tlsServerName: 'given' }).tls.serverName, 'given')
    })

    it('-s without a scheme gets https:// when the cluster has a CA', () => {
      assert.equal(resolve({ server: '127.0.0.1:7443' }).server, 'https://127.0.0.1:7443')
    })

    it('--tls-server-name overrides the cluster value', () => {
      assert.equal(resolve({ tlsServerName: 'flag-sni' }).tls.serverName, 'flag-sni')
    })

    it('--certificate-authority replaces the CA and clears a kubeconfig insecure-skip-tls-verify', () => {
      const conn = resolve({ context: 'other', certificateAuthority: files.otherCa })
      assert.equal(conn.tls.insecureSkipVerify, false)
      assert.equal(conn.tls.ca!.toString(), pki.otherCa.certPem)
      assert.equal(resolve({ certificateAuthority: files.otherCa }).tls.ca!.toString(), pki.otherCa.certPem)
    })

    it('--insecure-skip-tls-verify clears the kubeconfig CA', () => {
      const conn = resolve({ insecureSkipTlsVerify: true })
      assert.equal(conn.tls.insecureSkipVerify, true)
      assert.equal(conn.tls.ca, undefined)
    })

    it('--client-certificate and --client-key override the user files', () => {
      const conn = resolve({ clientCertificate: files.strangerCert, clientKey: files.strangerKey })
      assert.equal(conn.tls.cert!.toString(), pki.stranger.certPem)
      assert.equal(conn.tls.key!.toString(), pki.stranger.keyPem)
      const added = resolve({ context: 'other', clientCertificate: files.cert, clientKey: files.key })
      assert.equal(added.tls.cert!.toString(), pki.client.certPem)
      assert.deepEqual(added.headers, { Authorization: 'Bearer t0k' }) // token and certificate together are fine
    })

    it('--token overrides the user token and token file', () => {
      assert.deepEqual(resolve({ context: 'other', token: 'flag' }).headers, { Authorization: 'Bearer flag' })
      assert.deepEqual(resolve({ user: 'file-user', token: 'flag' }).headers, { Authorization: 'Bearer flag' })
      // Added to a certificate user: both are used.
      const conn = resolve({ token: 'flag' })
      assert.deepEqual(conn.headers, { Authorization: 'Bearer flag' })
      assert.ok(conn.tls.cert)
    })

    it('--username and --password give basic auth', () => {
      assert.deepEqual(resolve({ username: 'me', password: 'pw' }).headers, { Authorization: basic('me', 'pw') })
      assert.deepEqual(resolve({ user: 'basic-user', password: 'other' }).headers, { Authorization: basic('ops', 'other') })
    })

    it('refuses basic auth added to a token user (kubectl: more than one authentication method)', () => {
      const err = thrown(() => resolve({ context: 'other', username: 'me', password: 'pw' }))
      assert.equal(err.message, 'more than one authentication method found for token-user; found [token basicAuth], only one is allowed')
      assert.equal(err.display, 'Error in configuration: more than one authentication method found for token-user; found [token basicAuth], only one is allowed')
    })

    it('-n/--namespace over the context namespace over default', () => {
      assert.equal(resolve({ namespace: 'flag-ns' }).namespace, 'flag-ns')
      assert.equal(resolve().namespace, 'team')
      assert.equal(resolve({ context: 'other' }).namespace, 'default')
    })

    it('--disable-compression, or the cluster disable-compression, turns compression off', () => {
      assert.equal(resolve().compression, true)
      assert.equal(resolve({ disableCompression: true }).compression, false)
      assert.equal(resolve({ cluster: 'compressionless', user: 'token-user' }).compression, false)
    })

    it('keeps a server path as a prefix, without the trailing slash', () => {
      assert.equal(resolve({ server: 'https://proxy.example.test/k8s/clusters/c-1/' }).server, 'https://proxy.example.test/k8s/clusters/c-1')
      assert.equal(normalizeServer('example.test', false), 'http://example.test')
      assert.equal(normalizeServer('example.test:6443', true), 'https://example.test:6443')
      assert.equal(normalizeServer('https://[::1]:6443/', false), 'https://[::1]:6443')
      assert.equal(thrown(() => normalizeServer('ftp://example.test', true)).message, 'unsupported protocol scheme "ftp"')
      assert.equal(thrown(() => normalizeServer('https://exa mple', true)).message, 'host must be a URL or a host:port pair: "https://exa mple"')
    })

    it('sends the User-Agent client/<version> (<os>/<arch>)', () => {
      assert.match(resolve().userAgent, /^client\/1\.2\.3 \((linux|darwin|windows|[a-z0-9]+)\/(amd64|arm64|386|arm|[a-z0-9]+)\)$/)
      const pkg = JSON.parse(fs.readFileSync(path.resolve('package.json'), 'utf8')) as { version: string }
      const conn = resolveConnection({ kubeconfig }, isolatedEnv())
      assert.ok(conn.userAgent.startsWith(`client/${pkg.version} (`), conn.userAgent)
    })
  })

  describe('plain HTTP', () => {
    it('sends no credentials or impersonation over http://, as kubectl, and says so', () => {
      const conn = resolve({ context: 'plain', as: 'alice' })
      assert.equal(conn.server, 'http://127.0.0.1:8080')
      assert.deepEqual(conn.headers, {})
      assert.match(conn.warnings.join('\n'), /credentials and impersonation are not sent to http:\/\/127\.0\.0\.1:8080/)
    })

    it('prefixes http:// to a bare host:port without TLS settings, https:// with a CA', () => {
      assert.equal(resolve({ cluster: 'bare', user: 'token-user' }).server, 'http://127.0.0.1:6443')
      const withCa = resolve({ cluster: 'bare-ca', user: 'token-user' })
      assert.equal(withCa.server, 'https://127.0.0.1:6443')
      assert.deepEqual(withCa.headers, { Authorization: 'Bearer t0k' })
    })
  })

  describe('credentials from files', () => {
    it('reads the token file, trimmed', () => {
      assert.deepEqual(resolve({ user: 'file-user' }).headers, { Authorization: 'Bearer file-token' })
    })

    it('fails on an empty token file', () => {
      const empty = write(dir, 'empty-token', '\n')
      const cfg = write(dir, 'empty-token.yaml', kubeconfigText({ clusters: [{ name: 'c', cluster: { server: 'https://c' } }], users: [{ name: 'u', user: { tokenFile: empty } }] }))
      assert.equal(thrown(() => resolveConnection({ kubeconfig: cfg, cluster: 'c', user: 'u' }, isolatedEnv())).message, `read empty token from file "${empty}"`)
    })

    it('names an unreadable certificate authority as clientcmd does', () => {
      const missing = path.join(dir, 'nope.crt')
      const err = thrown(() => resolve({ certificateAuthority: missing }))
      assert.equal(err.message, `unable to read certificate-authority ${missing} for main due to open ${missing}: no such file or directory`)
    })

    it('names an unreadable client certificate and key', () => {
      const missing = path.join(dir, 'nope.pem')
      assert.equal(thrown(() => resolve({ clientCertificate: missing })).message, `unable to read client-cert ${missing} for cert-user due to open ${missing}: no such file or directory`)
      assert.equal(thrown(() => resolve({ clientKey: missing })).message, `unable to read client-key ${missing} for cert-user due to open ${missing}: no such file or directory`)
    })

    it('needs a key with a client certificate', () => {
      assert.equal(
        thrown(() => resolve({ context: 'other', clientCertificate: files.cert })).message,
        'client-key-data or client-key must be specified for token-user to use the clientCert authentication method.',
      )
    })

    it('checks that the key matches the certificate, and that PEM is there', () => {
      assert.equal(thrown(() => resolve({ clientKey: files.strangerKey })).message, 'tls: private key does not match public key')
      assert.equal(thrown(() => resolve({ clientCertificate: files.token })).message, 'tls: failed to find any PEM data in certificate input')
      assert.equal(thrown(() => resolve({ clientKey: files.token })).message, 'tls: failed to find any PEM data in key input')
      assert.equal(thrown(() => resolve({ certificateAuthority: files.token })).message, 'unable to load root certificates: unable to parse bytes as PEM block')
    })

    it('refuses a CA together with insecure-skip-tls-verify in one cluster', () => {
      const cfg = write(dir, 'both.yaml', kubeconfigText({ clusters: [{ name: 'c', cluster: { server: 'https://c', 'certificate-authority': files.ca, 'insecure-skip-tls-verify': true } }] }))
      assert.equal(thrown(() => resolveConnection({ kubeconfig: cfg, cluster: 'c' }, isolatedEnv())).message, 'specifying a root certificates file with the insecure flag is not allowed')
    })
  })

  describe('impersonation', () => {
    it('--as, --as-group (repeated), --as-uid and --as-user-extra become Impersonate-* headers', () => {
      const conn = resolve({
        context: 'other',
        as: 'alice',
        asGroup: ['devs', 'system:authenticated'],
        asUid: '42',
        asUserExtra: ['scopes=view', 'scopes=edit', 'acme.com/project=x y'],
      })
      assert.deepEqual(conn.headers, {
        Authorization: 'Bearer t0k',
        'Impersonate-User': 'alice',
        'Impersonate-Uid': '42',
        'Impersonate-Group': ['devs', 'system:authenticated'],
        'Impersonate-Extra-scopes': ['view', 'edit'],
        'Impersonate-Extra-acme.com%2Fproject': ['x y'],
      })
    })

    it('takes impersonation from the kubeconfig user, flags overriding it', () => {
      assert.deepEqual(resolve({ context: 'imp' }).headers, {
        Authorization: 'Bearer imp',
        'Impersonate-User': 'bob',
        'Impersonate-Uid': 'u1',
        'Impersonate-Group': ['g1'],
        'Impersonate-Extra-scopes': ['a', 'b'],
      })
      const conn = resolve({ context: 'imp', as: 'carol', asGroup: ['g2'] })
      assert.equal(conn.headers['Impersonate-User'], 'carol')
      assert.deepEqual(conn.headers['Impersonate-Group'], ['g2'])
    })

    it('refuses groups, uid or extras without a user, with kubectl\'s text', () => {
      const err = thrown(() => resolve({ context: 'test' }))
      assert.equal(err.message, 'requesting uid, groups or user-extra for test without impersonating a user')
      assert.equal(err.display, 'Error in configuration: requesting uid, groups or user-extra for test without impersonating a user')
      assert.equal(thrown(() => resolve({ context: 'other', asGroup: ['g'] })).message, 'requesting uid, groups or user-extra for token-user without impersonating a user')
      assert.equal(thrown(() => resolve({ context: 'other', asUid: '1' })).message, 'requesting uid, groups or user-extra for token-user without impersonating a user')
      assert.doesNotThrow(() => resolve({ context: 'test', as: 'someone' }))
    })

    it('refuses an extra without key=value', () => {
      assert.equal(thrown(() => resolve({ as: 'a', asUserExtra: ['novalue'] })).message, 'invalid argument "novalue" for "--as-user-extra" flag: expected key=value')
    })

    it('percent-encodes extra keys as client-go headerKeyEscape does', () => {
      assert.equal(headerKeyEscape('scopes'), 'scopes')
      assert.equal(headerKeyEscape('acme.com/project'), 'acme.com%2Fproject')
      assert.equal(headerKeyEscape('100%'), '100%25')
      assert.equal(headerKeyEscape('a b:c'), 'a%20b%3Ac')
      assert.equal(headerKeyEscape('ünï'), '%C3%BCn%C3%AF')
      assert.equal(headerKeyEscape("!#$&'*+-.^_`|~09azAZ"), "!#$&'*+-.^_`|~09azAZ")
      // Keys differing only in case share one header, as Go's canonical header names do.
      assert.deepEqual(impersonationHeaders({ user: 'u', extra: { Scope: ['a'], scope: ['b'] } }), { 'Impersonate-User': 'u', 'Impersonate-Extra-Scope': ['a', 'b'] })
      assert.deepEqual(impersonationHeaders({ groups: ['g'] }), {})
    })
  })

  describe('--request-timeout', () => {
    it('reads 0 as none, a bare integer as seconds, else a Go duration', () => {
      assert.equal(parseRequestTimeout('0'), 0)
      assert.equal(parseRequestTimeout(undefined), 0)
      assert.equal(parseRequestTimeout('5'), 5000)
      assert.equal(parseRequestTimeout('5s'), 5000)
      assert.equal(parseRequestTimeout('1m30s'), 90_000)
      assert.equal(parseRequestTimeout('250ms'), 250)
      assert.equal(parseRequestTimeout('-5s'), 0) // Go: a timeout <= 0 is none
    })

    it('rejects anything else with kubectl\'s text', () => {
      for (const bad of ['abc', '-5', '5x', '1.5', '0x10', 's']) {
        assert.equal(thrown(() => parseRequestTimeout(bad)).message, INVALID_TIMEOUT, bad)
      }
      assert.equal(
        INVALID_TIMEOUT,
        'Invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)',
      )
    })

    it('sets the connection timeout', () => {
      assert.equal(resolve().timeoutMs, 0)
      assert.equal(resolve({ requestTimeout: '5' }).timeoutMs, 5000)
      assert.equal(resolve({ requestTimeout: '1m30s' }).timeoutMs, 90_000)
      const err = thrown(() => resolve({ requestTimeout: 'abc' }))
      assert.equal(err.message, INVALID_TIMEOUT)
      assert.equal(err.display, `error: ${INVALID_TIMEOUT}`)
    })
  })

  describe('unusable configurations', () => {
    it('says that no server is known, instead of falling back to localhost:8080', () => {
      const err = thrown(() => resolveConnection({}, isolatedEnv()))
      assert.equal(err.message, NO_SERVER_MESSAGE)
      assert.match(NO_SERVER_MESSAGE, /^no server found: set --server or a kubeconfig context \(KUBECONFIG, --kubeconfig, ~\/\.kube\/config\)/)
      // The issue: the message names the kubeconfig the server writes on first use.
      assert.match(NO_SERVER_MESSAGE, /--write-kubeconfig=\$HOME\/\.kube\/client\.config .* --kubeconfig ~\/\.kube\/client\.config$/)
      assert.equal(resolveConnection({ server: 'https://127.0.0.1:6443' }, isolatedEnv()).server, 'https://127.0.0.1:6443')
    })

    it('names a cluster without a server', () => {
      assert.equal(thrown(() => resolve({ context: 'serverless' })).message, 'no server found for cluster "serverless"')
      assert.equal(thrown(() => resolve({ context: 'dangling' })).message, 'no server found for cluster "not-defined"')
      assert.equal(resolve({ context: 'dangling', server: 'https://s' }).server, 'https://s')
    })

    it('reports a missing --context, --cluster or --user with clientcmd\'s texts', () => {
      const ctx = thrown(() => resolve({ context: 'nope' }))
      assert.equal(ctx.message, 'context was not found for specified context: nope')
      assert.equal(ctx.display, 'Error in configuration: context was not found for specified context: nope')
      // A --cluster that does not exist fails even with --server.
      assert.equal(thrown(() => resolve({ cluster: 'nope', server: 'https://s' })).message, 'no server found for cluster "nope"')
      assert.equal(thrown(() => resolve({ user: 'nope' })).message, 'auth info "nope" does not exist')
    })

    it('lists several problems the way kubectl prints them', () => {
      const err = thrown(() => resolve({ context: 'nope', cluster: 'nope' }))
      assert.deepEqual(err.problems, ['context was not found for specified context: nope', 'no server found for cluster "nope"'])
      assert.equal(err.display, 'Error in configuration: \n* context was not found for specified context: nope\n* no server found for cluster "nope"')
    })

    it('refuses auth-provider users as not supported, unless credentials are given as flags', () => {
      assert.match(thrown(() => resolve({ context: 'oidc' })).message, /the auth-provider plugin "oidc", which is not supported yet/)
    })

    it("checks an exec user's entry as clientcmd does, with kubectl's texts", () => {
      // kubectl 1.32: `error: interactiveMode must be specified for exec-user to use exec authentication plugin`.
      assert.equal(thrown(() => resolve({ context: 'exec' })).display, 'error: interactiveMode must be specified for exec-user to use exec authentication plugin')
    })

    it('runs no exec plugin when credentials are given as flags (the token wins, as in client-go)', () => {
      const conn = resolve({ context: 'exec', token: 'given' })
      assert.deepEqual(conn.headers, { Authorization: 'Bearer given' })
      assert.equal(conn.credentialPlugin, undefined)
    })

    it('refuses a proxy-url, which is not supported yet', () => {
      const cfg = write(dir, 'proxy.yaml', kubeconfigText({ clusters: [{ name: 'c', cluster: { server: 'https://c', 'proxy-url': 'http://proxy:3128' } }] }))
      assert.match(thrown(() => resolveConnection({ kubeconfig: cfg, cluster: 'c' }, isolatedEnv())).message, /^proxy-url is not supported yet/)
    })

    it('reads KUBECONFIG from the given environment', () => {
      const conn = resolveConnection({}, isolatedEnv({ KUBECONFIG: kubeconfig }))
      assert.equal(conn.server, 'https://main.example.test:6443')
    })
  })
})
