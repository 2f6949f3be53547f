/**
 * ImagePolicyWebhook against a real local HTTPS server, after the reference's
 * imagepolicy/admission_test.go (TestNewFromConfig, TestTLSConfig, TestWebhookCache,
 * TestContainerCombinations, TestDefaultAllow, TestAnnotationFiltering,
 * TestReturnedAnnotationAdd) and config_test.go (TestConfigNormalization), with the refusal
 * texts of its admission.go and client-go's for a webhook that fails.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AdmissionAttributes } from '../../../src/server/admission/attributes.js'
import { IMAGE_POLICY_FAILED_OPEN_KEY, ImagePolicyWebhook } from '../../../src/server/admission/imagepolicy/admission.js'
import { readImagePolicyConfig } from '../../../src/server/admission/imagepolicy/config.js'
import { admissionPluginConfig, readAdmissionConfiguration } from '../../../src/core/config-files/admission-config.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { createCaCertificate, createLeafCertificate, generateKey, privateKeyPem } from '../../../src/server/tls/generate.js'
import { attributesFor, refusal } from './table-support.js'

type Obj = Record<string, any>

interface Pki {
  caCert: string
  badCaCert: string
  serverCert: string
  serverKey: string
  clientCert: string
  clientKey: string
}

async function makePki(): Promise<Pki> {
  const notBefore = new Date(Date.now() - 3_600_000)
  const notAfter = new Date(Date.now() + 86_400_000)
  const caKey = await generateKey('ecdsa')
  const caCert = await createCaCertificate({ key: caKey, commonName: 'imagepolicy-ca', notBefore, notAfter })
  const badKey = await generateKey('ecdsa')
  const badCaCert = await createCaCertificate({ key: badKey, commonName: 'other-ca', notBefore, notAfter })
  const serverKey = await generateKey('ecdsa')
  const serverCert = await createLeafCertificate({ ca: { certPem: caCert, privateKey: caKey.privateKey }, publicKey: serverKey.publicKey, commonName: 'webhook', dns: ['localhost'], ips: ['127.0.0.1'], notBefore, notAfter })
  const clientKey = await generateKey('ecdsa')
  const clientCert = await createLeafCertificate({ ca: { certPem: caCert, privateKey: caKey.privateKey }, publicKey: clientKey.publicKey, commonName: 'apiserver', dns: [], ips: [], usage: 'client', notBefore, notAfter })
  return { caCert, badCaCert, serverCert, serverKey: privateKeyPem(serverKey.privateKey), clientCert, clientKey: privateKeyPem(clientKey.privateKey) }
}

/** The reference's mockService: allows or denies all, "good" first image allowed, any "bad" image denied. */
class MockService {
  allow = false
  statusCode = 200
  outAnnotations: Record<string, string> | undefined
  /** The annotations of the last review (annotationService). */
  annotations: Record<string, string> = {}
  reviews: Obj[] = []

  review(r: Obj): Obj {
    const containers: Obj[] = r.spec?.containers ?? []
    let allowed = this.allow
    if (containers[0]?.image === 'good') allowed = true
    if (containers.some((c) => c.image === 'bad')) allowed = false
    this.annotations = { ...(r.spec?.annotations ?? {}) }
    return { allowed, reason: allowed ? '' : 'not allowed', auditAnnotations: this.outAnnotations ?? null }
  }
}

/** NewTestServer: an httptest TLS server, requiring a client certificate signed by `clientCa` when given. */
async function newTestServer(service: MockService, cert: string, key: string, clientCa?: string): Promise<{ url: string; close(): void; server: Server }> {
  const server = createServer({ cert, key, ...(clientCa ? { ca: clientCa, requestCert: true, rejectUnauthorized: true } : {}) }, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Obj
      service.reviews.push(review)
      if (service.statusCode < 200 || service.statusCode >= 300) {
        // Go's http.Error.
        res.writeHead(service.statusCode, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' })
        res.end('HTTP Error\n')
        return
      }
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ apiVersion: 'imagepolicy.k8s.io/v1alpha1', kind: 'ImageReview', status: service.review(review) }) + '\n')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, server, close: () => server.close() }
}

