/**
 * --egress-selector-config-file as the reference reads and validates it: the cases of
 * k8s.io/apiserver/pkg/server/egressselector/config_test.go (TestReadEgressSelectorConfiguration:
 * an empty file, the absent file, a file of another kind, v1beta1 with `master`;
 * TestValidateEgressSelectorConfiguration: which configurations are refused), with the
 * messages of config.go and the wrapping of options/egress_selector.go's ApplyTo.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type EgressSelectorConfiguration,
  EgressSelectorConfigError,
  readEgressSelectorConfiguration,
  validateEgressSelectorConfiguration,
} from '../../../src/core/config-files/egress-selector-config.js'

describe('core/config-files: EgressSelectorConfiguration', () => {
  let dir: string
  const write = (body: string) => {
    const file = join(dir, 'egress.yaml')
    writeFileSync(file, body)
    return file
  }
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'egress-config-'))))
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  const refused = (file: string, message: string) =>
    assert.throws(() => readEgressSelectorConfiguration(file), (err: Error) => err instanceof EgressSelectorConfigError && err.message === message)

  it('an empty file: invalid service configuration object ""', () => {
    refused(write(''), 'failed to read egress selector config: invalid service configuration object ""')
  })

  it('the absent file, named', () => {
    const missing = join(dir, 'absent')
    refused(missing, `failed to read egress selector config: unable to read egress selector configuration from "${missing}" [open ${missing}: no such file or directory]`)
  })

  it('a file of another kind', () => {
    refused(write('apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: proxy-agent}\n'), 'failed to read egress selector config: invalid service configuration object "DaemonSet"')
  })

  for (const apiVersion of ['apiserver.k8s.io/v1beta1', 'apiserver.k8s.io/v1alpha1']) {
    it(`${apiVersion}: the selections, \`master\` read as \`controlplane\``, () => {
      const file = write(
        [
          `apiVersion: ${apiVersion}`,
          'kind: EgressSelectorConfiguration',
          'egressSelections:',
          '- name: "cluster"',
          '  connection:',
          '    proxyProtocol: "HTTPConnect"',
          '    transport:',
          '      tcp: {url: "http://127.0.0.1:8131"}',
          '- name: "master"',
          '  connection:',
          '    proxyProtocol: "HTTPConnect"',
          `    transport: {uds: {udsName: "${dir}/konnectivity-server.socket"}}`,
          '- name: "etcd"',
          '  connection: {proxyProtocol: "Direct"}',
          '',
        ].join('\n'),
      )
      assert.deepEqual(readEgressSelectorConfiguration(file), {
        egressSelections: [
          { name: 'cluster', proxyProtocol: 'HTTPConnect', transport: { tcp: { url: 'http://127.0.0.1:8131' } } },
          { name: 'controlplane', proxyProtocol: 'HTTPConnect', transport: { uds: { udsName: `${dir}/konnectivity-server.socket` } } },
          { name: 'etcd', proxyProtocol: 'Direct' },
        ],
      })
    })
  }

  const one = (name: string, proxyProtocol: string, transport?: EgressSelectorConfiguration['egressSelections'][number]['transport']): EgressSelectorConfiguration => ({
    egressSelections: [{ name, proxyProtocol, ...(transport ? { transport } : {}) }],
  })
  // The reference's socket path, relative here (the validation only needs it non-empty).
  const UDS = { udsName: 'konnectivity/konnectivity-server.socket' }
  const cases: Array<[string, EgressSelectorConfiguration, string[]]> = [
    ['direct-valid', one('controlplane', 'Direct'), []],
    ['direct-invalid-transport', one('controlplane', 'Direct', {}), ['service.connection.transport: Invalid value: "direct": Transport config should be absent for direct connect']],
    ['httpconnect-no-https', one('cluster', 'HTTPConnect', { tcp: { url: 'http://127.0.0.1:8131' } }), []],
    ['httpconnect-https-no-cert-error', one('cluster', 'HTTPConnect', { tcp: { url: 'https://127.0.0.1:8131' } }), ['service.connection.tlsConfig: Required value: TLSConfig must be present when using HTTPS']],
    [
      'httpconnect-tcp-uds-both-set',
      one('cluster', 'HTTPConnect', { tcp: { url: 'http://127.0.0.1:8131' }, uds: UDS }),
      ['service.connection.tcp: Invalid value: apiserver.TCPTransport{URL:"http://127.0.0.1:8131", TLSConfig:(*apiserver.TLSConfig)(nil)}: TCP and UDS cannot both be set'],
    ],
    ['httpconnect-uds', one('cluster', 'HTTPConnect', { uds: UDS }), []],
    ['grpc-https-invalid', one('cluster', 'GRPC', { tcp: { url: 'http://127.0.0.1:8131', tlsConfig: { caBundle: '', clientKey: '', clientCert: '' } } }), ['service.connection.uds: Required value: UDS must be set with GRPC']],
    ['grpc-uds', one('cluster', 'GRPC', { uds: UDS }), []],
    ['invalid egress selection name', one('invalid', 'Direct'), ['service.connection: Unsupported value: "invalid": supported values: "cluster", "controlplane", "etcd"']],
    [
      'duplicate egress selections configured',
      { egressSelections: [{ name: 'controlplane', proxyProtocol: 'Direct' }, { name: 'controlplane', proxyProtocol: 'Direct' }] },
      ['service.connection[1]: Duplicate value: "controlplane"'],
    ],
    ['an unknown protocol', one('cluster', 'SOCKS'), ['service.connection.protocol: Unsupported value: "SOCKS": supported values: "Direct", "HTTPConnect", "GRPC"']],
  ]
  for (const [name, config, errors] of cases) {
    it(`validation: ${name}`, () => assert.deepEqual(validateEgressSelectorConfiguration(config), errors))
  }

  it('validation: https needs the client certificate and key, and the files must exist', () => {
    const config = one('cluster', 'HTTPConnect', { tcp: { url: 'https://127.0.0.1:8131', tlsConfig: { caBundle: join(dir, 'ca.crt'), clientCert: '', clientKey: join(dir, 'client.key') } } })
    assert.deepEqual(validateEgressSelectorConfiguration(config), [
      `service.connection.tlsConfig.caBundle: Invalid value: "${join(dir, 'ca.crt')}": TLS config ca bundle does not exist`,
      'service.connection.tlsConfig.clientCert: Invalid value: "nil": Using TLS requires clientCert',
      `service.connection.tlsConfig.clientKey: Invalid value: "${join(dir, 'client.key')}": TLS client key does not exist`,
    ])
  })
})
