/**
 * The keys of the service-account token issuer. With --service-account-signing-key-file the
 * issuer signs with that key; without it the server generates an ECDSA P-256 key in --cert-dir
 * (`sa.key`, kept across restarts, written completely before the server listens), so that
 * `kubectl create token` works with no flags. Tokens are verified with the keys of
 * --service-account-key-file and the signing key's public half.
 */
import { type KeyObject, createPrivateKey, createPublicKey } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensureCertDir, writeFilesAtomic } from '../tls/cert-dir.js'
import { generateKey, privateKeyPem } from '../tls/generate.js'
import { keyId, publicKeysFromPEM } from '../paths/service-account-issuer.js'
import { AuthenticationConfigError, lineAt } from './authenticator.js'
import { type ExternalSigning, setUpExternalSigner } from './externaljwt/plugin.js'

export const SERVICE_ACCOUNT_KEY_FILE = 'sa.key'
export const SERVICE_ACCOUNT_PUBLIC_KEY_FILE = 'sa.pub'

export interface SigningKey {
  /** The file it was read from (given or generated). */
  file: string
  privateKey: KeyObject
  publicKey: KeyObject
  /** The JWS algorithm: RS256, or ES256/384/512 by curve. */
  alg: string
  kid: string
}

export interface VerificationKey {
  key: KeyObject
  kid: string
}

/** Where the keys that verify a token come from: a fixed list, or a lookup by key id. */
export type VerificationKeys = readonly VerificationKey[] | ((kid: string | undefined) => Promise<readonly VerificationKey[]>)

const EC_ALGS: Record<string, string> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' }

export function algorithmOf(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256'
  const curve = key.asymmetricKeyDetails?.namedCurve ?? ''
  const alg = EC_ALGS[curve]
  if (key.asymmetricKeyType === 'ec' && alg) return alg
  throw new Error(`unsupported key type ${key.asymmetricKeyType ?? '?'}${curve ? ` (${curve})` : ''}: RSA or ECDSA P-256/P-384/P-521 keys are supported`)
}

function readText(file: string, option: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    const why = e.code === 'ENOENT' ? 'no such file or directory' : e.code === 'EACCES' ? 'permission denied' : e.message
    throw new AuthenticationConfigError(`${option}: failed to read ${file}: open ${file}: ${why}`)
  }
}

/** The first private key of a PEM file, as the reference's keyutil.PrivateKeyFromFile. */
export function readSigningKey(file: string, option = '--service-account-signing-key-file'): SigningKey {
  const text = readText(file, option)
  const match = /-----BEGIN ((?:RSA |EC )?PRIVATE KEY)-----\r?\n[\s\S]*?-----END \1-----/.exec(text)
  if (!match) throw new AuthenticationConfigError(`${option}: failed to parse private key from ${file}: data does not contain a valid RSA or ECDSA private key`)
  let privateKey: KeyObject
  try {
    privateKey = createPrivateKey(match[0])
  } catch (err) {
    throw new AuthenticationConfigError(`${option}: failed to parse private key from ${file}: line ${lineAt(text, match.index)}: ${(err as Error).message}`)
  }
  const publicKey = createPublicKey(privateKey)
  let alg: string
  try {
    alg = algorithmOf(publicKey)
  } catch (err) {
    throw new AuthenticationConfigError(`${option}: ${file}: ${(err as Error).message}`)
  }
  return { file, privateKey, publicKey, alg, kid: keyId(publicKey) }
}

/** Every RSA or ECDSA key of the files (public, private or a certificate's). */
export function readVerificationKeys(files: readonly string[]): VerificationKey[] {
  const keys: VerificationKey[] = []
  for (const file of files) {
    const found = publicKeysFromPEM(readText(file, '--service-account-key-file'))
    if (found.length === 0) throw new AuthenticationConfigError(`--service-account-key-file: error reading public key file ${file}: data does not contain any valid RSA or ECDSA public keys`)
    for (const key of found) keys.push({ key, kid: keyId(key) })
  }
  return keys
}

/** The signing key of --cert-dir, generated when absent or unreadable. */
export async function ensureGeneratedSigningKey(certDir: string): Promise<SigningKey> {
  ensureCertDir(certDir)
  const file = join(certDir, SERVICE_ACCOUNT_KEY_FILE)
  if (existsSync(file)) {
    try {
      return readSigningKey(file, '--cert-dir')
    } catch {
      // Unreadable or not a key: replaced below.
    }
  }
  // ECDSA P-256 (ES256): generated in a millisecond, where RSA takes long on a busy machine.
  const { privateKey, publicKey } = await generateKey('ecdsa')
  await writeFilesAtomic([
    { file, data: privateKeyPem(privateKey), mode: 0o600 },
    { file: join(certDir, SERVICE_ACCOUNT_PUBLIC_KEY_FILE), data: publicKey.export({ type: 'spki', format: 'pem' }).toString(), mode: 0o644 },
  ])
  return { file, privateKey, publicKey, alg: 'ES256', kid: keyId(publicKey) }
}

export interface ServiceAccountKeys {
  /** The key tokens are signed with here; undefined when an external signer signs them. */
  signing?: SigningKey
  /** --service-account-signing-endpoint: the external signer and its key cache. */
  external?: ExternalSigning
  verification: VerificationKeys
  /** The files whose keys the issuer's JWKS publishes. */
  publishedFiles: string[]
  /** Whether the signing key was generated in --cert-dir. */
  generated: boolean
}

/** The signing key (given or generated) and every verification key, the signing key's included. */
export async function loadServiceAccountKeys(options: { signingKeyFile?: string; keyFiles: readonly string[]; certDir: string }): Promise<ServiceAccountKeys> {
  const signing = options.signingKeyFile ? readSigningKey(options.signingKeyFile) : await ensureGeneratedSigningKey(options.certDir)
  const verification = readVerificationKeys(options.keyFiles)
  if (!verification.some((k) => k.kid === signing.kid)) verification.push({ key: signing.publicKey, kid: signing.kid })
  return {
    signing,
    verification,
    publishedFiles: [...options.keyFiles, ...(options.keyFiles.length === 0 ? [signing.file] : [])],
    generated: !options.signingKeyFile,
  }
}

/**
 * The keys of --service-account-signing-endpoint: the external signer signs, and its key cache
 * (every key, those excluded from discovery included) verifies.
 */
export async function externalServiceAccountKeys(socketPath: string, onError: (message: string) => void): Promise<ServiceAccountKeys> {
  let external: ExternalSigning
  try {
    external = await setUpExternalSigner(socketPath, onError)
  } catch (err) {
    throw new AuthenticationConfigError((err as Error).message)
  }
  const verification = async (kid: string | undefined) => (await external.keyCache.keysFor(kid)).map((k) => ({ key: k.key, kid: k.kid }))
  return { external, verification, publishedFiles: [], generated: false }
}