const goodPod = (image: string): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { serviceAccountName: 'default', containers: [{ name: 'c', image }] } })
const podWith = (containers: string[], initContainers: string[] = []): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p' },
  spec: { containers: containers.map((image, i) => ({ name: `c${i}`, image })), initContainers: initContainers.map((image, i) => ({ name: `i${i}`, image })) },
})
const attrsFor = (pod: KubeObject, over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({ ...attributesFor({ object: pod, namespace: 'namespace', name: 'p' }), ...over })

describe('admission: ImagePolicyWebhook', function () {
  this.timeout(30_000)
  let pki: Pki
  let dir: string
  let n = 0

  before(async () => {
    pki = await makePki()
    dir = mkdtempSync(join(tmpdir(), 'adm-ipw-'))
  })
  after(() => dir && rmSync(dir, { recursive: true, force: true }))

  const write = (text: string): string => {
    const path = join(dir, `f${n++}`)
    writeFileSync(path, text)
    return path
  }

  /** newImagePolicyWebhook: a kubeconfig of the unnamed cluster and user, TTLs of `cacheSeconds` (-1 disables, 0 default). */
  function newPlugin(url: string, client: { cert?: string; key?: string; ca?: string }, cacheSeconds: number, defaultAllow: boolean, now?: () => number): ImagePolicyWebhook {
    const b64 = (s?: string) => (s ? Buffer.from(s).toString('base64') : undefined)
    const kubeconfig = write(
      JSON.stringify({
        clusters: [{ name: '', cluster: { server: url, 'certificate-authority-data': b64(client.ca) } }],
        users: [{ name: '', user: { 'client-certificate-data': b64(client.cert), 'client-key-data': b64(client.key) } }],
      }),
    )
    // retryBackoff -1: retries without a pause (the reference's tests wait the default 500 ms).
    return new ImagePolicyWebhook({ log: () => {} }, { imagePolicy: { kubeConfigFile: kubeconfig, allowTTL: cacheSeconds, denyTTL: cacheSeconds, retryBackoff: -1, defaultAllow } }, now)
  }

  describe('TestNewFromConfig', () => {
    const single = (ca: string, cert: string, key: string) => `clusters:\n- cluster:\n    certificate-authority: ${ca}\n    server: https://admission.example.com\n  name: foobar\nusers:\n- name: a cluster\n  user:\n    client-certificate: ${cert}\n    client-key: ${key}\n`
    const two = (first: string, second: string, context: string | undefined, cert: string, key: string) =>
      `clusters:\n- cluster:\n    certificate-authority: ${first}\n    server: https://admission.example.com\n  name: foobar\n- cluster:\n    certificate-authority: ${second}\n    server: https://admission.example.com\n  name: barfoo\nusers:\n- name: a name\n  user:\n    client-certificate: ${cert}\n    client-key: ${key}\n` +
      (context ? `contexts:\n- name: default\n  context:\n    cluster: ${context}\n    user: a name\ncurrent-context: default\n` : '')
    const cases: Array<[string, (ca: string, cert: string, key: string) => string, string | undefined]> = [
      ['a single cluster and single user', single, 'invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable'],
      ['multiple clusters with no context', (ca, cert, key) => two(ca, 'a bad certificate path', undefined, cert, key), 'invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable'],
      ['multiple clusters with a context', (ca, cert, key) => two('a bad certificate path', ca, 'barfoo', cert, key), undefined],
      ['cluster with bad certificate path specified', (ca, cert, key) => two('a bad certificate path', ca, 'foobar', cert, key), 'bad certificate path'],
    ]
    for (const [msg, template, wantErr] of cases) {
      it(msg, () => {
        const ca = write(pki.caCert)
        const cert = write(pki.clientCert)
        const key = write(pki.clientKey)
        const kubeconfig = write(template(ca, cert, key))
        const make = () => new ImagePolicyWebhook({ log: () => {} }, JSON.parse(`{"imagePolicy": {"kubeConfigFile": ${JSON.stringify(kubeconfig)}, "allowTTL": 500, "denyTTL": 500, "retryBackoff": 500, "defaultAllow": true}}`))
        if (wantErr === undefined) make()
        else assert.throws(make, (err: Error) => err.message.includes(wantErr))
      })
    }

    it('the legacy unversioned file is the configuration; a kubeconfig that is not there is named', () => {
      const missing = join(dir, 'missing.kubeconfig')
      const file = write(`imagePolicy:\n  kubeConfigFile: ${missing}\n  defaultAllow: true\n`)
      const config = readAdmissionConfiguration(['ImagePolicyWebhook'], file)
      assert.throws(() => new ImagePolicyWebhook({ log: () => {} }, admissionPluginConfig(config, 'ImagePolicyWebhook')), { message: `stat ${missing}: no such file or directory` })
    })

    it('no configuration at all', () => {
      assert.throws(() => new ImagePolicyWebhook({ log: () => {} }, undefined), { message: 'no config specified' })
    })
  })

  describe('TestTLSConfig', () => {
    const cases: Array<{ test: string; client: 'full' | 'caOnly' | 'noCa' | 'none'; server: 'mtls' | 'tls' | 'badClientCa' | 'selfSigned'; wantAllowed?: boolean; wantErr?: RegExp }> = [
      { test: 'TLS setup between client and server', client: 'full', server: 'mtls', wantAllowed: true },
      { test: 'Server does not require client auth', client: 'caOnly', server: 'tls', wantAllowed: true },
      { test: 'Server does not require client auth, client provides it', client: 'full', server: 'tls', wantAllowed: true },
      { test: 'Client does not trust server', client: 'noCa', server: 'tls', wantErr: /^pods "p" is forbidden: Post "https:\/\/127\.0\.0\.1:\d+\/": tls: failed to verify certificate: x509: certificate signed by unknown authority$/ },
      { test: 'Server does not trust client', client: 'full', server: 'badClientCa', wantErr: /^pods "p" is forbidden: Post "https:\/\/127\.0\.0\.1:\d+\/": / },
      { test: 'Server is using insecure connection', client: 'none', server: 'selfSigned', wantErr: /^pods "p" is forbidden: Post "https:\/\/127\.0\.0\.1:\d+\/": / },
    ]
    for (const tt of cases) {
      it(tt.test, async () => {
        const service = new MockService()
        let cert = pki.serverCert
        let key = pki.serverKey
        if (tt.server === 'selfSigned') {
          // httptest's own certificate, which nothing here trusts.
          const k = await generateKey('ecdsa')
          cert = await createCaCertificate({ key: k, commonName: 'example.com', notBefore: new Date(Date.now() - 3_600_000), notAfter: new Date(Date.now() + 86_400_000) })
          key = privateKeyPem(k.privateKey)
        }
        const clientCa = tt.server === 'mtls' ? pki.caCert : tt.server === 'badClientCa' ? pki.badCaCert : undefined
        const server = await newTestServer(service, cert, key, clientCa)
        try {
          const client = tt.client === 'full' ? { cert: pki.clientCert, key: pki.clientKey, ca: pki.caCert } : tt.client === 'caOnly' ? { ca: pki.caCert } : tt.client === 'noCa' ? { cert: pki.clientCert, key: pki.clientKey } : {}
          const wh = newPlugin(server.url, client, -1, false)
          const attr = attrsFor(goodPod(String(Math.floor(Math.random() * 1000))))
          service.allow = true
          const got = await refusal(wh.validate(attr))
          if (tt.wantErr) {
            assert.ok(got, 'expected error making admission request')
            assert.equal(got.code, 403)
            assert.match(got.message, tt.wantErr)
            return
          }
          assert.equal(got, undefined, 'failed to admit with AllowAll policy')
          service.allow = false
          assert.deepEqual(await refusal(wh.validate(attr)), { code: 403, reason: 'Forbidden', message: 'pods "p" is forbidden: image policy webhook backend denied one or more images: not allowed' })
        } finally {
          server.close()
        }
      })
    }
  })

  describe('TestWebhookCache: error answers are not cached, successful ones are', () => {
    let service: MockService
    let server: Awaited<ReturnType<typeof newTestServer>>
    before(async () => {
      service = new MockService()
      server = await newTestServer(service, pki.serverCert, pki.serverKey, pki.caCert)
    })
    after(() => server.close())

    const steps: Array<[number, string | undefined]> = [
      [500, 'pods "p" is forbidden: an error on the server ("HTTP Error") has prevented the request from succeeding'],
      [404, 'pods "p" is forbidden: the server could not find the requested resource'],
      // A Forbidden answer is kept as it is (admission.NewForbidden does not wrap it again).
      [403, 'HTTP Error'],
      [401, 'pods "p" is forbidden: the server has asked for the client to provide credentials'],
      [200, undefined],
      [500, undefined],
    ]
    it('for one pod, then another', async () => {
      const wh = newPlugin(server.url, { cert: pki.clientCert, key: pki.clientKey, ca: pki.caCert }, 200, false)
      service.allow = true
      for (const [pod, plan] of [['test', steps] as const, ['test2', [steps[0]!, steps[4]!, steps[5]!]] as const]) {
        for (const [statusCode, message] of plan) {
          service.statusCode = statusCode
          const got = await refusal(wh.validate(attrsFor(goodPod(pod))))
          assert.equal(got?.message, message, `HTTP ${statusCode}`)
          if (got) assert.equal(got.code, 403)
        }
      }
      // A 500 is tried five times (DefaultShouldRetry), a 404 once.
      assert.equal(service.reviews.length, 5 + 1 + 1 + 1 + 1 + 5 + 1)
    })

    it('an answer is kept for its TTL only', async () => {
      let now = 0
      const wh = newPlugin(server.url, { cert: pki.clientCert, key: pki.clientKey, ca: pki.caCert }, 10, false, () => now)
      service.allow = true
      service.statusCode = 200
      const before = service.reviews.length
      assert.equal(await refusal(wh.validate(attrsFor(goodPod('ttl')))), undefined)
      now += 10_000
      assert.equal(await refusal(wh.validate(attrsFor(goodPod('ttl')))), undefined)
      assert.equal(service.reviews.length, before + 1)
      now += 1
      service.allow = false
      assert.equal((await refusal(wh.validate(attrsFor(goodPod('ttl')))))?.code, 403)
      assert.equal(service.reviews.length, before + 2)
    })
  })

  describe('TestContainerCombinations', () => {
    let service: MockService
    let server: Awaited<ReturnType<typeof newTestServer>>
    before(async () => {
      service = new MockService()
      server = await newTestServer(service, pki.serverCert, pki.serverKey, pki.caCert)
    })
    after(() => server.close())
    const DENIED = 'pods "p" is forbidden: image policy webhook backend denied one or more images: not allowed'
    const cases: Array<[string, KubeObject, boolean]> = [
      ['Single container allowed', goodPod('good'), true],
      ['Single container denied', goodPod('bad'), false],
      ['One good container, one bad', podWith(['bad', 'good']), false],
      ['Multiple good containers', podWith(['good', 'good']), true],
      ['Multiple bad containers', podWith(['bad', 'bad']), false],
      ['Good container, bad init container', podWith(['good'], ['bad']), false],
      ['Bad container, good init container', podWith(['bad'], ['good']), false],
      ['Good container, good init container', podWith(['good'], ['good']), true],
    ]
    for (const [test, pod, wantAllowed] of cases) {
      it(test, async () => {
        const wh = newPlugin(server.url, { cert: pki.clientCert, key: pki.clientKey, ca: pki.caCert }, 0, false)
        const got = await refusal(wh.validate(attrsFor(pod)))
        assert.equal(got?.message, wantAllowed ? undefined : DENIED)
      })
    }

    it('the review: images of containers then init containers, the namespace, the ImageReview envelope', async () => {
      const wh = newPlugin(server.url, { cert: pki.clientCert, key: pki.clientKey, ca: pki.caCert }, -1, false)
      await refusal(wh.validate(attrsFor(podWith(['good', 'x'], ['y']))))
      assert.deepEqual(service.reviews.at(-1), {
        kind: 'ImageReview',
        apiVersion: 'imagepolicy.k8s.io/v1alpha1',
        metadata: { creationTimestamp: null },
        spec: { containers: [{ image: 'good' }, { image: 'x' }, { image: 'y' }], namespace: 'namespace' },
        status: { allowed: false },
      })
    })

    it('the ephemeralcontainers subresource reviews the ephemeral containers only; other subresources and resources are not reviewed', async () => {
      const wh = newPlugin(server.url, { cert: pki.clientCert, key: pki.clientKey, ca: pki.caCert }, -1, false)
      const pod = podWith(['bad'])
      ;(pod.spec as Obj).ephemeralContainers = [{ name: 'debug', image: 'good' }]
      assert.equal(await refusal(wh.validate(attrsFor(pod, { operation: 'UPDATE', subresource: 'ephemeralcontainers' }))), undefined)
      assert.deepEqual(service.reviews.at(-1)!.spec.containers, [{ image: 'good' }])
      const before = service.reviews.length
      assert.equal(await refusal(wh.validate(attrsFor(pod, { operation: 'UPDATE', subresource: 'status' }))), undefined)
      assert.equal(await refusal(wh.validate(attrsFor(pod, { resource: { group: '', version: 'v1', resource: 'podtemplates' } }))), undefined)
      assert.equal(service.reviews.length, before)
      assert.equal(wh.handles('DELETE'), false)
    })
  })

  describe('TestDefaultAllow: a backend that fails', () => {
    let service: MockService
    let server: Awaited<ReturnType<typeof newTestServer>>
    before(async () => {
      service = new MockService()
      service.statusCode = 500
      server = await newTestServer(service, pki.serverCert, pki.serverKey, pki.caCert)
    })
    after(() => server.close())
    for (const [test, image, defaultAllow] of [
      ['DefaultAllow = true, backend unreachable, bad image', 'bad', true],
      ['DefaultAllow = true, backend unreachable, good image', 'good', true],
      ['DefaultAllow = false, backend unreachable, good image', 'good', false],
      ['DefaultAllow = false, backend unreachable, bad image', 'bad', false],
    ] as const) {
      it(test, async () => {
        const wh = newPlugin(server.url, { cert: pki.clientCert, key: pki.clientKey, ca: pki.caCert }, 0, defaultAllow)
        const pod = goodPod(image)
        const attr = attrsFor(pod)
        const got = await refusal(wh.validate(attr))
        if (defaultAllow) {
          assert.equal(got, undefined)
          assert.equal(pod.metadata.annotations?.[IMAGE_POLICY_FAILED_OPEN_KEY], 'true')
          assert.equal(attr.annotations?.['imagepolicywebhook.image-policy.k8s.io/failed-open'], 'true')
        } else {
          assert.equal(got?.message, 'pods "p" is forbidden: an error on the server ("HTTP Error") has prevented the request from succeeding')
          assert.equal(pod.metadata.annotations?.[IMAGE_POLICY_FAILED_OPEN_KEY], undefined)
          assert.equal(attr.annotations?.['imagepolicywebhook.image-policy.k8s.io/failed-open'], undefined)
        }
      })
    }

    it('a backend not listening: refused with the dial error', async () => {
      const closed = await newTestServer(new MockService(), pki.serverCert, pki.serverKey)
      closed.close()
      await new Promise((resolve) => closed.server.once('close', resolve))
      const wh = newPlugin(closed.url, { ca: pki.caCert }, 0, false)
      const got = await refusal(wh.validate(attrsFor(goodPod('good'))))
      assert.equal(got?.message, `pods "p" is forbidden: Post "${closed.url}/": dial tcp ${closed.url.slice('https://'.length)}: connect: connection refused`)
    })
  })

  describe('TestAnnotationFiltering', () => {
    let service: MockService
    let server: Awaited<ReturnType<typeof newTestServer>>
    before(async () => {
      service = new MockService()
      service.allow = true
      server = await newTestServer(service, pki.serverCert, pki.serverKey, pki.caCert)
    })
    after(() => server.close())
    const cases: Array<[string, Record<string, string>, Record<string, string>]> = [
      ['all annotations filtered out', { test: 'test', another: 'annotation', '': '' }, {}],
      [
        'image-policy annotations allowed',
        { 'my.image-policy.k8s.io/test': 'test', 'other.image-policy.k8s.io/test2': 'annotation', test: 'test', another: 'another', '': '' },
        { 'my.image-policy.k8s.io/test': 'test', 'other.image-policy.k8s.io/test2': 'annotation' },
      ],
    ]
    for (const [test, annotations, out] of cases) {
      it(test, async () => {
        const wh = newPlugin(server.url, { cert: pki.clientCert, key: pki.clientKey, ca: pki.caCert }, 0, true)
        const pod = goodPod('test')
        pod.metadata.annotations = annotations
        assert.equal(await refusal(wh.validate(attrsFor(pod))), undefined)
        assert.deepEqual(service.annotations, out)
      })
    }
  })

  describe('TestReturnedAnnotationAdd', () => {
    let service: MockService
    let server: Awaited<ReturnType<typeof newTestServer>>
    before(async () => {
      service = new MockService()
      server = await newTestServer(service, pki.serverCert, pki.serverKey, pki.caCert)
    })
    after(() => server.close())
    const cases: Array<[string, KubeObject, Record<string, string> | undefined, Record<string, string>]> = [
      ['Add valid response annotations', goodPod('good'), { 'foo-test': 'true', 'bar-test': 'false' }, { 'imagepolicywebhook.image-policy.k8s.io/foo-test': 'true', 'imagepolicywebhook.image-policy.k8s.io/bar-test': 'false' }],
      ['No returned annotations are ignored', goodPod('good'), {}, {}],
      ['Handles nil annotations', goodPod('good'), undefined, {}],
      ['Adds annotations for bad request', podWith(['bad']), { 'foo-test': 'false' }, { 'imagepolicywebhook.image-policy.k8s.io/foo-test': 'false' }],
    ]
    for (const [test, pod, verifierAnnotations, expected] of cases) {
      it(test, async () => {
        service.outAnnotations = verifierAnnotations
        const wh = newPlugin(server.url, { cert: pki.clientCert, key: pki.clientKey, ca: pki.caCert }, 0, true)
        const attr = attrsFor(pod)
        await refusal(wh.validate(attr))
        assert.deepEqual(attr.annotations ?? {}, expected)
      })
    }
  })
})

describe('admission: ImagePolicyWebhook configuration (TestConfigNormalization)', () => {
  const section = (over: Record<string, unknown>) => ({ imagePolicy: { kubeConfigFile: '/k', ...over } })

  it('config within normal ranges', () => {
    // ((min + max) / 2) in the unit the field is read in: 900 s, 900 s, 150000 ms.
    assert.deepEqual(readImagePolicyConfig(section({ allowTTL: 900, denyTTL: 900, retryBackoff: 150_000 })), { kubeConfigFile: '/k', allowTtlMs: 900_000, denyTtlMs: 900_000, retryBackoffMs: 150_000, defaultAllow: false })
  })

  it('config below normal ranges, error', () => {
    assert.throws(() => readImagePolicyConfig(section({ allowTTL: 1 })), { message: 'valid value is between 1s and 30m0s, got 1s' })
    assert.throws(() => readImagePolicyConfig(section({ denyTTL: -5 })), { message: 'valid value is between 1s and 30m0s, got -5s' })
    assert.throws(() => readImagePolicyConfig(section({ retryBackoff: -2 })), { message: 'valid value is between 1ns and 5m0s, got -2ms' })
  })

  it('config above normal ranges, error', () => {
    assert.throws(() => readImagePolicyConfig(section({ allowTTL: 1801 })), { message: 'valid value is between 1s and 30m0s, got 30m1s' })
    assert.throws(() => readImagePolicyConfig(section({ denyTTL: 3600 })), { message: 'valid value is between 1s and 30m0s, got 1h0m0s' })
    assert.throws(() => readImagePolicyConfig(section({ retryBackoff: 300_001 })), { message: 'valid value is between 1ns and 5m0s, got 5m0.001s' })
  })

  it('config wants default values', () => {
    assert.deepEqual(readImagePolicyConfig(section({})), { kubeConfigFile: '/k', allowTtlMs: 300_000, denyTtlMs: 30_000, retryBackoffMs: 500, defaultAllow: false })
  })

  it('config wants disabled values', () => {
    assert.deepEqual(readImagePolicyConfig(section({ allowTTL: -1, denyTTL: -1, retryBackoff: -1, defaultAllow: true })), { kubeConfigFile: '/k', allowTtlMs: 0, denyTtlMs: 0, retryBackoffMs: 0, defaultAllow: true })
  })

  it('decodes as encoding/json: field names in any case, typed values', () => {
    assert.equal(readImagePolicyConfig({ ImagePolicy: { KubeConfigFile: '/x', DEFAULTALLOW: true } }).kubeConfigFile, '/x')
    assert.throws(() => readImagePolicyConfig(section({ allowTTL: '30s' })), { message: 'json: cannot unmarshal string into Go struct field imagePolicyWebhookConfig.imagePolicy.allowTTL of type time.Duration' })
    assert.throws(() => readImagePolicyConfig(section({ defaultAllow: 'yes' })), { message: 'json: cannot unmarshal string into Go struct field imagePolicyWebhookConfig.imagePolicy.defaultAllow of type bool' })
  })
})
