/**
 * Whether a user may `approve`, `sign` or `attest` for a signer name (the reference's
 * plugin/pkg/admission/certificates IsAuthorizedForSignerName): allowed on the `signers`
 * resource of certificates.k8s.io named by the signer name itself, or by its domain and `/*`
 * (`kubernetes.io/*`). An authorizer's error counts as not allowed.
 */
import type { UserInfo } from '../http/types.js'
import type { Authorizer } from '../authorization/authorizer.js'

export async function isAuthorizedForSignerName(authorizer: Authorizer, user: UserInfo, verb: 'approve' | 'sign' | 'attest', signerName: string): Promise<boolean> {
  const domain = signerName.split('/')[0]!
  for (const name of [signerName, `${domain}/*`]) {
    try {
      const { decision } = await authorizer.authorize({
        user,
        verb,
        resourceRequest: true,
        path: '',
        namespace: '',
        apiGroup: 'certificates.k8s.io',
        apiVersion: '*',
        resource: 'signers',
        subresource: '',
        name,
      })
      if (decision === 'allow') return true
    } catch {
      // The reference logs the error and goes on to the wildcard.
    }
  }
  return false
}

/** An object's spec.signerName, '' when absent. */
export function signerNameOf(spec: unknown): string {
  const signerName = (spec as { signerName?: unknown } | undefined)?.signerName
  return typeof signerName === 'string' ? signerName : ''
}
