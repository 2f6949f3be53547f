/**
 * kubeconfig users with an exec credential plugin: real plugin processes (small sh scripts),
 * the ExecCredential they print, and the REST client sending what they return to a real HTTPS
 * server. The error texts are kubectl 1.32's, as it prints them for the same plugins.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import https from 'node:https'
import type net from 'node:net'
import path from 'node:path'
import type tls from 'node:tls'
import { resolveConnection } from '../../../src/core/client/connection.js'
import { UnreachableError } from '../../../src/core/client/errors.js'
import { type ExecConfig, ExecCredentialError, ExecCredentialProvider } from '../../../src/core/client/exec-credential.js'
import { RestClient } from '../../../src/core/client/rest-client.js'
import { type Pki, isolatedEnv, kubeconfigText, removeTmpDirs, testPki, tmpDir, write } from './support.js'

const V1 = 'client.authentication.k8s.io/v1'
const V1BETA1 = 'client.authentication.k8s.io/v1beta1'

describe('core/client: exec credential plugins', function () {
  this.timeout(20_000)
  let dir: string
  let pki: Pki

  /** An executable sh script in the test directory; returns its path. */
  const plugin = (name: string, body: string): string => {
    const file = write(dir, name, `#!/bin/sh\n${body}\n`)
    fs.chmodSync(file, 0o755)
    return file
  }
  const credential = (status: Record<string, unknown> | undefined, apiVersion = V1) =>
    `cat <<'JSON'\n${JSON.stringify({ apiVersion, kind: 'ExecCredential', ...(status ? { status } : {}) })}\nJSON`
  const provider = (exec: Partial<ExecConfig> & { command: string }, cluster = { server: 'https://127.0.0.1:6443' }) =>
    new ExecCredentialProvider({ apiVersion: V1, interactiveMode: 'Never', ...exec }, cluster, { env: isolatedEnv(), stdinIsTerminal: false })
  const failure = async (p: ExecCredentialProvider): Promise<string> => {
    try {
      await p.get()
    } catch (err) {
      assert.ok(err instanceof ExecCredentialError, `expected an ExecCredentialError, got ${String(err)}`)
      return err.message
    }
    assert.fail('expected the plugin to fail')
  }

  before(async () => {
    dir = tmpDir('client-exec-')
    pki = await testPki()
  })
  after(() => removeTmpDirs())

  it('runs the plugin with its arguments, environment and KUBERNETES_EXEC_INFO, and takes its token', async () => {
    const info = path.join(dir, 'info.json')
    const command = plugin('args.sh', `printf '%s\\n' "$@" > ${dir}/args.txt\necho "$FOO" > ${dir}/env.txt\necho "$KUBERNETES_EXEC_INFO" > ${info}\n${credential({ token: 'tok-123' })}`)
    const got = await provider({ command, args: ['a1', 'b 2'], env: [{ name: 'FOO', value: 'bar' }] }).get()
    assert.deepEqual(got, { token: 'tok-123' })
    assert.equal(fs.readFileSync(path.join(dir, 'args.txt'), 'utf8'), 'a1\nb 2\n')
    assert.equal(fs.readFileSync(path.join(dir, 'env.txt'), 'utf8'), 'bar\n')
    // What kubectl 1.32 sets for a non-interactive run, byte for byte.
    assert.equal(fs.readFileSync(info, 'utf8'), '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":false}}\n')
  })

  it('passes the cluster with provideClusterInfo, and speaks v1beta1 too', async () => {
    const info = path.join(dir, 'info-cluster.json')
    const command = plugin('cluster.sh', `echo "$KUBERNETES_EXEC_INFO" > ${info}\n${credential({ token: 't' }, V1BETA1)}`)
    const p = new ExecCredentialProvider({ command, apiVersion: V1BETA1, provideClusterInfo: true }, { server: 'https://api.example.test:6443', tlsServerName: 'api' }, { env: isolatedEnv(), stdinIsTerminal: false })
    assert.deepEqual(await p.get(), { token: 't' })
    assert.deepEqual(JSON.parse(fs.readFileSync(info, 'utf8')), {
      kind: 'ExecCredential',
      apiVersion: V1BETA1,
      spec: { cluster: { server: 'https://api.example.test:6443', 'tls-server-name': 'api' }, interactive: false },
    })
  })

  it('reuses a credential until its expirationTimestamp, then runs the plugin again', async () => {
    const count = path.join(dir, 'count')
    const run = (expires: string) => plugin(`count-${expires}.sh`, `echo x >> ${count}\n${credential({ token: 't', expirationTimestamp: expires })}`)
    fs.writeFileSync(count, '')
    const later = provider({ command: run('2999-01-01T00:00:00Z') })
    await later.get()
    await later.get()
    assert.equal(fs.readFileSync(count, 'utf8'), 'x\n')
    fs.writeFileSync(count, '')
    const expired = provider({ command: run('2000-01-01T00:00:00Z') })
    await expired.get()
    assert.equal(expired.expired(), true)
    await expired.get()
    assert.equal(fs.readFileSync(count, 'utf8'), 'x\nx\n')
  })

  it("reports a failing, missing or misbehaving plugin in kubectl's words", async () => {
    const failing = plugin('fail.sh', 'exit 3')
    assert.equal(await failure(provider({ command: failing })), `exec: executable ${failing} failed with exit code 3`)
    assert.equal(
      await failure(provider({ command: 'no-such-plugin-on-path', installHint: 'install it with apt' })),
      'exec: executable no-such-plugin-on-path not found\n\nIt looks like you are trying to use a client-go credential plugin that is not installed.\n\nTo learn more about this feature, consult the documentation available at:\n      https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins\n\ninstall it with apt',
    )
    assert.equal(await failure(provider({ command: plugin('nostatus.sh', credential(undefined)) })), "exec plugin didn't return a status field")
    assert.equal(
      await failure(provider({ command: plugin('wrongver.sh', credential({ token: 'x' }, V1BETA1)) })),
      'exec plugin is configured to use API version client.authentication.k8s.io/v1, plugin returned version client.authentication.k8s.io/v1beta1',
    )
    assert.equal(await failure(provider({ command: plugin('notoken.sh', credential({})) })), "exec plugin didn't return a token or cert/key pair")
    assert.equal(await failure(provider({ command: plugin('onlycert.sh', credential({ clientCertificateData: 'x' })) })), 'exec plugin returned only certificate or key, not both')
    assert.equal(
      await failure(provider({ command: plugin('garbage.sh', 'echo "not json"') })),
      'decoding stdout: couldn\'t get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
    )
    assert.equal(
      await failure(new ExecCredentialProvider({ command: failing, apiVersion: V1, interactiveMode: 'Always' }, { server: 's' }, { stdinIsTerminal: false })),
      'exec plugin cannot support interactive mode: standard input is not a terminal',
    )
  })

  describe('through the kubeconfig and the REST client, against a real HTTPS server', () => {
    let server: https.Server
    let url: string
    const seen: { authorization?: string; cn?: string }[] = []

    before(async () => {
      server = https.createServer({ cert: pki.server.certPem, key: pki.server.keyPem, ca: pki.clientCa.certPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
        const peer = (req.socket as tls.TLSSocket).getPeerCertificate()
        seen.push({ authorization: req.headers.authorization, cn: peer?.subject?.CN as string | undefined })
        res.end('ok')
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      url = `https://127.0.0.1:${(server.address() as net.AddressInfo).port}`
    })
    after(() => new Promise<void>((resolve) => server.close(() => resolve())))

    const kubeconfigFor = (name: string, exec: Record<string, unknown>) =>
      write(
        dir,
        name,
        kubeconfigText({
          clusters: [{ name: 'c', cluster: { server: url, 'certificate-authority-data': Buffer.from(pki.ca.certPem).toString('base64') } }],
          users: [{ name: 'u', user: { exec: { apiVersion: V1, interactiveMode: 'Never', ...exec } } }],
          contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
          'current-context': 'c',
        }),
      )

    it("sends the plugin's token as a bearer token; a relative command is relative to the kubeconfig", async () => {
      plugin('token.sh', credential({ token: 'from-plugin' }))
      const conn = resolveConnection({ kubeconfig: kubeconfigFor('token.kubeconfig', { command: './token.sh' }) }, isolatedEnv())
      const client = new RestClient(conn)
      try {
        assert.equal((await client.get('/readyz')).status, 200)
        assert.equal(seen.at(-1)?.authorization, 'Bearer from-plugin')
      } finally {
        client.close()
      }
    })

    it("presents the plugin's client certificate", async () => {
      plugin('cert.sh', credential({ clientCertificateData: pki.client.certPem, clientKeyData: pki.client.keyPem }))
      const conn = resolveConnection({ kubeconfig: kubeconfigFor('cert.kubeconfig', { command: './cert.sh' }) }, isolatedEnv())
      const client = new RestClient(conn)
      try {
        assert.equal((await client.get('/readyz')).status, 200)
        assert.equal(seen.at(-1)?.cn, 'admin')
        assert.equal(seen.at(-1)?.authorization, undefined)
      } finally {
        client.close()
      }
    })

    it('fails the request as kubectl does: Unable to connect to the server: getting credentials: ...', async () => {
      const failing = plugin('fail2.sh', 'exit 3')
      const client = new RestClient(resolveConnection({ kubeconfig: kubeconfigFor('fail.kubeconfig', { command: failing }) }, isolatedEnv()))
      try {
        await assert.rejects(client.get('/readyz'), (err: unknown) => err instanceof UnreachableError && err.message === `Unable to connect to the server: getting credentials: exec: executable ${failing} failed with exit code 3`)
      } finally {
        client.close()
      }
    })
  })
})
