/**
 * Client certificates (--client-ca-file, and the --write-kubeconfig administrator) and the
 * static token file, end to end with the real kubectl: `kubectl auth whoami` shows the
 * identity; every bad credential is a 401, never anonymous.
 */
import assert from 'node:assert/strict'
import { createHash, X509Certificate } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ApiServer, startExpectingFailure } from '../../support/api-server.js'
import { KUBECTL } from '../../support/kubectl-session.js'
import { type ClientCert, type TestCa, kubectl, makeCa, makeClientCert, whoami, writeKubeconfig } from './helpers.js'

const UNAUTHORIZED = '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}'
const SSR = JSON.stringify({ kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1' })

describe('authentication: client certificates and the token file (end to end)', function () {
  this.timeout(120_000)
  let server: ApiServer
  let dir: string
  let ca: TestCa
  let foreign: TestCa

  before(async function () {
    if (!existsSync(KUBECTL)) {
      if (process.env.CI) throw new Error(`${KUBECTL} is missing`)
      this.skip()
    }
    dir = mkdtempSync(join(tmpdir(), 'authn-x509-'))
    ca = await makeCa('team-ca')
    foreign = await makeCa('someone-else')
    writeFileSync(join(dir, 'client-ca.crt'), ca.certPem)
    writeFileSync(join(dir, 'tokens.csv'), ['alice-token,alice,1001,"dev,ops"', 'ci-token,ci-robot,ci-uid', ''].join('\n'))
    server = await ApiServer.start({
      admin: true,
      waitFor: 'ready',
      args: [`--client-ca-file=${join(dir, 'client-ca.crt')}`, `--token-auth-file=${join(dir, 'tokens.csv')}`],
    })
  })

  after(async () => {
    await server?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const expectUnauthorized = async (user: ClientCert | { token: string }, label: string) => {
    const { userInfo, run } = await whoami(dir, server.port, user, label)
    assert.equal(userInfo, undefined, `${label} was accepted as ${JSON.stringify(userInfo)}`)
    assert.match(run.stderr, /You must be logged in to the server \(Unauthorized\)/, `${label}: ${run.stderr}`)
  }

  it('the --write-kubeconfig administrator certificate is system:admin in system:masters', async () => {
    const admin = server.admin()
    const { userInfo, run } = await whoami(dir, server.port, admin, 'admin')
    assert.ok(userInfo, run.stderr)
    const der = new X509Certificate(admin.cert).raw
    assert.deepEqual(userInfo, {
      username: 'system:admin',
      groups: ['system:masters', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [`X509SHA256=${createHash('sha256').update(der).digest('hex')}`] },
    })
  })

  it('a certificate of --client-ca-file is its CommonName in the groups of its Organizations', async () => {
    const { userInfo, run } = await whoami(dir, server.port, await makeClientCert(ca, 'jane', ['team-a', 'team-b']), 'jane')
    assert.ok(userInfo, run.stderr)
    assert.equal(userInfo.username, 'jane')
    assert.deepEqual(userInfo.groups, ['team-a', 'team-b', 'system:authenticated'])
    assert.equal(userInfo.uid, undefined)
  })

  it('a token of the file is its user, uid and groups', async () => {
    const alice = await whoami(dir, server.port, { token: 'alice-token' }, 'alice')
    assert.deepEqual(alice.userInfo, { username: 'alice', uid: '1001', groups: ['dev', 'ops', 'system:authenticated'] }, alice.run.stderr)
    const robot = await whoami(dir, server.port, { token: 'ci-token' }, 'robot')
    assert.deepEqual(robot.userInfo, { username: 'ci-robot', uid: 'ci-uid', groups: ['system:authenticated'] }, robot.run.stderr)
  })

  it('with no service-account flags, kubectl create token default works with a key generated in --cert-dir', async () => {
    const adminConfig = writeKubeconfig(dir, 'admin', server.port, server.admin())
    const created = await kubectl(adminConfig, dir, 'create', 'token', 'default')
    assert.equal(created.code, 0, created.stderr)
    assert.ok(existsSync(join(server.certDir, 'sa.key')))
    const { userInfo, run } = await whoami(dir, server.port, { token: created.stdout.trim() }, 'default-sa')
    assert.equal(userInfo?.username, 'system:serviceaccount:default:default', run.stderr)
    const issuer = JSON.parse((await server.get('/.well-known/openid-configuration')).body)
    assert.equal(issuer.issuer, 'https://kubernetes.default.svc.cluster.local')
  })

  it('expired, not-yet-valid, foreign and server-only certificates are refused with 401', async () => {
    const now = Date.now()
    await expectUnauthorized(await makeClientCert(ca, 'old', [], { notBefore: new Date(now - 3 * 86400_000), notAfter: new Date(now - 86400_000) }), 'expired')
    await expectUnauthorized(await makeClientCert(ca, 'early', [], { notBefore: new Date(now + 86400_000), notAfter: new Date(now + 2 * 86400_000) }), 'not-yet-valid')
    await expectUnauthorized(await makeClientCert(foreign, 'mallory', ['system:masters']), 'wrong-ca')
    await expectUnauthorized(await makeClientCert(ca, 'a-server', [], { usage: 'server' }), 'server-usage')
  })

  it('an unknown token is refused with 401', async () => {
    await expectUnauthorized({ token: 'not-in-the-file' }, 'unknown-token')
  })

  it('answers refused credentials with the reference Unauthorized Status and no credentials as system:anonymous', async () => {
    const refused = await server.get('/apis/authentication.k8s.io/v1/selfsubjectreviews', { Authorization: 'Bearer nope', 'Content-Type': 'application/json' }, 'POST', SSR, 'anonymous')
    assert.equal(refused.status, 401)
    assert.equal(refused.body.trim(), UNAUTHORIZED)
    // Under the default Node,RBAC anonymous users may not ask who they are, as in the reference.
    const anonymous = await server.get('/apis/authentication.k8s.io/v1/selfsubjectreviews', { 'Content-Type': 'application/json' }, 'POST', SSR, 'anonymous')
    assert.equal(anonymous.status, 403, anonymous.body)
    assert.equal(
      JSON.parse(anonymous.body).message,
      'selfsubjectreviews.authentication.k8s.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectreviews" in API group "authentication.k8s.io" at the cluster scope',
    )
  })

  it('a WebSocket request may carry its token as the base64url.bearer.authorization.k8s.io subprotocol', async () => {
    const ws = (token: string, protocols = 'v5.channel.k8s.io') => ({
      Connection: 'Upgrade',
      Upgrade: 'websocket',
      'Sec-WebSocket-Version': '13',
      'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Protocol': `base64url.bearer.authorization.k8s.io.${Buffer.from(token).toString('base64url')}, ${protocols}`,
    })
    // ci-robot holds no role: the 403 names the user the subprotocol's token authenticated.
    const known = await server.get('/api/v1/namespaces/default/secrets', ws('ci-token'), 'GET', undefined, 'anonymous')
    assert.equal(known.status, 403, known.body)
    assert.equal(JSON.parse(known.body).message, 'secrets is forbidden: User "ci-robot" cannot list resource "secrets" in API group "" in the namespace "default"')
    const unknown = await server.get('/api/v1/namespaces/default/secrets', ws('not-in-the-file'), 'GET', undefined, 'anonymous')
    assert.equal(unknown.status, 401)
    assert.equal(unknown.body.trim(), UNAUTHORIZED)
  })

  it('the logs say why a credential was refused', () => {
    assert.match(server.logs, /Unable to authenticate the request: .*certificate has expired or is not yet valid/)
    assert.match(server.logs, /Unable to authenticate the request: .*certificate signed by unknown authority/)
    assert.match(server.logs, /Unable to authenticate the request: .*incompatible key usage/)
    assert.match(server.logs, /Unable to authenticate the request: invalid bearer token/)
  })
})

describe('authentication: --anonymous-auth=false and start-up errors (end to end)', function () {
  this.timeout(120_000)
  let dir: string

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'authn-startup-'))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('without anonymous access a request with no credentials is a 401', async () => {
    const server = await ApiServer.start({ anonymous: true, args: ['--anonymous-auth=false'] })
    try {
      const reply = await server.get('/api')
      assert.equal(reply.status, 401)
      assert.equal(reply.body.trim(), UNAUTHORIZED)
    } finally {
      await server.stop()
    }
  })

  it('a restart with another --client-ca-file publishes it in extension-apiserver-authentication', async () => {
    const first = await makeCa('first-ca')
    const second = await makeCa('second-ca')
    writeFileSync(join(dir, 'first.crt'), first.certPem)
    writeFileSync(join(dir, 'second.crt'), second.certPem)
    const published = async (server: ApiServer) =>
      (await server.waitForBody('/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication', /client-ca-file/, 200)).body
    let server = await ApiServer.start({ args: [`--client-ca-file=${join(dir, 'first.crt')}`] })
    const certDir = server.certDir
    const dataDir = server.dataDir
    try {
      assert.ok(JSON.parse(await published(server)).data['client-ca-file'].includes(first.certPem))
    } finally {
      await server.stop(true)
    }
    server = await ApiServer.start({ certDir, dataDir, args: [`--client-ca-file=${join(dir, 'second.crt')}`] })
    try {
      // A piece of the new CA's base64 (no regular-expression characters but + and /).
      const piece = second.certPem.split('\n')[2]!.slice(0, 40).replace(/[+/]/g, '.')
      const reply = await server.waitForBody('/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication', new RegExp(piece), 200)
      const data = JSON.parse(reply.body).data
      assert.ok(data['client-ca-file'].includes(second.certPem))
      assert.ok(!data['client-ca-file'].includes(first.certPem))
    } finally {
      await server.stop()
    }
  })

  const failing = (args: string[]) => startExpectingFailure(['--bind-address=127.0.0.1', '--secure-port=1', `--cert-dir=${join(dir, 'certs')}`, `--data-dir=${join(dir, 'data')}`, ...args])

  it('a malformed token file stops the server naming the file and the line', async () => {
    const file = join(dir, 'bad-tokens.csv')
    writeFileSync(file, 'a,alice,1\nb,bob\n')
    const { code, output } = await failing([`--token-auth-file=${file}`])
    assert.equal(code, 1)
    assert.match(output, new RegExp(`token file '${file}' must have at least 3 columns \\(token, user name, user uid\\), found 2 \\(line 2\\)`))
    assert.doesNotMatch(output, /\n\s+at /)
  })

  it('a bare quote in the token file is a CSV parse error with its line and column', async () => {
    const file = join(dir, 'quote-tokens.csv')
    writeFileSync(file, 'a,alice,1\n\nb,b"ob,2\n')
    const { code, output } = await failing([`--token-auth-file=${file}`])
    assert.equal(code, 1)
    assert.match(output, /parse error on line 3, column 4: bare " in non-quoted-field/)
    assert.ok(output.includes(file), output)
  })

  it('a signing key file without a key, or an unreadable key file, stops the server naming the file', async () => {
    const key = join(dir, 'not-a-key.pem')
    writeFileSync(key, 'hello\n')
    const bad = await failing([`--service-account-signing-key-file=${key}`, `--service-account-key-file=${key}`, '--service-account-issuer=https://issuer.example.com'])
    assert.equal(bad.code, 1)
    assert.match(bad.output, /--service-account-signing-key-file: failed to parse private key from .*not-a-key\.pem: data does not contain a valid RSA or ECDSA private key/)
    const missing = await failing([`--service-account-key-file=${join(dir, 'absent.pub')}`])
    assert.equal(missing.code, 1)
    assert.match(missing.output, /--service-account-key-file: failed to read .*absent\.pub: open .*absent\.pub: no such file or directory/)
    assert.doesNotMatch(missing.output, /\n\s+at /)
  })

  it('a missing or malformed --client-ca-file stops the server naming the file', async () => {
    const missing = await failing([`--client-ca-file=${join(dir, 'nope.crt')}`])
    assert.equal(missing.code, 1)
    assert.match(missing.output, /--client-ca-file: unable to load client CA file ".*nope\.crt": open .*nope\.crt: no such file or directory/)
    const garbage = join(dir, 'garbage.crt')
    writeFileSync(garbage, '# comment\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')
    const bad = await failing([`--client-ca-file=${garbage}`])
    assert.equal(bad.code, 1)
    assert.match(bad.output, /--client-ca-file: unable to load client CA file ".*garbage\.crt": line 2: the certificate does not parse/)
  })
})
