import assert from 'node:assert/strict'
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import nacl from 'tweetnacl'
import { parseEncryptionConfig } from '../../../src/server/encryption/config.js'
import { EncryptingStore } from '../../../src/server/encryption/encrypting-store.js'
import { SqliteStore } from '../../../src/server/store/sqlite-store.js'

const KEY16 = Buffer.alloc(16, 7)
const KEY32 = Buffer.alloc(32, 9)
const OTHER32 = Buffer.alloc(32, 3)
const FULL_KEY = '/registry/secrets/default/s1'
const PLAIN = Buffer.from('{"kind":"Secret","apiVersion":"v1","data":{"a":"Yg=="}}')

function config(providers: string, resources = '[secrets]') {
  return parseEncryptionConfig(
    `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: ${resources}\n    providers:\n${providers}`,
    '/etc/enc.yaml',
  )
}
const secretsTransformer = (c: ReturnType<typeof config>) => c.transformers.get('secrets')!

/** Each of these follows the documented stored format, independently of the code under test. */
function referenceAesCbc(key: Buffer, name: string, plain: Buffer) {
  const iv = randomBytes(16)
  const c = createCipheriv(`aes-${key.length * 8}-cbc`, key, iv) // PKCS#7 padding is Node's default
  return Buffer.concat([Buffer.from(`k8s:enc:aescbc:v1:${name}:`), iv, c.update(plain), c.final()])
}
function referenceAesGcm(key: Buffer, name: string, plain: Buffer, aad: string) {
  const nonce = randomBytes(12)
  const c = createCipheriv(`aes-${key.length * 8}-gcm` as 'aes-256-gcm', key, nonce)
  c.setAAD(Buffer.from(aad))
  return Buffer.concat([Buffer.from(`k8s:enc:aesgcm:v1:${name}:`), nonce, c.update(plain), c.final(), c.getAuthTag()])
}
function referenceSecretbox(key: Buffer, name: string, plain: Buffer) {
  const nonce = randomBytes(24)
  return Buffer.concat([Buffer.from(`k8s:enc:secretbox:v1:${name}:`), nonce, Buffer.from(nacl.secretbox(plain, nonce, key))])
}

const aescbc = (keys: [string, Buffer][]) => `      - aescbc:\n          keys:\n${keys.map(([n, k]) => `            - name: ${n}\n              secret: ${k.toString('base64')}\n`).join('')}`
const aesgcm = (keys: [string, Buffer][]) => aescbc(keys).replace('aescbc', 'aesgcm')
const secretbox = (keys: [string, Buffer][]) => aescbc(keys).replace('aescbc', 'secretbox')
const identity = '      - identity: {}\n'

function throwsWith(fn: () => unknown, message: string) {
  assert.throws(fn, (err: Error) => err.message === message)
}

