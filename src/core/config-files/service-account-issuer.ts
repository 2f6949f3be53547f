/**
 * The service-account token issuer the server defaults to, which `--authentication-config`'s
 * JWT issuers may not claim: shared by the server and `flags validate`'s check of that file.
 */

/** The reference's default issuer for a cluster with no --service-account-issuer (kubeadm's). */
export const DEFAULT_ISSUER = 'https://kubernetes.default.svc.cluster.local'
