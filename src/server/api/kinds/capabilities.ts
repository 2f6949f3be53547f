/**
 * Cluster-wide policy the pod validation reads: whether privileged containers are allowed
 * (`--allow-privileged`, default false). The reference keeps this process-wide too
 * (its capabilities package), since every kind with a pod template validates against it.
 */
let allowPrivileged = false

export function setAllowPrivileged(value: boolean): void {
  allowPrivileged = value
}

export function privilegedAllowed(): boolean {
  return allowPrivileged
}
