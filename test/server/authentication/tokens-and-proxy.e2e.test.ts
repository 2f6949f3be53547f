/**
 * Service-account tokens (TokenRequest with the flags of spec section 5, legacy secret
 * tokens, the issuer discovery documents), bootstrap tokens and the front proxy, end to end
 * with the real kubectl (and plain HTTPS where kubectl cannot send the proxy's headers).
 */
import assert from 'node:assert/strict'
import { generateKeyPairSync, randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpsRequest } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SignJWT, decodeJwt } from 'jose'
import { ApiServer } from '../../support/api-server.js'
import { KUBECTL } from '../../support/kubectl-session.js'
import { until } from '../../support/until.js'
import { type ClientCert, type TestCa, kubectl, makeCa, makeClientCert, whoami, writeKubeconfig } from './helpers.js'

const ISSUER = 'https://issuer.example.com'
const SSR = JSON.stringify({ kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1' })

describe('authentication: service-account and bootstrap tokens, the front proxy (end to end)', function () {
  this.timeout(180_000)
  let server: ApiServer
  let dir: string
  let adminConfig: string
  let proxyCa: TestCa
  const signing = generateKeyPairSync('rsa', { modulusLength: 2048 })

  const admin = async (...args: string[]) => {
    const run = await kubectl(adminConfig, dir, ...args)
    assert.equal(run.code, 0, `kubectl ${args.join(' ')}: ${run.stderr}\n${server.logs.slice(-2000)}`)
    return run
  }
  const userOf = async (token: string, label: string) => (await whoami(dir, server.port, { token }, label))
  const expectUnauthorized = async (token: string, label: string) => {
    const { userInfo, run } = await userOf(token, label)
    assert.equal(userInfo, undefined, `${label} was accepted as ${JSON.stringify(userInfo)}`)
    assert.match(run.stderr, /You must be logged in to the server \(Unauthorized\)/, `${label}: ${run.stderr}`)
  }

  before(async function () {
    if (!existsSync(KUBECTL)) {
      if (process.env.CI) throw new Error(`${KUBECTL} is missing`)
      this.skip()
    }
    dir = mkdtempSync(join(tmpdir(), 'authn-tokens-'))
    proxyCa = await makeCa('front-proxy-ca')
    writeFileSync(join(dir, 'proxy-ca.crt'), proxyCa.certPem)
    writeFileSync(join(dir, 'sa.key'), signing.privateKey.export({ type: 'pkcs8', format: 'pem' }))
    writeFileSync(join(dir, 'sa.pub'), signing.publicKey.export({ type: 'spki', format: 'pem' }))
    server = await ApiServer.start({
      admin: true,
      waitFor: 'ready',
      args: [
        `--service-account-issuer=${ISSUER}`,
        `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
        `--service-account-key-file=${join(dir, 'sa.pub')}`,
        '--api-audiences=api,other-api',
        '--service-account-max-token-expiration=2h',
        '--enable-bootstrap-token-auth',
        `--requestheader-client-ca-file=${join(dir, 'proxy-ca.crt')}`,
        '--requestheader-allowed-names=front-proxy-client',
        '--requestheader-username-headers=X-Remote-User',
        '--requestheader-group-headers=X-Remote-Group',
        '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      ],
    })
    adminConfig = writeKubeconfig(dir, 'admin', server.port, server.admin())
    await admin('create', 'serviceaccount', 'robot')
  })

  after(async () => {
    await server?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  describe('service-account tokens', () => {
    it('kubectl create token: the service account is the user, with its uid, groups and the token id', async () => {
      const token = (await admin('create', 'token', 'robot')).stdout.trim()
      const claims = decodeJwt(token)
      assert.equal(claims.iss, ISSUER)
      assert.deepEqual(claims.aud, ['api', 'other-api'])
      const uid = (await admin('get', 'sa', 'robot', '-o', 'jsonpath={.metadata.uid}')).stdout
      const { userInfo, run } = await userOf(token, 'robot')
      assert.deepEqual(userInfo, {
        username: 'system:serviceaccount:default:robot',
        uid,
        groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
        extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${String(claims.jti)}`] },
      }, run.stderr)
    })

    it('a token bound to a pod names the pod; deleting the pod, the secret or the service account ends the tokens', async () => {
      await admin('create', 'serviceaccount', 'worker')
      await admin('run', 'p1', '--image=nginx', '--overrides={"spec":{"serviceAccountName":"worker"}}')
      await admin('create', 'secret', 'generic', 's1', '--from-literal=a=b')
      const podToken = (await admin('create', 'token', 'worker', '--bound-object-kind=Pod', '--bound-object-name=p1')).stdout.trim()
      const secretToken = (await admin('create', 'token', 'worker', '--bound-object-kind=Secret', '--bound-object-name=s1')).stdout.trim()
      const plainToken = (await admin('create', 'token', 'worker')).stdout.trim()
      const podUid = (await admin('get', 'pod', 'p1', '-o', 'jsonpath={.metadata.uid}')).stdout
      const { userInfo } = await userOf(podToken, 'pod-bound')
      assert.ok(userInfo)
      const extra = userInfo.extra as Record<string, string[]>
      assert.deepEqual(extra['authentication.kubernetes.io/pod-name'], ['p1'])
      assert.deepEqual(extra['authentication.kubernetes.io/pod-uid'], [podUid])
      assert.equal((await userOf(secretToken, 'secret-bound')).userInfo?.username, 'system:serviceaccount:default:worker')

      await admin('delete', 'pod', 'p1', '--grace-period=0', '--force')
      await expectUnauthorized(podToken, 'deleted-pod')
      await admin('delete', 'secret', 's1')
      await expectUnauthorized(secretToken, 'deleted-secret')
      assert.ok((await userOf(plainToken, 'still-there')).userInfo)
      await admin('delete', 'serviceaccount', 'worker')
      await expectUnauthorized(plainToken, 'deleted-service-account')
      assert.match(server.logs, /Unable to authenticate the request: serviceaccounts "worker" not found/)
    })

    it('refuses a pod of another service account and a bound object with another uid', async () => {
      await admin('run', 'p2', '--image=nginx')
      const other = await kubectl(adminConfig, dir, 'create', 'token', 'robot', '--bound-object-kind=Pod', '--bound-object-name=p2')
      assert.notEqual(other.code, 0)
      assert.match(other.stderr, /cannot bind token for serviceaccount "robot" to pod running with different serviceaccount name\./)
      const uid = await kubectl(adminConfig, dir, 'create', 'token', 'default', '--bound-object-kind=Pod', '--bound-object-name=p2', `--bound-object-uid=${randomUUID()}`)
      assert.match(uid.stderr, /the UID in the bound object reference \(.*\) does not match the UID in record\. The object might have been deleted and then recreated/)
    })

    it('--audience other than the server\'s is refused; expirations below 10 minutes are invalid, above the maximum shortened', async () => {
      const foreign = (await admin('create', 'token', 'robot', '--audience=somewhere-else')).stdout.trim()
      await expectUnauthorized(foreign, 'wrong-audience')
      assert.match(server.logs, /token audiences \["somewhere-else"\] is invalid for the target audiences \["api" "other-api"\]/)
      const short = await kubectl(adminConfig, dir, 'create', 'token', 'robot', '--duration=5m')
      assert.match(short.stderr, /TokenRequest.authentication.k8s.io "robot" is invalid: spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes/)
      const long = await admin('create', 'token', 'robot', '--duration=5h')
      assert.match(long.stderr, /requested expiration of 18000 seconds shortened to 7200 seconds/)
      const claims = decodeJwt(long.stdout.trim())
      assert.equal(Number(claims.exp) - Number(claims.iat), 7200)
    })

    it('refuses an expired token and one signed by another key; accepts a legacy secret token while its secret holds it', async () => {
      const uid = (await admin('get', 'sa', 'robot', '-o', 'jsonpath={.metadata.uid}')).stdout
      const now = Math.floor(Date.now() / 1000)
      const claims = { aud: ['api'], 'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'robot', uid } } }
      const sign = (key = signing.privateKey) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).setIssuer(ISSUER).setSubject('system:serviceaccount:default:robot')
      await expectUnauthorized(await sign().setIssuedAt(now - 7200).setExpirationTime(now - 3600).sign(signing.privateKey), 'expired')
      const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 })
      await expectUnauthorized(await sign().setIssuedAt(now).setExpirationTime(now + 3600).sign(stranger.privateKey), 'foreign-key')

      const legacy = await new SignJWT({
        'kubernetes.io/serviceaccount/namespace': 'default',
        'kubernetes.io/serviceaccount/secret.name': 'robot-token',
        'kubernetes.io/serviceaccount/service-account.name': 'robot',
        'kubernetes.io/serviceaccount/service-account.uid': uid,
      })
        .setProtectedHeader({ alg: 'RS256' })
        .setIssuer('kubernetes/serviceaccount')
        .setSubject('system:serviceaccount:default:robot')
        .sign(signing.privateKey)
      const secret = { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/service-account-token', metadata: { name: 'robot-token', annotations: { 'kubernetes.io/service-account.name': 'robot' } }, data: { token: Buffer.from(legacy).toString('base64') } }
      writeFileSync(join(dir, 'legacy.json'), JSON.stringify(secret))
      await admin('create', '-f', join(dir, 'legacy.json'))
      const { userInfo, run } = await userOf(legacy, 'legacy')
      assert.deepEqual(userInfo, { username: 'system:serviceaccount:default:robot', uid, groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'] }, run.stderr)
      await admin('delete', 'secret', 'robot-token')
      await expectUnauthorized(legacy, 'legacy-deleted-secret')
    })

    it('the token controller fills a kubernetes.io/service-account-token secret; its token works until the secret or the account is deleted', async () => {
      await admin('create', 'serviceaccount', 'legacy-robot')
      const uid = (await admin('get', 'sa', 'legacy-robot', '-o', 'jsonpath={.metadata.uid}')).stdout
      const secret = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/service-account-token', metadata: { name, annotations: { 'kubernetes.io/service-account.name': 'legacy-robot' } } })
      writeFileSync(join(dir, 'legacy-filled.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [secret('legacy-robot-token'), secret('legacy-robot-token-2')] }))
      await admin('create', '-f', join(dir, 'legacy-filled.json'))
      const filled = async (name: string) => {
        const deadline = Date.now() + 15_000
        for (;;) {
          const got = JSON.parse((await admin('get', 'secret', name, '-o', 'json')).stdout)
          if (got.data?.token) return got
          if (Date.now() > deadline) throw new Error(`${name} was not filled: ${JSON.stringify(got)}`)
          await new Promise((r) => setTimeout(r, 200))
        }
      }
      const got = await filled('legacy-robot-token')
      assert.equal(got.metadata.annotations['kubernetes.io/service-account.uid'], uid)
      assert.equal(Buffer.from(got.data.namespace, 'base64').toString(), 'default')
      assert.match(Buffer.from(got.data['ca.crt'], 'base64').toString(), /^-----BEGIN CERTIFICATE-----/)
      const token = Buffer.from(got.data.token, 'base64').toString()
      const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString())
      assert.equal(claims.iss, 'kubernetes/serviceaccount')
      assert.equal(claims['kubernetes.io/serviceaccount/secret.name'], 'legacy-robot-token')
      assert.equal(claims.exp, undefined, 'legacy tokens do not expire')
      const { userInfo, run } = await userOf(token, 'legacy-filled')
      assert.equal(userInfo?.username, 'system:serviceaccount:default:legacy-robot', run.stderr)
      await admin('delete', 'secret', 'legacy-robot-token')
      await expectUnauthorized(token, 'legacy-filled-deleted-secret')

      const second = Buffer.from((await filled('legacy-robot-token-2')).data.token, 'base64').toString()
      assert.equal((await userOf(second, 'legacy-second')).userInfo?.username, 'system:serviceaccount:default:legacy-robot')
      await admin('delete', 'serviceaccount', 'legacy-robot')
      await expectUnauthorized(second, 'legacy-deleted-account')
      const deadline = Date.now() + 15_000
      while ((await kubectl(adminConfig, dir, 'get', 'secret', 'legacy-robot-token-2')).code === 0) {
        if (Date.now() > deadline) throw new Error("the account's token secret was not deleted with it")
        await new Promise((r) => setTimeout(r, 200))
      }
    })

    it('TokenReview answers for a token and an audience', async () => {
      const token = (await admin('create', 'token', 'robot')).stdout.trim()
      const review = (body: object) => {
        writeFileSync(join(dir, 'review.json'), JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', ...body }))
        return admin('create', '-f', join(dir, 'review.json'), '-o', 'json')
      }
      const ok = JSON.parse((await review({ spec: { token } })).stdout)
      assert.equal(ok.status.authenticated, true)
      assert.equal(ok.status.user.username, 'system:serviceaccount:default:robot')
      assert.deepEqual(ok.status.audiences, ['api', 'other-api'])
      const narrowed = JSON.parse((await review({ spec: { token, audiences: ['other-api'] } })).stdout)
      assert.deepEqual(narrowed.status.audiences, ['other-api'])
      const bad = JSON.parse((await review({ spec: { token: 'garbage' } })).stdout)
      assert.equal(bad.status.authenticated, false)
      assert.match(bad.status.error, /invalid bearer token/)
      const empty = await server.get('/apis/authentication.k8s.io/v1/tokenreviews', { 'Content-Type': 'application/json' }, 'POST', JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: {} }), server.admin())
      assert.equal(empty.status, 400)
      assert.equal(JSON.parse(empty.body).message, 'token is required for TokenReview in authentication')
    })

    it('publishes the issuer discovery document and the key set of the verification keys', async () => {
      const config = JSON.parse((await server.get('/.well-known/openid-configuration')).body)
      assert.equal(config.issuer, ISSUER)
      // The reference's default: https://<external address>/openid/v1/jwks, the external host
      // being the advertised address (here the bind address) with the secure port.
      assert.equal(config.jwks_uri, `https://127.0.0.1:${server.port}/openid/v1/jwks`)
      const jwks = JSON.parse((await server.get('/openid/v1/jwks')).body)
      assert.equal(jwks.keys.length, 1)
      const jwk = signing.publicKey.export({ format: 'jwk' })
      assert.equal(jwks.keys[0].n, jwk.n)
      const token = (await admin('create', 'token', 'robot')).stdout.trim()
      assert.equal(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid, jwks.keys[0].kid)
    })
  })

  describe('bootstrap tokens', () => {
    const bootstrapSecret = (id: string, secret: string, data: Record<string, string>) => {
      const object = {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'bootstrap.kubernetes.io/token',
        metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
        stringData: { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-authentication': 'true', ...data },
      }
      writeFileSync(join(dir, `bootstrap-${id}.json`), JSON.stringify(object))
      return admin('create', '-f', join(dir, `bootstrap-${id}.json`))
    }

    it('a valid token is system:bootstrap:<id> in system:bootstrappers and its extra groups', async () => {
      await bootstrapSecret('abcdef', '0123456789abcdef', { expiration: new Date(Date.now() + 3600_000).toISOString(), 'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token' })
      const { userInfo, run } = await userOf('abcdef.0123456789abcdef', 'bootstrap')
      assert.deepEqual(userInfo, { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token', 'system:authenticated'] }, run.stderr)
    })

    it('expired, wrong-secret, unmarked and unknown tokens are refused with 401', async () => {
      await bootstrapSecret('expird', '0123456789abcdef', { expiration: new Date(Date.now() - 60_000).toISOString() })
      await expectUnauthorized('expird.0123456789abcdef', 'expired-bootstrap')
      await expectUnauthorized('abcdef.ffffffffffffffff', 'wrong-secret')
      await bootstrapSecret('nouse1', '0123456789abcdef', { 'usage-bootstrap-authentication': 'false' })
      await expectUnauthorized('nouse1.0123456789abcdef', 'not-for-authentication')
      await expectUnauthorized('zzzzzz.0123456789abcdef', 'unknown-bootstrap')
    })
  })

  describe('front proxy', () => {
    const viaProxy = (client: ClientCert | undefined, headers: Array<[string, string]>): Promise<{ status: number; body: string }> =>
      new Promise((resolve, reject) => {
        const req = httpsRequest(
          { host: '127.0.0.1', port: server.port, path: '/apis/authentication.k8s.io/v1/selfsubjectreviews', method: 'POST', rejectUnauthorized: false, agent: false, ...(client ? { cert: client.cert, key: client.key } : {}), headers: { 'Content-Type': 'application/json' } },
          (res) => {
            let body = ''
            res.setEncoding('utf8')
            res.on('data', (d) => (body += d))
            res.on('end', () => resolve({ status: res.statusCode!, body }))
          },
        )
        for (const [name, value] of headers) req.appendHeader(name, value)
        req.on('error', reject)
        req.end(SSR)
      })
    const HEADERS: Array<[string, string]> = [
      ['X-Remote-User', 'jane'],
      ['X-Remote-Group', 'dev'],
      ['X-Remote-Group', 'qa'],
      ['X-Remote-Extra-Scopes', 'read'],
      ['X-Remote-Extra-Scopes', 'write'],
      ['X-Remote-Extra-Acme.com%2Fproject', 'p1'],
    ]

    it('the proxy certificate lets the headers name the user, groups and extra', async () => {
      const reply = await viaProxy(await makeClientCert(proxyCa, 'front-proxy-client'), HEADERS)
      assert.equal(reply.status, 201, reply.body)
      assert.deepEqual(JSON.parse(reply.body).status.userInfo, {
        username: 'jane',
        groups: ['dev', 'qa', 'system:authenticated'],
        extra: { scopes: ['read', 'write'], 'acme.com/project': ['p1'] },
      })
    })

    it('a proxy certificate with another name is refused; headers without a certificate are ignored', async () => {
      const wrongName = await viaProxy(await makeClientCert(proxyCa, 'someone'), HEADERS)
      assert.equal(wrongName.status, 401)
      // The line is written as the request is refused: it may reach the log just after the answer.
      await until('the refusal in the log', () => (/x509: subject with cn=someone is not in the allowed list/.test(server.logs) ? true : undefined))
      const noCert = await viaProxy(undefined, HEADERS)
      // Anonymous, so refused by the default Node,RBAC (as in the reference), and named in the 403.
      assert.equal(noCert.status, 403)
      assert.match(JSON.parse(noCert.body).message, /^selfsubjectreviews\.authentication\.k8s\.io is forbidden: User "system:anonymous" cannot create/)
    })

    it('publishes both CAs and the headers in kube-system/extension-apiserver-authentication', async () => {
      const cm = JSON.parse((await admin('get', 'configmap', '-n', 'kube-system', 'extension-apiserver-authentication', '-o', 'json')).stdout)
      assert.equal(cm.data['requestheader-client-ca-file'], proxyCa.certPem)
      assert.equal(cm.data['requestheader-allowed-names'], '["front-proxy-client"]')
      assert.equal(cm.data['requestheader-username-headers'], '["X-Remote-User"]')
      assert.equal(cm.data['requestheader-group-headers'], '["X-Remote-Group"]')
      assert.equal(cm.data['requestheader-extra-headers-prefix'], '["X-Remote-Extra-"]')
      assert.match(cm.data['client-ca-file'], /-----BEGIN CERTIFICATE-----/)
    })
  })
})
