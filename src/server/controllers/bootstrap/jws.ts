/**
 * ComputeDetachedSignature of k8s.io/cluster-bootstrap/token/jws: a compact JWS (HS256 keyed by
 * the token secret, the token id as `kid` in the protected header) without its payload:
 * `<header>..<signature>`. The header is what go-jose writes, keys sorted: {"alg":"HS256","kid":…}.
 */
import crypto from 'node:crypto'

const b64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url')

export function computeDetachedSignature(content: string, tokenId: string, tokenSecret: string): string {
  const header = b64url(JSON.stringify({ alg: 'HS256', kid: tokenId }))
  const signature = crypto.createHmac('sha256', tokenSecret).update(`${header}.${b64url(content)}`).digest('base64url')
  return `${header}..${signature}`
}
