/**
 * The user an impersonation makes of `Impersonate-User` and `Impersonate-Group` (the
 * reference's impersonation filter, k8s.io/apiserver/pkg/endpoints/filters/impersonation.go):
 * what `kubectl --as NAME --as-group G` is authorized as. The server's filter builds its user
 * with it; `auth can-i` offline asks RBAC about the same user.
 */
import { SERVICE_ACCOUNT_PREFIX, type RbacUser } from './rules.js'

const AUTHENTICATED = 'system:authenticated'
const UNAUTHENTICATED = 'system:unauthenticated'
const ANONYMOUS = 'system:anonymous'

/** serviceaccount.SplitUsername: `system:serviceaccount:<namespace>:<name>`. */
export function splitServiceAccount(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_PREFIX)) return undefined
  const parts = username.slice(SERVICE_ACCOUNT_PREFIX.length).split(':')
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined
  return { namespace: parts[0], name: parts[1] }
}

/**
 * The groups given are the whole list; without any, a service account gets its own two
 * (`system:serviceaccounts`, `system:serviceaccounts:<namespace>`). A named user is then
 * authenticated unless the groups say otherwise; `system:anonymous` is unauthenticated.
 */
export function impersonatedUser(name: string, groupsGiven: readonly string[]): RbacUser & { groups: string[] } {
  const groups = [...groupsGiven]
  const sa = splitServiceAccount(name)
  if (sa && groups.length === 0) groups.push('system:serviceaccounts', `system:serviceaccounts:${sa.namespace}`)
  if (name !== ANONYMOUS) {
    if (!groups.includes(AUTHENTICATED) && !groups.includes(UNAUTHENTICATED)) groups.push(AUTHENTICATED)
  } else if (!groups.includes(UNAUTHENTICATED)) {
    groups.push(UNAUTHENTICATED)
  }
  return { name, groups }
}
