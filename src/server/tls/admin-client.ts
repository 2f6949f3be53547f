/**
 * The client certificate of the kubeconfig `--write-kubeconfig` writes: user `system:admin` in
 * group `system:masters`, signed by the CA of --cert-dir, kept beside it and reused while it is
 * fresh and signed by that CA. kubectl needs some identity in a kubeconfig or it prompts for
 * a user name; this one is also what client-certificate authentication will map to the
 * cluster administrator.
 */
import fs from 'node:fs'
import path from 'node:path'
import { CA_CERT_FILE, CA_KEY_FILE, RENEW_BEFORE_MS, writeFilesAtomic } from './cert-dir.js'
import { BACKDATE_MS, type KeyPair, SERVING_LIFETIME_MS, createLeafCertificate, generateKey, privateKeyPem } from './generate.js'
import { loadCertKeyPair, validity } from './pem.js'

const ADMIN_CERT_FILE = 'admin.crt'
const ADMIN_KEY_FILE = 'admin.key'
const ADMIN_USER = 'system:admin'
const ADMIN_GROUP = 'system:masters'

interface ClientPair {
  certPem: string
  keyPem: string
}

/** Whether `dir` holds no administrator certificate yet (so that its key can be generated early). */
export function adminClientCertMissing(dir: string): boolean {
  return !fs.existsSync(path.join(dir, ADMIN_CERT_FILE)) || !fs.existsSync(path.join(dir, ADMIN_KEY_FILE))
}

/**
 * `pendingKey`: a key generation started earlier (in parallel with the CA's and the serving
 * certificate's), used if a new certificate is needed.
 */
export async function ensureAdminClientCert(dir: string, now = new Date(), pendingKey?: Promise<KeyPair>): Promise<ClientPair> {
  const file = (name: string) => path.join(dir, name)
  const labels = (cert: string, key: string) => ({ option: '--cert-dir', cert: `--cert-dir ${cert}`, key: `--cert-dir ${key}` })
  const ca = loadCertKeyPair(file(CA_CERT_FILE), file(CA_KEY_FILE), labels(CA_CERT_FILE, CA_KEY_FILE))
  if (fs.existsSync(file(ADMIN_CERT_FILE)) && fs.existsSync(file(ADMIN_KEY_FILE))) {
    try {
      const pair = loadCertKeyPair(file(ADMIN_CERT_FILE), file(ADMIN_KEY_FILE), labels(ADMIN_CERT_FILE, ADMIN_KEY_FILE))
      const { notAfter } = validity(pair.leaf)
      if (pair.leaf.checkIssued(ca.leaf) && pair.leaf.verify(ca.leaf.publicKey) && now.getTime() + RENEW_BEFORE_MS < notAfter.getTime()) {
        return { certPem: fs.readFileSync(file(ADMIN_CERT_FILE), 'utf8'), keyPem: fs.readFileSync(file(ADMIN_KEY_FILE), 'utf8') }
      }
    } catch {
      // Unreadable or mismatched: replaced below.
    }
  }
  const key = await (pendingKey ?? generateKey('ecdsa'))
  const certPem = await createLeafCertificate({
    ca: { certPem: ca.leaf.toString(), privateKey: ca.key },
    publicKey: key.publicKey,
    commonName: ADMIN_USER,
    organizations: [ADMIN_GROUP],
    dns: [],
    ips: [],
    usage: 'client',
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(Math.min(now.getTime() + SERVING_LIFETIME_MS, validity(ca.leaf).notAfter.getTime())),
  })
  const keyPem = privateKeyPem(key.privateKey)
  await writeFilesAtomic([
    { file: file(ADMIN_KEY_FILE), data: keyPem, mode: 0o600 },
    { file: file(ADMIN_CERT_FILE), data: certPem, mode: 0o644 },
  ])
  return { certPem, keyPem }
}
