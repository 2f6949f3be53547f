import assert from 'node:assert/strict'
import { loadProtobufCodec } from '../../../src/core/protobuf/index.js'
import { createDecipheriv } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Etcd3 } from 'etcd3'
import { startExpectingFailure } from '../../support/api-server.js'
import { EtcdServer, freePorts, requireEtcd } from '../../support/etcd.js'
import { KubectlSession } from '../../support/kubectl-session.js'

const KEY1 = Buffer.alloc(32, 1)
const KEY2 = Buffer.alloc(32, 2)

function encryptionConfig(providers: string): string {
  return [
    'apiVersion: apiserver.config.k8s.io/v1',
    'kind: EncryptionConfiguration',
    'resources:',
    '  - resources: [secrets]',
    '    providers:',
    providers,
  ].join('\n')
}
const aescbc = (name: string, key: Buffer) => `      - aescbc:\n          keys:\n            - name: ${name}\n              secret: ${key.toString('base64')}`
const secretbox = (name: string, key: Buffer) => aescbc(name, key).replace('aescbc', 'secretbox')
const identity = '      - identity: {}'

let etcdClient: Etcd3 | undefined

/** The stored value of a key, straight from etcd (the server's prefix is /registry). */
async function rawValue(key: string): Promise<Buffer> {
  const value = await etcdClient!.get(`/registry${key}`).buffer()
  assert.ok(value, `${key} is not stored`)
  return value
}

/** Decrypts the reference's aescbc format: prefix, 16-byte IV, CBC with PKCS#7 padding. */
function decryptAesCbc(stored: Buffer, name: string, key: Buffer): Buffer {
  const prefix = `k8s:enc:aescbc:v1:${name}:`
  assert.equal(stored.subarray(0, prefix.length).toString(), prefix)
  const body = stored.subarray(prefix.length)
  const d = createDecipheriv('aes-256-cbc', key, body.subarray(0, 16))
  return Buffer.concat([d.update(body.subarray(16)), d.final()])
}