describe('encryption at rest: stored format', () => {
  it('reads aescbc values in the reference format, with 16 and 32 byte keys', () => {
    for (const key of [KEY16, KEY32]) {
      const t = secretsTransformer(config(aescbc([['k1', key]])))
      assert.equal(t.fromStorage(referenceAesCbc(key, 'k1', PLAIN), FULL_KEY).toString(), PLAIN.toString())
    }
  })

  it('reads aesgcm values whose additional data is the full store key, and refuses them under another key', () => {
    const t = secretsTransformer(config(aesgcm([['k1', KEY32]])))
    const stored = referenceAesGcm(KEY32, 'k1', PLAIN, FULL_KEY)
    assert.equal(t.fromStorage(stored, FULL_KEY).toString(), PLAIN.toString())
    throwsWith(() => t.fromStorage(stored, '/registry/secrets/default/other'), 'cipher: message authentication failed')
  })

  it('reads secretbox values (24-byte nonce, then the box)', () => {
    const t = secretsTransformer(config(secretbox([['k1', KEY32]])))
    assert.equal(t.fromStorage(referenceSecretbox(KEY32, 'k1', PLAIN), FULL_KEY).toString(), PLAIN.toString())
  })

  it('writes with the first provider and key, in a form the reference format decrypts', () => {
    const t = secretsTransformer(config(aesgcm([['first', KEY32], ['second', OTHER32]]) + identity))
    const stored = t.toStorage(PLAIN, FULL_KEY)
    const prefix = 'k8s:enc:aesgcm:v1:first:'
    assert.equal(stored.subarray(0, prefix.length).toString(), prefix)
    assert.equal(stored.length, prefix.length + 12 + PLAIN.length + 16)
    const body = stored.subarray(prefix.length)
    const d = createDecipheriv('aes-256-gcm', KEY32, body.subarray(0, 12))
    d.setAAD(Buffer.from(FULL_KEY))
    d.setAuthTag(body.subarray(body.length - 16))
    assert.equal(Buffer.concat([d.update(body.subarray(12, body.length - 16)), d.final()]).toString(), PLAIN.toString())
  })

  it('reads with every key and provider listed (rotation) and plain data through identity', () => {
    const t = secretsTransformer(config(secretbox([['new', OTHER32]]) + aescbc([['old', KEY16]]) + identity))
    assert.equal(t.fromStorage(referenceAesCbc(KEY16, 'old', PLAIN), FULL_KEY).toString(), PLAIN.toString())
    assert.equal(t.fromStorage(PLAIN, FULL_KEY).toString(), PLAIN.toString())
  })

  it('fails with the reference errors on data it cannot read', () => {
    const t = secretsTransformer(config(aescbc([['k1', KEY32]])))
    throwsWith(() => t.fromStorage(PLAIN, FULL_KEY), 'no matching prefix found')
    throwsWith(() => t.fromStorage(referenceAesCbc(KEY32, 'gone', PLAIN), FULL_KEY), 'no matching key was found for the provided AES transformer')
    throwsWith(() => t.fromStorage(Buffer.from('k8s:enc:aescbc:v1:k1:short'), FULL_KEY), 'the stored data was shorter than the required size')
    throwsWith(() => t.fromStorage(Buffer.concat([Buffer.from('k8s:enc:aescbc:v1:k1:'), Buffer.alloc(20)]), FULL_KEY), 'the stored data is not a multiple of the block size')
    const onlyIdentity = secretsTransformer(config(identity))
    throwsWith(() => onlyIdentity.fromStorage(referenceAesCbc(KEY32, 'k1', PLAIN), FULL_KEY), 'identity transformer tried to read encrypted data')
    const box = secretsTransformer(config(secretbox([['k1', OTHER32]])))
    throwsWith(() => box.fromStorage(referenceSecretbox(KEY32, 'k1', PLAIN), FULL_KEY), 'output array was not large enough for encryption')
  })
})

