/**
 * The `authorizer` variable of admission expressions (the reference's library.NewAuthorizerVal
 * over the request's user and the server's authorizer, and `authorizer.requestResource`). The
 * engine here declares the authorizer library's types and functions but does not evaluate them:
 * the value bound is the library's own, made without an authorizer behind it, so that a call is
 * an evaluation error (`the authorizer library is not available in this context`) under the
 * policy's failurePolicy. This is the one place to bind the real value once the library asks an
 * authorizer; an answer that comes asynchronously is awaited (composition.ts evaluates to a
 * Promise then).
 */
import { CelAuthorizer } from '../../../core/cel/libraries/authz.js'
import type { AdmissionAttributes } from '../attributes.js'
import type { PluginInitialization } from '../plugins.js'

/** The library's authorizer value, whatever arguments its constructor takes. */
const Unbacked = CelAuthorizer as unknown as new () => object

export function authorizerValue(_attributes: AdmissionAttributes, _init: PluginInitialization): unknown {
  return new Unbacked()
}
