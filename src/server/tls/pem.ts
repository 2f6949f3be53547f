/** Reading PEM certificate chains and private keys with errors that name the file and the problem. */
import crypto from 'node:crypto'
import fs from 'node:fs'
import { TlsConfigError, describeCause } from './errors.js'

/** How a file is called in messages: the option it came from and an optional remedy. */
export interface FileLabels {
  /** e.g. `--tls-cert-file`. */
  cert: string
  /** e.g. `--tls-private-key-file`. */
  key: string
  /** The option for TlsConfigError.option. */
  option: string
  /** Appended to messages, e.g. how to get the files generated again. */
  hint?: string
}

interface PemBlock {
  type: string
  text: string
}

export interface LoadedPair {
  certFile: string
  keyFile: string
  /** The certificates of the file, leaf first, as PEM with `\n` line ends. */
  certPem: string
  /** The private key block as PEM. */
  keyPem: string
  leaf: crypto.X509Certificate
  chain: crypto.X509Certificate[]
  key: crypto.KeyObject
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g

/** The PEM blocks of a text, in order, with normalized line ends. */
function pemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = []
  for (const match of text.matchAll(PEM_BLOCK)) {
    const type = match[1]!
    const body = match[2]!.replace(/\r\n/g, '\n')
    blocks.push({ type, text: `-----BEGIN ${type}-----\n${body}${body.endsWith('\n') ? '' : '\n'}-----END ${type}-----\n` })
  }
  return blocks
}

function suffix(labels: FileLabels): string {
  return labels.hint ? ` (${labels.hint})` : ''
}

/** Reads a file as text, or throws a TlsConfigError naming it. */
function readFileText(file: string, label: string, labels: FileLabels): string {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch (err) {
    throw new TlsConfigError(`${label}: cannot read ${file}: ${describeCause(err)}${suffix(labels)}`, {
      option: labels.option,
      file,
      cause: err,
    })
  }
}

/** Parses a PEM certificate file (leaf first, chain after it). */
function parseCertificates(text: string, file: string, label: string, labels: FileLabels): { pem: string; certs: crypto.X509Certificate[] } {
  const blocks = pemBlocks(text)
  const certBlocks = blocks.filter((b) => b.type === 'CERTIFICATE')
  const fail = (problem: string, cause?: unknown): TlsConfigError =>
    new TlsConfigError(`${label}: cannot parse certificate in ${file}: ${problem}${suffix(labels)}`, { option: labels.option, file, cause })
  if (certBlocks.length === 0) {
    if (blocks.some((b) => b.type.endsWith('PRIVATE KEY'))) {
      throw fail('found a private key but no certificate (were the certificate and key files switched?)')
    }
    throw fail(text.trim() === '' ? 'the file is empty' : 'no PEM "CERTIFICATE" block found')
  }
  const certs = certBlocks.map((block, i) => {
    try {
      return new crypto.X509Certificate(block.text)
    } catch (err) {
      throw fail(`${certBlocks.length > 1 ? `certificate #${i + 1}: ` : ''}${describeCause(err)}`, err)
    }
  })
  return { pem: certBlocks.map((b) => b.text).join(''), certs }
}

/** Parses the first private key of a PEM file (other blocks are skipped, like Go's X509KeyPair). */
function parsePrivateKey(text: string, file: string, label: string, labels: FileLabels): { pem: string; key: crypto.KeyObject } {
  const blocks = pemBlocks(text)
  const fail = (problem: string, cause?: unknown): TlsConfigError =>
    new TlsConfigError(`${label}: cannot parse private key in ${file}: ${problem}${suffix(labels)}`, { option: labels.option, file, cause })
  const block = blocks.find((b) => b.type === 'PRIVATE KEY' || b.type.endsWith(' PRIVATE KEY'))
  if (!block) {
    if (blocks.some((b) => b.type === 'CERTIFICATE')) {
      throw fail('found a certificate rather than a private key (were the certificate and key files switched?)')
    }
    throw fail(text.trim() === '' ? 'the file is empty' : 'no PEM private key block found')
  }
  if (block.type === 'ENCRYPTED PRIVATE KEY' || /^Proc-Type:\s*4,\s*ENCRYPTED/m.test(block.text)) {
    throw fail('the key is encrypted; only unencrypted keys are supported')
  }
  try {
    return { pem: block.text, key: crypto.createPrivateKey({ key: block.text, format: 'pem' }) }
  } catch (err) {
    const cause = describeCause(err)
    throw fail(/^unsupported\b/.test(cause) ? `not a valid or supported private key: ${cause}` : cause, err)
  }
}

/**
 * Loads a certificate file (leaf first, CA chain optionally concatenated after it) and its
 * private key, and checks that the key belongs to the leaf.
 */
export function loadCertKeyPair(certFile: string, keyFile: string, labels: FileLabels): LoadedPair {
  const certText = readFileText(certFile, labels.cert, labels)
  const keyText = readFileText(keyFile, labels.key, labels)
  const { pem: certPem, certs } = parseCertificates(certText, certFile, labels.cert, labels)
  const { pem: keyPem, key } = parsePrivateKey(keyText, keyFile, labels.key, labels)
  const leaf = certs[0]!
  if (!leaf.checkPrivateKey(key)) {
    const other = certs.findIndex((c, i) => i > 0 && c.checkPrivateKey(key))
    const detail = other > 0
      ? `: the key belongs to certificate #${other + 1} of the file, but the serving (leaf) certificate must come first`
      : ''
    throw new TlsConfigError(`${labels.key} ${keyFile} does not match ${labels.cert} ${certFile}${detail}${suffix(labels)}`, {
      option: labels.option,
      file: keyFile,
    })
  }
  return { certFile, keyFile, certPem, keyPem, leaf, chain: certs, key }
}

/** Validity period of a certificate as dates. */
export function validity(cert: crypto.X509Certificate): { notBefore: Date; notAfter: Date } {
  return { notBefore: new Date(cert.validFrom), notAfter: new Date(cert.validTo) }
}

/** A warning text when `cert` is not valid at `now`, else undefined. */
export function validityProblem(cert: crypto.X509Certificate, now: Date): string | undefined {
  const { notBefore, notAfter } = validity(cert)
  if (now.getTime() < notBefore.getTime()) return `is not valid before ${notBefore.toISOString()}`
  if (now.getTime() >= notAfter.getTime()) return `expired on ${notAfter.toISOString()}`
  return undefined
}

/** The TLS 1.2 authentication a key can do: `rsa` for ECDHE_RSA/RSA suites, `ecdsa` for ECDHE_ECDSA suites. */
export function keyAuth(key: crypto.KeyObject): 'rsa' | 'ecdsa' | undefined {
  switch (key.asymmetricKeyType) {
    case 'rsa':
    case 'rsa-pss':
      return 'rsa'
    case 'ec':
    case 'ed25519':
    case 'ed448':
      return 'ecdsa'
    default:
      return undefined
  }
}

/** `RSA 2048`, `EC prime256v1`, ... for messages. */
export function describeKey(key: crypto.KeyObject): string {
  const details = key.asymmetricKeyDetails
  switch (key.asymmetricKeyType) {
    case 'rsa':
    case 'rsa-pss':
      return `${key.asymmetricKeyType.toUpperCase()}${details?.modulusLength ? ` ${details.modulusLength}` : ''}`
    case 'ec':
      return `EC${details?.namedCurve ? ` ${details.namedCurve}` : ''}`
    default:
      return String(key.asymmetricKeyType ?? 'unknown').toUpperCase()
  }
}