describe('encryption at rest: configuration', () => {
  const fails = (text: string) => {
    try {
      parseEncryptionConfig(text, '/etc/enc.yaml')
    } catch (err) {
      return (err as Error).message
    }
    throw new Error('expected the configuration to be refused')
  }
  const head = 'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n'

  it('refuses keys of the wrong length or encoding with the reference messages', () => {
    assert.equal(fails(`${head}resources:\n  - resources: [secrets]\n    providers:\n${aescbc([['k1', Buffer.alloc(8)]])}`),
      'resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 8, expected one of [16 24 32]',
    )
    assert.equal(fails(`${head}resources:\n  - resources: [secrets]\n    providers:\n${secretbox([['k1', KEY16]])}`),
      'resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 16, expected one of [32]',
    )
    assert.equal(fails(`${head}resources:\n  - resources: [secrets]\n    providers:\n      - aesgcm:\n          keys:\n            - name: k1\n              secret: not base64!\n`),
      'resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded',
    )
    assert.equal(fails(`${head}resources:\n  - resources: [secrets]\n    providers:\n      - aesgcm:\n          keys: []\n`),
      'resources[0].providers[0].aesgcm.keys: Required value: at least one keys is required',
    )
  })

  it('refuses bad resource lists and provider entries with the reference messages', () => {
    assert.equal(fails(`${head}resources:\n  - resources: ['*']\n    providers:\n${identity}`),
      `resources[0].resources[0]: Invalid value: "*": use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources`,
    )
    assert.equal(fails(`${head}resources:\n  - resources: [secrets, '*.']\n    providers:\n${identity}`),
      `resources[0].resources: Invalid value: []string{"secrets", "*."}: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked`,
    )
    assert.equal(
      fails(`${head}resources:\n  - resources: [events.events.k8s.io]\n    providers:\n${identity}`),
      `resources[0].resources[0]: Invalid value: "events.events.k8s.io": '*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file`,
    )
    assert.equal(fails(`${head}resources:\n  - resources: [secrets]\n    providers: []\n`),
      'resources[0].providers: Required value: at least one resources[0].providers is required',
    )
    assert.equal(fails(`${head}resources:\n  - resources: ['*.*']\n    providers:\n${identity}  - resources: [secrets]\n    providers:\n${identity}`),
      'error while building transformers: resource "secrets" is masked by earlier rule "*.*"',
    )
  })

  it('decodes strictly and knows only apiserver.config.k8s.io/v1 EncryptionConfiguration', () => {
    assert.equal(
      fails(`${head}resources:\n  - resources: [secrets]\n    providers:\n      - aescbc:\n          keys: []\n          foo: 1\n`),
      'strict decoding error: unknown field "resources[0].providers[0].aescbc.foo"',
    )
    assert.equal(
      fails('apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfig\nresources: []\n'),
      'no kind "EncryptionConfig" is registered for version "apiserver.config.k8s.io/v1"',
    )
    assert.equal(fails(''), 'encryption provider configuration file "/etc/enc.yaml" is empty')
  })

  it('refuses kms providers by name, as not supported', () => {
    const msg = fails(`${head}resources:\n  - resources: [secrets]\n    providers:\n      - kms:\n          apiVersion: v2\n          name: vault\n          endpoint: unix:///tmp/kms.sock\n`)
    assert.ok(msg.includes('kms provider "vault" is not supported'), msg)
  })

  it('matches wildcards: *. for the core group, *.group, *.*', () => {
    const c = parseEncryptionConfig(
      `${head}resources:\n  - resources: ['*.apps']\n    providers:\n${aescbc([['a', KEY16]])}  - resources: ['*.']\n    providers:\n${secretbox([['b', KEY32]])}`,
      'f',
    )
    assert.deepEqual([...c.transformers.keys()].sort(), ['*.', '*.apps'])
  })
})

describe('encryption at rest: the encrypting store', () => {
  let dir: string
  let inner: SqliteStore
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'enc-'))
    inner = SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0, healthcheckTimeoutMs: 2000, readycheckTimeoutMs: 2000 })
  })
  afterEach(async () => {
    await inner.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('stores secrets encrypted, configmaps as they are, and reads both back', async () => {
    let current = config(aesgcm([['k1', KEY32]]))
    const store = new EncryptingStore(inner, { prefix: '/registry', config: () => current, storageGroupOf: (r) => (r === 'secrets' || r === 'configmaps' ? '' : undefined) })
    await store.create('/secrets/default/s1', PLAIN)
    await store.create('/configmaps/default/c1', PLAIN)
    const raw = await inner.get('/secrets/default/s1')
    assert.equal(raw!.value.subarray(0, 21).toString(), 'k8s:enc:aesgcm:v1:k1:')
    // The additional data is the full key under the store prefix, as the reference's etcd key.
    const body = raw!.value.subarray(21)
    const d = createDecipheriv('aes-256-gcm', KEY32, body.subarray(0, 12))
    d.setAAD(Buffer.from('/registry/secrets/default/s1'))
    d.setAuthTag(body.subarray(body.length - 16))
    assert.equal(Buffer.concat([d.update(body.subarray(12, body.length - 16)), d.final()]).toString(), PLAIN.toString())
    assert.equal((await inner.get('/configmaps/default/c1'))!.value.toString(), PLAIN.toString())
    assert.equal((await store.get('/secrets/default/s1'))!.value.toString(), PLAIN.toString())
    const page = await store.list('/secrets/')
    assert.deepEqual(page.items.map((kv) => kv.value.toString()), [PLAIN.toString()])
    // A configuration without the key cannot read it: the list names the key, like the reference.
    current = config(aesgcm([['k2', OTHER32]]))
    try {
      await store.list('/secrets/')
      assert.fail('the list should fail')
    } catch (err) {
      assert.equal((err as Error).message, 'unable to transform key "/registry/secrets/default/s1": no matching key was found for the provided AES transformer')
    }
  })
})
