import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { dumpedKubeconfigText, kubeconfigText, type ServerKubeconfig } from '../../../src/core/client/kubeconfig-writer.js'

const yaml = createRequire(import.meta.url)('js-yaml') as typeof import('js-yaml')
const PEM = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n'

describe('core/client: the server kubeconfig writer', () => {
  const cases: Array<[string, ServerKubeconfig]> = [
    ['IPv4, CA and client certificate', { server: 'https://127.0.0.1:6443', name: 'client', caPem: PEM, clientCertPem: PEM, clientKeyPem: PEM }],
    ['IPv6 in brackets, CA only', { server: 'https://[::1]:6443', name: 'client', caPem: PEM }],
    ['host name, no CA, no credentials', { server: 'https://api.example-1.test:443', name: 'dev-cluster' }],
  ]
  for (const [label, cfg] of cases) {
    it(`writes what js-yaml's dump writes (${label}) without js-yaml`, () => {
      const text = kubeconfigText(cfg)
      // js-yaml dumping the same document, independently of our template.
      const cluster: Record<string, string> = { server: cfg.server }
      if (cfg.caPem) cluster['certificate-authority-data'] = Buffer.from(cfg.caPem).toString('base64')
      const user: Record<string, string> = cfg.clientCertPem ? { 'client-certificate-data': Buffer.from(cfg.clientCertPem).toString('base64'), 'client-key-data': Buffer.from(cfg.clientKeyPem!).toString('base64') } : {}
      const expected = yaml.dump(
        { apiVersion: 'v1', kind: 'Config', clusters: [{ name: cfg.name, cluster }], users: [{ name: cfg.name, user }], contexts: [{ name: cfg.name, context: { cluster: cfg.name, user: cfg.name } }], 'current-context': cfg.name, preferences: {} },
        { lineWidth: -1 },
      )
      assert.equal(text, expected)
      assert.equal(dumpedKubeconfigText(cfg), expected)
    })
  }

  it('hands names js-yaml would quote to js-yaml', () => {
    for (const name of ['yes', 'true', '123', 'a b', 'x:y']) {
      const text = kubeconfigText({ server: 'https://127.0.0.1:6443', name })
      assert.deepEqual((yaml.load(text) as { 'current-context': string })['current-context'], name)
      assert.equal(text, dumpedKubeconfigText({ server: 'https://127.0.0.1:6443', name }))
    }
  })
})
