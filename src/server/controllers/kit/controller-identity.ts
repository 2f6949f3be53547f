/**
 * Writes made on behalf of a controller of kube-controller-manager: with
 * --use-service-account-credentials the reference's controllers call the API server as their
 * own service account in kube-system, so admission sees that user (the ServiceAccount plugin
 * gives their pods the token volume, quotas are charged).
 */
import type { AdmissionRequest } from '../../api/registry/admission-hook.js'

export function asControllerServiceAccount(serviceAccount: string): AdmissionRequest {
  const username = `system:serviceaccount:kube-system:${serviceAccount}`
  return { userInfo: { name: username, groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'] } }
}
