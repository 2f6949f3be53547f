/**
 * The files that the server options name, written for one test into a temporary directory:
 * certificates and keys (a serving CA and a client CA, each signing what the options need), the
 * token file, and the configuration files in the formats the reference documents for each
 * option. The endpoints they point at (an HTTP sink, an OpenID issuer, a free port for traces)
 * are the test's, all on 127.0.0.1.
 */
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DAY_MS, HOUR_MS, createCaCertificate, createLeafCertificate, generateKey, privateKeyPem, type KeyPair } from '../../src/server/tls/generate.js'
import type { ClientCredentials } from './api-server.js'

/** Where the files point: endpoints the test runs (or, for traces, a port nothing answers on). */
export interface OptionEndpoints {
  /** An HTTP server answering every POST with 200 `{}` (webhook kubeconfigs name it). */
  sinkUrl: string
  /** An OpenID Connect issuer (discovery and keys) and the CA of its serving certificate. */
  oidcIssuerUrl: string
  oidcCaPem: string
  /** host:port of the OTLP receiver the tracing configuration names. */
  tracingEndpoint: string
}

export interface OptionFiles {
  dir: string
  endpoints: OptionEndpoints
  /** The CA that signs the serving, SNI, node agent and peer certificates. */
  servingCa: string
  servingCert: string
  servingKey: string
  /** A second serving pair, for --tls-sni-cert-key under the name SNI_NAME. */
  sniCert: string
  sniKey: string
  /** The CA of --client-ca-file and a system:masters certificate it signed, for the test's own requests. */
  clientCa: string
  admin: ClientCredentials
  /** The front proxy's CA (--requestheader-client-ca-file) and the aggregator's client pair it signed. */
  frontProxyCa: string
  proxyClientCert: string
  proxyClientKey: string
  /** The client pair the server presents to node agents. */
  nodeAgentClientCert: string
  nodeAgentClientKey: string
  oidcCa: string
  tokenFile: string
  serviceAccountKey: string
  serviceAccountPublicKey: string
  admissionConfig: string
  auditPolicy: string
  auditLog: string
  auditWebhookKubeconfig: string
  authenticationConfig: string
  authenticationWebhookKubeconfig: string
  authorizationConfig: string
  authorizationPolicy: string
  authorizationWebhookKubeconfig: string
  encryptionConfig: string
  egressSelectorConfig: string
  tracingConfig: string
  metricLabelsManifest: string
  debugSocket: string
  /** Where --service-account-signing-endpoint points (see the table for what listens there). */
  signingEndpoint: string
}

export const SNI_NAME = 'sni.every-option.test'

interface Ca {
  certPem: string
  key: KeyPair
}

async function makeCa(commonName: string): Promise<Ca> {
  const key = await generateKey('ecdsa')
  const now = Date.now()
  return { certPem: await createCaCertificate({ key, commonName, notBefore: new Date(now - HOUR_MS), notAfter: new Date(now + DAY_MS) }), key }
}

async function makeLeaf(ca: Ca, commonName: string, names: { dns?: string[]; ips?: string[]; groups?: string[]; usage: 'server' | 'client' }): Promise<ClientCredentials> {
  const key = await generateKey('ecdsa')
  const now = Date.now()
  const cert = await createLeafCertificate({
    ca: { certPem: ca.certPem, privateKey: ca.key.privateKey },
    publicKey: key.publicKey,
    commonName,
    dns: names.dns ?? [],
    ips: names.ips ?? [],
    organizations: names.groups ?? [],
    usage: names.usage,
    notBefore: new Date(now - HOUR_MS),
    notAfter: new Date(now + DAY_MS),
  })
  return { cert, key: privateKeyPem(key.privateKey) }
}

/** A kubeconfig naming `server` with no credentials (the reference's webhook configuration format). */
function webhookKubeconfig(server: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: webhook',
    '  cluster:',
    `    server: ${server}`,
    'users:',
    '- name: apiserver',
    '  user: {}',
    'contexts:',
    '- name: webhook',
    '  context: {cluster: webhook, user: apiserver}',
    'current-context: webhook',
    '',
  ].join('\n')
}

const indent = (text: string, spaces: number) =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => `${' '.repeat(spaces)}${line}`)
    .join('\n')

