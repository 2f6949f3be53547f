/** Shared fixtures for the client connection tests: temp files, kubeconfigs, certificates. */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { DAY_MS, HOUR_MS, createLeafCertificate, generateKey, privateKeyPem } from '../../../src/server/tls/generate.js'
import { type TestCa, type TestLeaf, makeCa, makeLeaf } from '../../server/tls/helpers.js'

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/client')

const made: string[] = []

export function tmpDir(prefix = 'client-conn-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  made.push(dir)
  return dir
}

export function removeTmpDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
}

export function write(dir: string, name: string, content: string | Buffer): string {
  const file = path.join(dir, name)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, content)
  return file
}

/** An environment with no KUBECONFIG and an empty HOME, so the real ~/.kube/config is never read. */
export function isolatedEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { HOME: tmpDir('client-home-'), ...extra }
}

export interface Pki {
  ca: TestCa
  /** Serving certificate for 127.0.0.1 and localhost. */
  server: TestLeaf
  /** Serving certificate naming only api.example.test (no IP SAN). */
  named: TestLeaf
  /** A CA that signed nothing the servers use. */
  otherCa: TestCa
  clientCa: TestCa
  /** Client certificate, CN=admin, signed by clientCa. */
  client: TestLeaf
  /** A second client key pair, for mismatch checks. */
  stranger: TestLeaf
}

let pki: Promise<Pki> | undefined

/** Certificates for the tests, generated once per run. */
export function testPki(): Promise<Pki> {
  pki ??= (async () => {
    const ca = await makeCa('client-test-ca')
    const otherCa = await makeCa('unrelated-ca')
    const clientCa = await makeCa('client-test-client-ca')
    return {
      ca,
      otherCa,
      clientCa,
      server: await makeLeaf(ca, { cn: '127.0.0.1', ips: ['127.0.0.1'], dns: ['localhost'] }),
      named: await makeLeaf(ca, { cn: 'api.example.test', dns: ['api.example.test'] }),
      client: await makeClientLeaf(clientCa, 'admin'),
      stranger: await makeClientLeaf(clientCa, 'stranger'),
    }
  })()
  return pki
}

/** A client-authentication certificate (extended key usage clientAuth). */
async function makeClientLeaf(ca: TestCa, cn: string): Promise<TestLeaf> {
  const key = await generateKey('ecdsa')
  const now = Date.now()
  const certPem = await createLeafCertificate({
    ca: { certPem: ca.certPem, privateKey: ca.key.privateKey },
    publicKey: key.publicKey,
    commonName: cn,
    dns: [],
    ips: [],
    notBefore: new Date(now - HOUR_MS),
    notAfter: new Date(now + DAY_MS),
    usage: 'client',
  })
  return { certPem, keyPem: privateKeyPem(key.privateKey) }
}

/** Kubeconfig text from a plain object (JSON is valid YAML). */
export function kubeconfigText(config: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'Config', ...config }, null, 2)
}
