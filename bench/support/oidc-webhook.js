// For the authentication benchmarks: an OIDC issuer (discovery and JWKS) and a token webhook,
// HTTPS servers in this process with a CA made for the run, the --authentication-config and
// webhook kubeconfig files that point at them, an ID token and a webhook token.
import { writeFileSync } from 'node:fs'
import { createServer } from 'node:https'
import { join } from 'node:path'
import { SignJWT, exportJWK, generateKeyPair } from 'jose'
import { createCaCertificate, createLeafCertificate, generateKey, privateKeyPem } from '../../dist/server/tls/generate.js'
import { freePort } from './net.js'

export const WEBHOOK_TOKEN = 'bench-webhook-token'

export async function startIssuerAndWebhook(dir) {
  const now = Date.now()
  const notBefore = new Date(now - 3_600_000)
  const notAfter = new Date(now + 86_400_000)
  const caKey = await generateKey('ecdsa')
  const caPem = await createCaCertificate({ key: caKey, commonName: 'bench-ca', notBefore, notAfter })
  const leafKey = await generateKey('ecdsa')
  const certPem = await createLeafCertificate({ ca: { certPem: caPem, privateKey: caKey.privateKey }, publicKey: leafKey.publicKey, commonName: 'bench', dns: ['localhost'], ips: ['127.0.0.1'], notBefore, notAfter })
  const tls = { cert: certPem, key: privateKeyPem(leafKey.privateKey) }
  const hits = { keys: 0, reviews: 0 }

  const { privateKey, publicKey } = await generateKeyPair('RS256')
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'RS256', use: 'sig' }
  const issuerPort = await freePort()
  const issuerUrl = `https://127.0.0.1:${issuerPort}`
  const issuer = createServer(tls, (req, res) => {
    res.setHeader('content-type', 'application/json')
    if (req.url === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer: issuerUrl, jwks_uri: `${issuerUrl}/keys` }))
    else if (req.url === '/keys') {
      hits.keys++
      res.end(JSON.stringify({ keys: [jwk] }))
    } else {
      res.statusCode = 404
      res.end('{}')
    }
  })
  await new Promise((resolve) => issuer.listen(issuerPort, '127.0.0.1', resolve))

  const webhookPort = await freePort()
  const webhook = createServer(tls, (req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      hits.reviews++
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      const ok = review.spec.token === WEBHOOK_TOKEN
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status: ok ? { authenticated: true, user: { username: 'hook', groups: ['g'] } } : { authenticated: false } }))
    })
  })
  await new Promise((resolve) => webhook.listen(webhookPort, '127.0.0.1', resolve))

  const configFile = join(dir, 'authentication-config.yaml')
  writeFileSync(
    configFile,
    `apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: ${issuerUrl}
    audiences: [bench]
    certificateAuthority: ${JSON.stringify(caPem)}
  claimValidationRules:
  - expression: "claims.tier == 'gold'"
    message: gold only
  claimMappings:
    username:
      expression: "'oidc:' + claims.sub"
    groups:
      expression: "claims.roles"
`,
  )
  const webhookConfig = join(dir, 'webhook.kubeconfig')
  writeFileSync(
    webhookConfig,
    `apiVersion: v1
kind: Config
clusters: [{name: w, cluster: {server: "https://127.0.0.1:${webhookPort}/", certificate-authority-data: ${Buffer.from(caPem).toString('base64')}}}]
users: [{name: u, user: {token: caller}}]
contexts: [{name: w, context: {cluster: w, user: u}}]
current-context: w
`,
  )
  const idToken = await new SignJWT({ iss: issuerUrl, aud: 'bench', sub: 'alice', tier: 'gold', roles: ['dev'] })
    .setProtectedHeader({ alg: 'RS256', kid: 'bench' })
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(privateKey)

  return {
    configFile,
    webhookConfig,
    idToken,
    hits,
    /** The server options that use them. */
    serverArgs: [`--authentication-config=${configFile}`, `--authentication-token-webhook-config-file=${webhookConfig}`, '--authentication-token-webhook-cache-ttl=1h'],
    close() {
      issuer.closeAllConnections()
      webhook.closeAllConnections()
      issuer.close()
      webhook.close()
    },
  }
}
