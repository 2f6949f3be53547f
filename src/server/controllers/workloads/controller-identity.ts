/**
 * The user a kube-controller-manager controller writes as when it runs with
 * --use-service-account-credentials (its own ServiceAccount in kube-system), for the writes the
 * reference's controller makes through the API and so through admission (pods it creates get
 * the ServiceAccount plugin's token volume, quotas count them).
 */
import type { AdmissionRequest } from '../../api/registry/admission-hook.js'

export function controllerAdmission(serviceAccount: string): AdmissionRequest {
  return {
    userInfo: {
      name: `system:serviceaccount:kube-system:${serviceAccount}`,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
    },
  }
}
