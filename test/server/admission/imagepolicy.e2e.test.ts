/**
 * ImagePolicyWebhook end to end with the real kubectl: enabled with its configuration by path
 * from the admission configuration file, and a kubeconfig naming a local HTTPS webhook that
 * denies the image `bad` (the reference's test service); a pod with it is refused with the
 * reference's message (`image policy webhook backend denied one or more images: <reason>`),
 * one with `good` is created, and once the webhook is down (defaultAllow false) a pod of an
 * image not yet reviewed is refused with client-go's dial error.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCaCertificate, createLeafCertificate, generateKey, privateKeyPem } from '../../../src/server/tls/generate.js'
import { KubectlSession } from '../../support/kubectl-session.js'
import { MAIN_KUBECTL } from '../../support/kubectl-versions.js'

type Obj = Record<string, any>

describe(`admission: ImagePolicyWebhook end to end [kubectl ${MAIN_KUBECTL.version}]`, function () {
  this.timeout(120_000)
  let session: KubectlSession
  let dir: string
  let webhook: Server
  let port: number
  const reviews: Obj[] = []

  before(async function () {
    dir = mkdtempSync(join(tmpdir(), 'adm-ipw-e2e-'))
    const notBefore = new Date(Date.now() - 3_600_000)
    const notAfter = new Date(Date.now() + 86_400_000)
    const caKey = await generateKey('ecdsa')
    const caPem = await createCaCertificate({ key: caKey, commonName: 'imagepolicy-ca', notBefore, notAfter })
    const key = await generateKey('ecdsa')
    const cert = await createLeafCertificate({ ca: { certPem: caPem, privateKey: caKey.privateKey }, publicKey: key.publicKey, commonName: 'webhook', dns: ['localhost'], ips: ['127.0.0.1'], notBefore, notAfter })
    webhook = createServer({ cert, key: privateKeyPem(key.privateKey) }, (req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Obj
        reviews.push(review)
        const bad = (review.spec?.containers ?? []).some((c: Obj) => c.image === 'bad')
        res.setHeader('content-type', 'application/json')
        res.end(JSON.stringify({ apiVersion: 'imagepolicy.k8s.io/v1alpha1', kind: 'ImageReview', status: bad ? { allowed: false, reason: 'not allowed' } : { allowed: true } }))
      })
    })
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve))
    port = (webhook.address() as AddressInfo).port
    writeFileSync(join(dir, 'webhook.kubeconfig'), `apiVersion: v1\nkind: Config\nclusters:\n- name: images\n  cluster:\n    server: https://127.0.0.1:${port}\n    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}\nusers:\n- name: apiserver\n  user: {}\ncontexts:\n- name: default\n  context: {cluster: images, user: apiserver}\ncurrent-context: default\n`)
    writeFileSync(join(dir, 'imagepolicy.yaml'), `imagePolicy:\n  kubeConfigFile: ${join(dir, 'webhook.kubeconfig')}\n  allowTTL: 50\n  denyTTL: 50\n  retryBackoff: 500\n  defaultAllow: false\n`)
    const config = join(dir, 'admission.yaml')
    writeFileSync(config, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ImagePolicyWebhook\n  path: imagepolicy.yaml\n')
    session = await KubectlSession.open(this, 'adm-ipw-', {
      waitFor: 'ready',
      kubectl: MAIN_KUBECTL.tool,
      args: ['--enable-admission-plugins=ImagePolicyWebhook', `--admission-control-config-file=${config}`],
    })
  })
  after(async () => {
    await session?.close()
    webhook?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const pod = (name: string, image: string) =>
    session.file(`${name}.yaml`, ['apiVersion: v1', 'kind: Pod', `metadata: {name: ${name}, namespace: default, annotations: {a.image-policy.k8s.io/ticket: "42", other: x}}`, 'spec:', `  containers: [{name: c, image: ${image}}]`, ''].join('\n'))


  it('a denied image is refused with the reference\'s message', async () => {
    const file = pod('denied', 'bad')
    const r = await session.run('create', '-f', file)
    assert.equal(r.code, 1)
    assert.equal(r.stderr, `Error from server (Forbidden): error when creating "${file}": pods "denied" is forbidden: image policy webhook backend denied one or more images: not allowed\n`)
    assert.deepEqual(reviews.at(-1)?.spec, { containers: [{ image: 'bad' }], annotations: { 'a.image-policy.k8s.io/ticket': '42' }, namespace: 'default' })
  })

  it('an allowed image is created', async () => {
    assert.equal(await session.ok('create', '-f', pod('allowed', 'good')), 'pod/allowed created\n')
  })

  it('with the webhook down, an image not reviewed yet is refused with the dial error', async () => {
    await new Promise<void>((resolve) => webhook.close(() => resolve()))
    const file = pod('unreviewed', 'other')
    const r = await session.run('create', '-f', file)
    assert.equal(r.code, 1)
    assert.equal(r.stderr, `Error from server (Forbidden): error when creating "${file}": pods "unreviewed" is forbidden: Post "https://127.0.0.1:${port}/": dial tcp 127.0.0.1:${port}: connect: connection refused\n`)
  })
})
