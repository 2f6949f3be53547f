/**
 * Value transformers with the reference's stored format (k8s.io/apiserver storage/value):
 * `k8s:enc:<provider>:v1:<key name>:` followed by the provider's bytes, so data written by
 * the reference's API server reads here and the other way round.
 *
 * - aescbc: 16-byte random IV + AES-CBC ciphertext with PKCS#7 padding.
 * - aesgcm: 12-byte random nonce + AES-GCM ciphertext + 16-byte tag; the additional data is
 *   the full store key (`/registry/secrets/ns/name`), so a value copied to another key fails.
 * - secretbox: 24-byte random nonce + NaCl secretbox (tag + ciphertext).
 * - identity: the bytes as they are; it refuses to read `k8s:enc:` data.
 */
import { type CipherGCMTypes, createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import nacl from 'tweetnacl'

/** One direction pair; `key` is the full store key, the data's authenticated context. */
export interface Transformer {
  toStorage(data: Buffer, key: string): Buffer
  fromStorage(data: Buffer, key: string): Buffer
}

/** A transformer recognised by the prefix it writes in front of its output. */
export interface PrefixTransformer {
  prefix: Buffer
  transformer: Transformer
}

/** Errors of reading stored data; the API turns them into a 500 InternalError. */
class TransformError extends Error {}

const SHORT = 'the stored data was shorter than the required size'
const AES_BLOCK = 16
const GCM_NONCE = 12
const GCM_TAG = 16
const SECRETBOX_NONCE = 24
const ENCRYPTED_PREFIX = 'k8s:enc:'

const cbcName = (key: Buffer) => `aes-${key.length * 8}-cbc` as string
const gcmName = (key: Buffer) => `aes-${key.length * 8}-gcm` as CipherGCMTypes

export function aesCbcTransformer(secret: Buffer): Transformer {
  const algorithm = cbcName(secret)
  return {
    toStorage(data) {
      const iv = randomBytes(AES_BLOCK)
      const cipher = createCipheriv(algorithm, secret, iv)
      return Buffer.concat([iv, cipher.update(data), cipher.final()])
    },
    fromStorage(data) {
      if (data.length < AES_BLOCK) throw new TransformError(SHORT)
      const iv = data.subarray(0, AES_BLOCK)
      const body = data.subarray(AES_BLOCK)
      if (body.length % AES_BLOCK !== 0) throw new TransformError('the stored data is not a multiple of the block size')
      const decipher = createDecipheriv(algorithm, secret, iv)
      // Padding is checked here, so a wrong key gives the reference's padding errors.
      decipher.setAutoPadding(false)
      const plain = Buffer.concat([decipher.update(body), decipher.final()])
      const pad = plain.length > 0 ? plain[plain.length - 1]! : 0
      if (pad === 0 || pad > plain.length) throw new TransformError('invalid PKCS7 data (empty or not padded)')
      for (let i = plain.length - pad; i < plain.length; i++) {
        if (plain[i] !== pad) throw new TransformError('invalid padding on input')
      }
      return plain.subarray(0, plain.length - pad)
    },
  }
}

export function aesGcmTransformer(secret: Buffer): Transformer {
  const algorithm = gcmName(secret)
  return {
    toStorage(data, key) {
      const nonce = randomBytes(GCM_NONCE)
      const cipher = createCipheriv(algorithm, secret, nonce, { authTagLength: GCM_TAG })
      cipher.setAAD(Buffer.from(key, 'utf8'))
      return Buffer.concat([nonce, cipher.update(data), cipher.final(), cipher.getAuthTag()])
    },
    fromStorage(data, key) {
      if (data.length < GCM_NONCE) throw new TransformError(SHORT)
      // Go's AEAD fails the same way for a missing tag and a wrong one.
      if (data.length < GCM_NONCE + GCM_TAG) throw new TransformError('cipher: message authentication failed')
      const nonce = data.subarray(0, GCM_NONCE)
      const sealed = data.subarray(GCM_NONCE)
      const decipher = createDecipheriv(algorithm, secret, nonce, { authTagLength: GCM_TAG })
      decipher.setAAD(Buffer.from(key, 'utf8'))
      decipher.setAuthTag(sealed.subarray(sealed.length - GCM_TAG))
      try {
        return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - GCM_TAG)), decipher.final()])
      } catch {
        throw new TransformError('cipher: message authentication failed')
      }
    },
  }
}

export function secretboxTransformer(secret: Buffer): Transformer {
  const keyBytes = new Uint8Array(secret)
  return {
    toStorage(data) {
      const nonce = randomBytes(SECRETBOX_NONCE)
      const box = nacl.secretbox(new Uint8Array(data), new Uint8Array(nonce), keyBytes)
      return Buffer.concat([nonce, Buffer.from(box)])
    },
    fromStorage(data) {
      if (data.length < nacl.secretbox.overheadLength + SECRETBOX_NONCE) throw new TransformError(SHORT)
      const opened = nacl.secretbox.open(new Uint8Array(data.subarray(SECRETBOX_NONCE)), new Uint8Array(data.subarray(0, SECRETBOX_NONCE)), keyBytes)
      // The reference's message for any failure to open the box.
      if (!opened) throw new TransformError('output array was not large enough for encryption')
      return Buffer.from(opened)
    },
  }
}

export const identityTransformer: Transformer = {
  toStorage: (data) => data,
  fromStorage(data) {
    if (data.subarray(0, ENCRYPTED_PREFIX.length).toString('latin1') === ENCRYPTED_PREFIX) {
      throw new TransformError('identity transformer tried to read encrypted data')
    }
    return data
  },
}

/**
 * The first transformer writes (its prefix in front); reads go to the first whose prefix the
 * data starts with. The identity one (empty prefix) matches everything, but when it refuses
 * encrypted data the later ones still get their turn, which is how encryption is undone.
 */
export function prefixTransformers(noMatch: string, list: readonly PrefixTransformer[]): Transformer {
  return {
    toStorage(data, key) {
      const first = list[0]
      if (!first) throw new TransformError(noMatch)
      return Buffer.concat([first.prefix, first.transformer.toStorage(data, key)])
    },
    fromStorage(data, key) {
      const errs: string[] = []
      for (const { prefix, transformer } of list) {
        if (data.length < prefix.length || !data.subarray(0, prefix.length).equals(prefix)) continue
        if (prefix.length === 0) {
          try {
            return transformer.fromStorage(data, key)
          } catch (err) {
            errs.push((err as Error).message)
            continue
          }
        }
        return transformer.fromStorage(data.subarray(prefix.length), key)
      }
      if (errs.length === 1) throw new TransformError(errs[0])
      if (errs.length > 1) throw new TransformError(`[${errs.join(', ')}]`)
      throw new TransformError(noMatch)
    },
  }
}