export async function writeOptionFiles(dir: string, endpoints: OptionEndpoints): Promise<OptionFiles> {
  const file = (name: string, text: string, mode = 0o644) => {
    const path = join(dir, name)
    writeFileSync(path, text, { mode })
    return path
  }
  const servingCa = await makeCa('every-option-serving-ca')
  const clientCa = await makeCa('every-option-client-ca')
  const frontProxyCa = await makeCa('every-option-front-proxy-ca')
  const serving = await makeLeaf(servingCa, 'every-option-server', { dns: ['localhost'], ips: ['127.0.0.1'], usage: 'server' })
  const sni = await makeLeaf(servingCa, SNI_NAME, { dns: [SNI_NAME], usage: 'server' })
  const admin = await makeLeaf(clientCa, 'every-option-admin', { groups: ['system:masters'], usage: 'client' })
  const proxyClient = await makeLeaf(frontProxyCa, 'front-proxy-client', { usage: 'client' })
  const nodeAgentClient = await makeLeaf(servingCa, 'every-option-nodeagent-client', { groups: ['system:masters'], usage: 'client' })
  const serviceAccount = await generateKey('rsa')

  return {
    dir,
    endpoints,
    servingCa: file('serving-ca.crt', servingCa.certPem),
    servingCert: file('serving.crt', serving.cert),
    servingKey: file('serving.key', serving.key, 0o600),
    sniCert: file('sni.crt', sni.cert),
    sniKey: file('sni.key', sni.key, 0o600),
    clientCa: file('client-ca.crt', clientCa.certPem),
    admin,
    frontProxyCa: file('front-proxy-ca.crt', frontProxyCa.certPem),
    proxyClientCert: file('proxy-client.crt', proxyClient.cert),
    proxyClientKey: file('proxy-client.key', proxyClient.key, 0o600),
    nodeAgentClientCert: file('nodeagent-client.crt', nodeAgentClient.cert),
    nodeAgentClientKey: file('nodeagent-client.key', nodeAgentClient.key, 0o600),
    oidcCa: file('oidc-ca.crt', endpoints.oidcCaPem),
    // token,user,uid,"group1,group2" (the reference's static token file).
    tokenFile: file('tokens.csv', 'every-option-token,every-option-user,1001,"every-option:readers,every-option:viewers"\n', 0o600),
    serviceAccountKey: file('sa.key', privateKeyPem(serviceAccount.privateKey), 0o600),
    serviceAccountPublicKey: file('sa.pub', serviceAccount.publicKey.export({ type: 'spki', format: 'pem' }).toString()),
    admissionConfig: file(
      'admission.yaml',
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: AdmissionConfiguration',
        'plugins:',
        '- name: PodSecurity',
        '  configuration:',
        '    apiVersion: pod-security.admission.config.k8s.io/v1',
        '    kind: PodSecurityConfiguration',
        '    defaults:',
        '      enforce: baseline',
        '      enforce-version: latest',
        '      audit: restricted',
        '      audit-version: latest',
        '      warn: restricted',
        '      warn-version: latest',
        '    exemptions:',
        '      usernames: []',
        '      runtimeClasses: []',
        '      namespaces: [kube-system]',
        '',
      ].join('\n'),
    ),
    auditPolicy: file('audit-policy.yaml', ['apiVersion: audit.k8s.io/v1', 'kind: Policy', 'omitStages: [RequestReceived]', 'rules:', '- level: Metadata', ''].join('\n')),
    auditLog: join(dir, 'audit.log'),
    auditWebhookKubeconfig: file('audit-webhook.kubeconfig', webhookKubeconfig(`${endpoints.sinkUrl}/audit`)),
    authenticationConfig: file(
      'authentication.yaml',
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: AuthenticationConfiguration',
        'jwt:',
        '- issuer:',
        `    url: ${endpoints.oidcIssuerUrl}`,
        '    certificateAuthority: |',
        indent(endpoints.oidcCaPem, 6),
        '    audiences: [every-option]',
        '  claimMappings:',
        '    username:',
        '      claim: sub',
        '      prefix: "jwt:"',
        '',
      ].join('\n'),
    ),
    authenticationWebhookKubeconfig: file('authentication-webhook.kubeconfig', webhookKubeconfig(`${endpoints.sinkUrl}/authenticate`)),
    authorizationConfig: file(
      'authorization.yaml',
      ['apiVersion: apiserver.config.k8s.io/v1', 'kind: AuthorizationConfiguration', 'authorizers:', '- type: Node', '  name: node', '- type: RBAC', '  name: rbac', ''].join('\n'),
    ),
    // One policy object a line (the reference's ABAC policy file).
    authorizationPolicy: file(
      'abac-policy.jsonl',
      `${JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec: { user: 'every-option-user', namespace: '*', resource: '*', apiGroup: '*', readonly: true } })}\n`,
    ),
    authorizationWebhookKubeconfig: file('authorization-webhook.kubeconfig', webhookKubeconfig(`${endpoints.sinkUrl}/authorize`)),
    encryptionConfig: file(
      'encryption.yaml',
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: EncryptionConfiguration',
        'resources:',
        '- resources: [secrets]',
        '  providers:',
        '  - aescbc:',
        '      keys:',
        '      - name: key1',
        `        secret: ${randomBytes(32).toString('base64')}`,
        '  - identity: {}',
        '',
      ].join('\n'),
      0o600,
    ),
    egressSelectorConfig: file(
      'egress-selector.yaml',
      ['apiVersion: apiserver.k8s.io/v1beta1', 'kind: EgressSelectorConfiguration', 'egressSelections:', '- name: cluster', '  connection:', '    proxyProtocol: Direct', ''].join('\n'),
    ),
    tracingConfig: file(
      'tracing.yaml',
      ['apiVersion: apiserver.config.k8s.io/v1', 'kind: TracingConfiguration', `endpoint: ${endpoints.tracingEndpoint}`, 'samplingRatePerMillion: 0', ''].join('\n'),
    ),
    // The same mapping as --allow-metric-labels: "<metric>,<label>": "<value>,<value>".
    metricLabelsManifest: file('metric-labels.yaml', '"apiserver_request_total,code": "200,201,404"\n'),
    debugSocket: join(dir, 'debug.sock'),
    signingEndpoint: join(dir, 'signer.sock'),
  }
}
