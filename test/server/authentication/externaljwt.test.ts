/**
 * The external signer's plugin and key cache against a fake client, with the reference's
 * checks and messages (pkg/serviceaccount/externaljwt/plugin: plugin.go, keycache.go).
 */
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import type { ExternalSignerClient, FetchedKeys } from '../../../src/server/authentication/externaljwt/client.js'
import { ExternalKeyCache } from '../../../src/server/authentication/externaljwt/key-cache.js'
import { ExternalJwtSigner } from '../../../src/server/authentication/externaljwt/plugin.js'

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url')
const der = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'der' })

function fakeClient(keys: () => FetchedKeys, header: unknown, counter = { fetches: 0 }): ExternalSignerClient {
  return {
    sign: async () => ({ header: typeof header === 'string' ? header : b64(header), signature: 'c2ln' }),
    fetchKeys: async () => {
      counter.fetches++
      return keys()
    },
    metadata: async () => ({ maxTokenExpirationSeconds: 3600 }),
    close: () => undefined,
  }
}

const KEYS: FetchedKeys = {
  keys: [
    { keyId: 'k1', key: der(), excludeFromOidcDiscovery: false },
    { keyId: 'old', key: der(), excludeFromOidcDiscovery: true },
  ],
  dataTimestampMs: 1,
  refreshHintSeconds: 60,
}

async function signerWith(header: unknown): Promise<ExternalJwtSigner> {
  const client = fakeClient(() => KEYS, header)
  const cache = new ExternalKeyCache(client, 1000)
  await cache.initialFill()
  return new ExternalJwtSigner(client, cache)
}

describe('authentication: the external signer plugin', () => {
  it('assembles the token from the header, the payload it sent and the signature', async () => {
    const signer = await signerWith({ alg: 'ES256', kid: 'k1', typ: 'JWT' })
    const token = await signer.sign({ iss: 'x' })
    assert.equal(token, `${b64({ alg: 'ES256', kid: 'k1', typ: 'JWT' })}.${b64({ iss: 'x' })}.c2ln`)
  })

  it('checks the header as the reference does', async () => {
    const cases: Array<[unknown, string]> = [
      [{ alg: 'ES256', kid: 'k1', typ: 'JOSE' }, 'while validating header: bad type'],
      [{ alg: 'ES256', typ: 'JWT' }, 'while validating header: key id missing'],
      [{ alg: 'ES256', kid: 'k'.repeat(1025), typ: 'JWT' }, 'while validating header: key id longer than 1 kb'],
      [{ alg: 'HS256', kid: 'k1', typ: 'JWT' }, 'while validating header: bad signing algorithm "HS256"'],
      [{ alg: 'ES256', kid: 'old', typ: 'JWT' }, 'while validating header: key used for signing JWT (kid: old) is excluded from OIDC discovery docs'],
      [{ alg: 'ES256', kid: 'k1', typ: 'JWT', x5c: [] }, 'while validating header: while parsing header JSON: json: unknown field "x5c"'],
    ]
    for (const [header, message] of cases) {
      const signer = await signerWith(header)
      await assert.rejects(signer.sign({}), { message }, JSON.stringify(header))
    }
  })
})

describe('authentication: the external signer key cache', () => {
  it('refuses a response the reference refuses, with its message', async () => {
    const cases: Array<[FetchedKeys, string]> = [
      [{ ...KEYS, refreshHintSeconds: 0 }, 'found invalid refresh hint (0s)'],
      [{ ...KEYS, keys: [] }, 'found no keys'],
      [{ keys: KEYS.keys, refreshHintSeconds: 60 }, 'invalid data timestamp: invalid nil Timestamp'],
      [{ ...KEYS, keys: [{ keyId: '', key: der(), excludeFromOidcDiscovery: false }] }, 'found invalid public key id ""'],
      [{ ...KEYS, keys: [{ keyId: 'a', key: Buffer.alloc(0), excludeFromOidcDiscovery: false }] }, 'found empty public key'],
    ]
    for (const [response, reason] of cases) {
      const cache = new ExternalKeyCache(fakeClient(() => response, {}), 1000)
      await assert.rejects(cache.initialFill(), {
        message: `while initially filling key cache: while performing initial cache fill: while fetching token verification keys: ${reason}`,
      })
    }
  })

  it('fetches again for a key id it does not know, once per lookup', async () => {
    const counter = { fetches: 0 }
    const cache = new ExternalKeyCache(fakeClient(() => KEYS, {}, counter), 1000)
    await cache.initialFill()
    assert.equal(counter.fetches, 1)
    assert.equal((await cache.keysFor('k1')).length, 1)
    assert.equal(counter.fetches, 1, 'a known key id is answered from the cache')
    assert.deepEqual(await cache.keysFor('unknown'), [])
    assert.equal(counter.fetches, 2)
  })
})
