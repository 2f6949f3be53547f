/** Credentials for the authentication tests: CAs, client certificates, kubeconfigs, kubectl runs. */
import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DAY_MS, HOUR_MS, createCaCertificate, createLeafCertificate, generateKey, privateKeyPem, type KeyPair } from '../../../src/server/tls/generate.js'
import { KUBECTL } from '../../support/kubectl-session.js'

export interface TestCa {
  certPem: string
  key: KeyPair
}

export async function makeCa(commonName: string): Promise<TestCa> {
  const key = await generateKey('ecdsa')
  const now = Date.now()
  return { certPem: await createCaCertificate({ key, commonName, notBefore: new Date(now - HOUR_MS), notAfter: new Date(now + 30 * DAY_MS) }), key }
}

export interface ClientCert {
  cert: string
  key: string
}

/** A certificate for `cn` in `groups` signed by `ca` (client usage unless told otherwise). */
export async function makeClientCert(
  ca: TestCa,
  cn: string,
  groups: string[] = [],
  opts: { usage?: 'client' | 'server'; notBefore?: Date; notAfter?: Date } = {},
): Promise<ClientCert> {
  const key = await generateKey('ecdsa')
  const now = Date.now()
  const cert = await createLeafCertificate({
    ca: { certPem: ca.certPem, privateKey: ca.key.privateKey },
    publicKey: key.publicKey,
    commonName: cn,
    organizations: groups,
    dns: [],
    ips: [],
    usage: opts.usage ?? 'client',
    notBefore: opts.notBefore ?? new Date(now - HOUR_MS),
    notAfter: opts.notAfter ?? new Date(now + DAY_MS),
  })
  return { cert, key: privateKeyPem(key.privateKey) }
}

export type KubeUser = { token: string } | ClientCert

/** A kubeconfig for the server at `port` as `user` (server certificate not checked). */
export function writeKubeconfig(dir: string, name: string, port: number, user: KubeUser): string {
  const b64 = (text: string) => Buffer.from(text).toString('base64')
  const userYaml = 'token' in user ? `{token: "${user.token}"}` : `{client-certificate-data: ${b64(user.cert)}, client-key-data: ${b64(user.key)}}`
  const file = join(dir, name)
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: c, cluster: {server: "https://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]`,
      `users: [{name: u, user: ${userYaml}}]`,
      'contexts: [{name: c, context: {cluster: c, user: u, namespace: default}}]',
      'current-context: c',
      '',
    ].join('\n'),
  )
  return file
}

export interface KubectlRun {
  code: number
  stdout: string
  stderr: string
}

export function kubectl(kubeconfig: string, home: string, ...args: string[]): Promise<KubectlRun> {
  return new Promise((resolve) => {
    execFile(KUBECTL, [`--kubeconfig=${kubeconfig}`, `--cache-dir=${join(home, 'cache')}`, ...args], { timeout: 30_000, env: { ...process.env, HOME: home } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

/** `kubectl auth whoami -o json` as `user`: the userInfo, or the failure. */
export async function whoami(dir: string, port: number, user: KubeUser, label = 'u'): Promise<{ userInfo?: Record<string, unknown>; run: KubectlRun }> {
  const kubeconfig = writeKubeconfig(dir, `kubeconfig-${label}-${Math.random().toString(36).slice(2)}`, port, user)
  const run = await kubectl(kubeconfig, dir, 'auth', 'whoami', '-o', 'json')
  if (run.code !== 0) return { run }
  return { userInfo: (JSON.parse(run.stdout) as { status: { userInfo: Record<string, unknown> } }).status.userInfo, run }
}
