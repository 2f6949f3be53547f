/**
 * The `authorizer` variable of admission expressions (the reference's library.NewAuthorizerVal
 * over the request's user and the server's authorizer). The engine declares the authorizer
 * library's types and functions (src/core/cel/libraries/authz.ts) but does not evaluate them
 * yet: the value bound here is the library's placeholder, whose calls fail with the engine's
 * message, so that an expression calling it is an evaluation error (under the policy's
 * failurePolicy) rather than a missing variable. This is the one place to bind the real value.
 */
import { CelAuthorizer } from '../../../core/cel/libraries/authz.js'
import type { AdmissionAttributes } from '../attributes.js'
import type { PluginInitialization } from '../plugins.js'

export function authorizerValue(_attributes: AdmissionAttributes, _init: PluginInitialization): unknown {
  return new CelAuthorizer()
}
