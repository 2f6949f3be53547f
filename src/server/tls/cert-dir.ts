/**
 * The self-signed serving certificate in --cert-dir: a CA (`ca.crt`, `ca.key`) and a serving
 * pair signed by it (`apiserver.crt` with the CA certificate concatenated after the leaf, as the
 * reference writes it, and `apiserver.key`). Files are reused as long as they are valid and
 * cover the needed names; otherwise only what is needed is generated again.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { KeyAuth } from './ciphers.js'
import { TlsConfigError, describeCause } from './errors.js'
import {
  BACKDATE_MS,
  CA_LIFETIME_MS,
  DAY_MS,
  SERVING_LIFETIME_MS,
  certificateNames,
  createCaCertificate,
  createLeafCertificate,
  generateKey,
  privateKeyPem,
  type KeyPair,
} from './generate.js'
import { canonicalIp, nameKey, type NeededNames } from './names.js'
import { keyAuth, loadCertKeyPair, validity, type FileLabels, type LoadedPair } from './pem.js'

export const CA_CERT_FILE = 'ca.crt'
export const CA_KEY_FILE = 'ca.key'
export const SERVING_CERT_FILE = 'apiserver.crt'
export const SERVING_KEY_FILE = 'apiserver.key'

/**
 * A certificate is reused only while it stays valid for at least this long, so that a restart
 * shortly before expiry gets a fresh one.
 */
export const RENEW_BEFORE_MS = DAY_MS

/** `$XDG_STATE_HOME/client/certs`, or `~/.local/state/client/certs` when XDG_STATE_HOME is unset or relative. */
export function defaultCertDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env['XDG_STATE_HOME']
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.local', 'state')
  return path.join(base, 'client', 'certs')
}

interface SelfSignedRequest {
  dir: string
  names: NeededNames
  /** Key types usable with the configured TLS 1.2 suites; undefined: any. */
  keyAuth?: ReadonlySet<KeyAuth>
  /** The key types of the --tls-sni-cert-key certificates (see generatedKeyType). */
  sniKeyTypes?: ReadonlySet<KeyAuth>
  /** The public host for the common names (advertise address, bind address or host name). */
  publicHost: string
  now: Date
}

interface SelfSignedResult {
  dir: string
  caCertFile: string
  caKeyFile: string
  certFile: string
  keyFile: string
  caCertPem: string
  serving: LoadedPair
  /** Which parts were written by this call. */
  created: { ca: boolean; serving: boolean }
  /** Why parts were (re)generated, for logs. */
  reasons: string[]
}

function labelsFor(dir: string, certName: string, keyName: string): FileLabels {
  return {
    cert: '--cert-dir',
    key: '--cert-dir',
    option: '--cert-dir',
    hint: `delete ${path.join(dir, certName)} and ${path.join(dir, keyName)} to have them generated again`,
  }
}

function exists(file: string): boolean {
  try {
    fs.statSync(file)
    return true
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw new TlsConfigError(`--cert-dir: cannot access ${file}: ${describeCause(err)}`, { option: '--cert-dir', file, cause: err })
  }
}

/** Creates the certificate directory (mode 0700) when missing. */
export function ensureCertDir(dir: string): string {
  const resolved = path.resolve(dir)
  try {
    fs.mkdirSync(resolved, { recursive: true, mode: 0o700 })
  } catch (err) {
    throw new TlsConfigError(`--cert-dir: cannot create ${resolved}: ${describeCause(err)}`, { option: '--cert-dir', file: resolved, cause: err })
  }
  if (!fs.statSync(resolved).isDirectory()) {
    throw new TlsConfigError(`--cert-dir: ${resolved} is not a directory`, { option: '--cert-dir', file: resolved })
  }
  return resolved
}

/**
 * Writes files through temporary files and renames, so that readers never see half a file; all
 * temporary files are written and synced before the first rename, which keeps the window in
 * which a crash leaves a certificate without its key as small as possible. The syncs run
 * together on libuv's thread pool (one journal commit rather than one per file on the event
 * loop), while the start-up goes on with other work.
 */