describe('encryption at rest: the built server with kubectl (end to end)', function () {
  this.timeout(120_000)
  let session: KubectlSession
  let configFile: string
  let etcd: EtcdServer | undefined

  before(async function () {
    requireEtcd(this)
    etcd = await EtcdServer.start()
    etcdClient = new Etcd3({ hosts: etcd.clientUrl })
    const dir = mkdtempSync(join(tmpdir(), 'enc-config-'))
    configFile = join(dir, 'encryption.yaml')
    writeFileSync(configFile, encryptionConfig([aescbc('key1', KEY1), identity].join('\n')))
    session = await KubectlSession.open(this, 'enc-e2e-', {
      waitFor: 'ready',
      args: [`--store-servers=${etcd.clientUrl}`, `--encryption-provider-config=${configFile}`, '--encryption-provider-config-automatic-reload'],
      env: { CLIENT_ENCRYPTION_CONFIG_POLL_MS: '100' },
    })
  })
  after(async () => {
    await session?.close()
    etcdClient?.close()
    await etcd?.stop()
  })

  /** Through a file: kubectl's `create secret` speaks protobuf, which another part of the server serves. */
  const createSecret = (name: string, data: Record<string, string>) =>
    session.ok(
      'create',
      '-f',
      session.file(`${name}.yaml`, `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${name}\nstringData:\n${Object.entries(data).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}\n`).join('')}`),
    )

  const waitForLog = async (text: string, count = 1) => {
    const deadline = Date.now() + 15_000
    while (session.server.logs.split(text).length - 1 < count) {
      if (Date.now() > deadline) throw new Error(`the server never logged "${text}":\n${session.server.logs}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  it('stores a secret created with kubectl encrypted with the first key, and kubectl reads it back', async () => {
    await createSecret('s1', { password: 'hunter2' })
    const stored = await rawValue('/secrets/default/s1')
    assert.ok(!stored.includes('hunter2') && !stored.includes(Buffer.from('hunter2').toString('base64')))
    // Under the encryption, the object in the storage media type (protobuf by default).
    const plain = (await loadProtobufCodec()).decode(decryptAesCbc(stored, 'key1', KEY1)) as { data: { password: string } }
    assert.equal(plain.data.password, Buffer.from('hunter2').toString('base64'))
    assert.equal(await session.ok('get', 'secret', 's1', '-o', 'jsonpath={.data.password}'), Buffer.from('hunter2').toString('base64'))
    // Resources the configuration does not name are stored as they are.
    await session.ok('create', '-f', session.file('c1.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c1\ndata:\n  a: visible\n'))
    assert.ok((await rawValue('/configmaps/default/c1')).includes('visible'))
  })

  it('registers kms-providers on /healthz and /readyz but not /livez, as the reference does with reload', async () => {
    assert.match((await session.server.get('/healthz?verbose')).body, /^\[\+\]kms-providers ok$/m)
    assert.match((await session.server.get('/readyz?verbose')).body, /^\[\+\]kms-providers ok$/m)
    assert.doesNotMatch((await session.server.get('/livez?verbose')).body, /kms-providers/)
  })

  it('reloads a changed file: new writes use the new first key, old values still read (rotation)', async () => {
    writeFileSync(configFile, encryptionConfig([secretbox('key2', KEY2), aescbc('key1', KEY1), identity].join('\n')))
    await waitForLog('loaded a new encryption provider configuration')
    await createSecret('s2', { token: 'abc' })
    assert.equal((await rawValue('/secrets/default/s2')).subarray(0, 26).toString(), 'k8s:enc:secretbox:v1:key2:')
    assert.equal(await session.ok('get', 'secret', 's1', '-o', 'jsonpath={.data.password}'), Buffer.from('hunter2').toString('base64'))
    await session.ok('label', 'secret', 's1', 'rotated=yes')
    assert.equal((await rawValue('/secrets/default/s1')).subarray(0, 26).toString(), 'k8s:enc:secretbox:v1:key2:')
  })

  it('keeps the current configuration when the changed file is invalid, and logs why', async () => {
    writeFileSync(configFile, encryptionConfig(secretbox('key3', Buffer.alloc(16))))
    await waitForLog('secret is not of the expected length, got 16, expected one of [32]')
    assert.match(session.server.logs, /the previous one stays in use/)
    await createSecret('s3', { x: 'y' })
    assert.equal((await rawValue('/secrets/default/s3')).subarray(0, 26).toString(), 'k8s:enc:secretbox:v1:key2:')
  })

  it('answers 500 InternalError for a value no provider can read', async () => {
    writeFileSync(configFile, encryptionConfig(identity))
    await waitForLog('loaded a new encryption provider configuration', 2)
    const r = await session.run('get', 'secret', 's2')
    assert.notEqual(r.code, 0)
    assert.equal(r.stderr.trim(), 'Error from server (InternalError): Internal error occurred: identity transformer tried to read encrypted data')
  })
})

describe('encryption at rest: start-up errors', function () {
  this.timeout(60_000)
  let dir: string
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'enc-bad-'))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  const refuse = async (name: string, text: string) => {
    const file = join(dir, name)
    writeFileSync(file, text)
    const [port] = await freePorts(1)
    const { code, output } = await startExpectingFailure(['--bind-address=127.0.0.1', `--secure-port=${port}`, `--data-dir=${join(dir, `data-${name}`)}`, `--cert-dir=${join(dir, 'certs')}`, `--encryption-provider-config=${file}`])
    assert.equal(code, 1, output)
    return output
  }

  it('refuses a key of the wrong length with the reference message', async () => {
    const output = await refuse('short.yaml', encryptionConfig(aescbc('k', Buffer.alloc(10))))
    assert.match(output, /Error: error while parsing file: resources\[0\]\.providers\[0\]\.aescbc\.keys\[0\]\.secret: Invalid value: "REDACTED": secret is not of the expected length, got 10, expected one of \[16 24 32\]/)
  })

  it('refuses kms providers, naming them as not supported', async () => {
    const output = await refuse('kms.yaml', encryptionConfig('      - kms:\n          apiVersion: v2\n          name: my-kms\n          endpoint: unix:///tmp/kms.sock'))
    assert.match(output, /the kms provider "my-kms" is not supported/)
  })

  it('refuses a missing file', async () => {
    const [port] = await freePorts(1)
    const { code, output } = await startExpectingFailure(['--bind-address=127.0.0.1', `--secure-port=${port}`, `--data-dir=${join(dir, 'data-missing')}`, `--cert-dir=${join(dir, 'certs')}`, `--encryption-provider-config=${join(dir, 'nope.yaml')}`])
    assert.equal(code, 1, output)
    assert.match(output, /error while parsing file: error opening encryption provider configuration file ".*nope\.yaml": open .*nope\.yaml: no such file or directory/)
  })
})
