/**
 * The `authorizer` variable of admission policy expressions (the reference's
 * library.NewAuthorizerVal over the request's user and the server's authorizer, with
 * `authorizer.requestResource` the check of the request's own resource). Without an authorizer
 * (a server or test that has none) the library's value has no backend, so a call is an
 * evaluation error (`the authorizer library is not available in this context`) under the
 * policy's failurePolicy. An answer that comes asynchronously is awaited (composition.ts
 * evaluates to a Promise then).
 */
import { CelAuthorizer, requestResourceValue } from '../../../core/cel/libraries/authz.js'
import type { AdmissionAttributes } from '../attributes.js'
import type { PluginInitialization } from '../plugins.js'

export function authorizerValue(attributes: AdmissionAttributes, init: PluginInitialization): unknown {
  const user = attributes.userInfo ?? { name: '', groups: [] }
  const authorizer = new CelAuthorizer(init.authorizer, user)
  const { group, resource } = attributes.resource
  requestResourceValue(authorizer, { group, resource, subresource: attributes.subresource, namespace: attributes.namespace, name: attributes.name })
  return authorizer
}