export async function writeFilesAtomic(files: ReadonlyArray<{ file: string; data: string; mode: number }>): Promise<void> {
  const written: Array<{ tmp: string; file: string }> = []
  const fail = (file: string, err: unknown): TlsConfigError => {
    for (const w of written) fs.rmSync(w.tmp, { force: true })
    return new TlsConfigError(`--cert-dir: cannot write ${file}: ${describeCause(err)}`, { option: '--cert-dir', file, cause: err })
  }
  const syncs: Array<Promise<unknown>> = []
  for (const { file, data, mode } of files) {
    const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`
    try {
      const fd = fs.openSync(tmp, 'wx', mode)
      written.push({ tmp, file })
      try {
        fs.writeSync(fd, data)
      } catch (err) {
        fs.closeSync(fd)
        throw err
      }
      syncs.push(syncAndClose(fd).catch((err: unknown) => Promise.reject(fail(file, err))))
    } catch (err) {
      await Promise.allSettled(syncs)
      throw fail(file, err)
    }
  }
  const synced = await Promise.allSettled(syncs)
  const failed = synced.find((r): r is PromiseRejectedResult => r.status === 'rejected')
  if (failed) throw failed.reason
  for (const { tmp, file } of written) {
    try {
      fs.renameSync(tmp, file)
    } catch (err) {
      throw fail(file, err)
    }
  }
}

/** fsync on the thread pool, then close (also when the sync fails). */
function syncAndClose(fd: number): Promise<void> {
  return new Promise((resolve, reject) => {
    fs.fsync(fd, (syncErr) => {
      fs.close(fd, (closeErr) => {
        const err = syncErr ?? closeErr
        if (err) reject(err)
        else resolve()
      })
    })
  })
}

/** Whether `cert` is valid at `now` and for at least RENEW_BEFORE_MS more. */
function freshEnough(cert: crypto.X509Certificate, now: Date): string | undefined {
  const { notBefore, notAfter } = validity(cert)
  if (now.getTime() < notBefore.getTime()) return `not valid before ${notBefore.toISOString()}`
  if (now.getTime() + RENEW_BEFORE_MS > notAfter.getTime()) {
    return now.getTime() >= notAfter.getTime() ? `expired on ${notAfter.toISOString()}` : `expires on ${notAfter.toISOString()}`
  }
  return undefined
}

/** Needed names the certificate lacks (compared on its SANs, canonical and lower case). */
async function missingNames(certPem: string, names: NeededNames): Promise<string[]> {
  const have = await certificateNames(certPem)
  const dns = new Set(have.dns.map(nameKey))
  const ips = new Set(have.ips.map((ip) => canonicalIp(ip) ?? ip))
  return [...names.dns.filter((n) => !dns.has(n)), ...names.ips.filter((ip) => !ips.has(ip))]
}

/**
 * The type of the keys generated for a new CA and serving pair: ECDSA P-256 whenever the TLS 1.2
 * suites allow an ECDSA serving key, which Go's default suites (the reference's) do and TLS 1.3
 * always does; RSA 2048 when the listed TLS 1.2 suites need an RSA key, and when a
 * --tls-sni-cert-key certificate has an RSA key: Node serves an SNI certificate only in place
 * of a default one of the same key type (nodejs/node#54235; a TLS 1.3 client would get the
 * default ECDSA one). The reference's self-signed certificates have RSA 2048 keys, but no
 * client asks for that with the default suites (k3s's serving listener,
 * rancher/dynamiclistener, and controller-runtime's envtest generate ECDSA P-256 ones for the
 * same API), and an RSA 2048 key costs 0.1-1 s of a core to generate (a median of 0.3 s on a
 * busy 2-core machine) where a P-256 one costs well under a millisecond: two of them were most
 * of a first start.
 */
export function generatedKeyType(allowed: ReadonlySet<KeyAuth> | undefined, sniKeyTypes?: ReadonlySet<KeyAuth>): KeyAuth {
  const rsaAllowed = !allowed || allowed.has('rsa')
  if (rsaAllowed && sniKeyTypes?.has('rsa')) return 'rsa'
  return !allowed || allowed.has('ecdsa') ? 'ecdsa' : 'rsa'
}

/** Loads or generates the CA and the serving pair in `dir`; see the file comment. */
export async function ensureSelfSigned(req: SelfSignedRequest): Promise<SelfSignedResult> {
  const dir = ensureCertDir(req.dir)
  const caCertFile = path.join(dir, CA_CERT_FILE)
  const caKeyFile = path.join(dir, CA_KEY_FILE)
  const certFile = path.join(dir, SERVING_CERT_FILE)
  const keyFile = path.join(dir, SERVING_KEY_FILE)
  const stamp = Math.floor(req.now.getTime() / 1000)
  const reasons: string[] = []

  // The CA.
  let ca: LoadedPair | undefined
  if (exists(caCertFile) && exists(caKeyFile)) {
    const loaded = loadCertKeyPair(caCertFile, caKeyFile, labelsFor(dir, CA_CERT_FILE, CA_KEY_FILE))
    if (!loaded.leaf.ca) {
      throw new TlsConfigError(
        `--cert-dir: ${caCertFile} is not a CA certificate (delete ${caCertFile} and ${caKeyFile} to have a CA generated)`,
        { option: '--cert-dir', file: caCertFile },
      )
    }
    const stale = freshEnough(loaded.leaf, req.now)
    if (stale) reasons.push(`CA certificate ${caCertFile} ${stale}`)
    else ca = loaded
  } else {
    reasons.push(`no CA in ${dir}`)
  }
  const servingKeyType = generatedKeyType(req.keyAuth, req.sniKeyTypes)
  let caCreated = false
  let servingKey: Promise<KeyPair> | undefined
  if (!ca) {
    // A new CA means a new serving pair too: make both keys at once.
    servingKey = generateKey(servingKeyType)
    servingKey.catch(() => {})
    const key = await generateKey(servingKeyType)
    const certPem = await createCaCertificate({
      key,
      commonName: `${req.publicHost}-ca@${stamp}`,
      notBefore: new Date(req.now.getTime() - BACKDATE_MS),
      notAfter: new Date(req.now.getTime() + CA_LIFETIME_MS),
    })
    await writeFilesAtomic([
      { file: caKeyFile, data: privateKeyPem(key.privateKey), mode: 0o600 },
      { file: caCertFile, data: certPem, mode: 0o644 },
    ])
    ca = loadCertKeyPair(caCertFile, caKeyFile, labelsFor(dir, CA_CERT_FILE, CA_KEY_FILE))
    caCreated = true
  }

  // The serving pair.
  let serving: LoadedPair | undefined
  if (!caCreated) {
    if (exists(certFile) && exists(keyFile)) {
      const loaded = loadCertKeyPair(certFile, keyFile, labelsFor(dir, SERVING_CERT_FILE, SERVING_KEY_FILE))
      const stale = freshEnough(loaded.leaf, req.now)
      const auth = keyAuth(loaded.key)
      if (!loaded.leaf.checkIssued(ca.leaf) || !loaded.leaf.verify(ca.leaf.publicKey)) {
        reasons.push(`${certFile} is not signed by ${caCertFile}`)
      } else if (stale) {
        reasons.push(`serving certificate ${certFile} ${stale}`)
      } else if (req.keyAuth && (!auth || !req.keyAuth.has(auth))) {
        reasons.push(`the key of ${certFile} cannot be used with the TLS 1.2 suites of --tls-cipher-suites`)
      } else if (req.sniKeyTypes && req.sniKeyTypes.size > 0 && auth !== servingKeyType) {
        reasons.push(`the key of ${certFile} is not of the type of the --tls-sni-cert-key certificates' (${servingKeyType === 'rsa' ? 'RSA' : 'ECDSA'}): the TLS library would serve it in their place`)
      } else {
        const missing = await missingNames(loaded.leaf.toString(), req.names)
        if (missing.length > 0) reasons.push(`serving certificate ${certFile} does not cover ${missing.join(', ')}`)
        else serving = loaded
      }
    } else {
      reasons.push(`no serving certificate in ${dir}`)
    }
  }
  let servingCreated = false
  if (!serving) {
    const key = await (servingKey ?? generateKey(servingKeyType))
    const caNotAfter = validity(ca.leaf).notAfter.getTime()
    const leafPem = await createLeafCertificate({
      ca: { certPem: ca.leaf.toString(), privateKey: ca.key },
      publicKey: key.publicKey,
      commonName: `${req.publicHost}@${stamp}`,
      dns: req.names.dns,
      ips: req.names.ips,
      notBefore: new Date(req.now.getTime() - BACKDATE_MS),
      notAfter: new Date(Math.min(req.now.getTime() + SERVING_LIFETIME_MS, caNotAfter)),
    })
    await writeFilesAtomic([
      { file: keyFile, data: privateKeyPem(key.privateKey), mode: 0o600 },
      { file: certFile, data: leafPem + ca.certPem, mode: 0o644 },
    ])
    serving = loadCertKeyPair(certFile, keyFile, labelsFor(dir, SERVING_CERT_FILE, SERVING_KEY_FILE))
    servingCreated = true
  }

  return {
    dir,
    caCertFile,
    caKeyFile,
    certFile,
    keyFile,
    caCertPem: ca.certPem,
    serving,
    created: { ca: caCreated, serving: servingCreated },
    reasons,
  }
}
