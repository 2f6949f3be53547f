/**
 * The AlwaysDeny admission plugin (the reference's `plugin/pkg/admission/deny`): refuses every
 * request, in both phases, with a 403. Deprecated in the reference, which says so when it is
 * made.
 */
import { type AdmissionAttributes, CONNECT, CREATE, DELETE, UPDATE } from './attributes.js'
import { forbidden } from './forbidden.js'
import { type MutationInterface, type ValidationInterface, handlesOnly } from './interfaces.js'
import type { PluginInitialization } from './plugins.js'

export const ALWAYS_DENY = 'AlwaysDeny'

const WHY = 'admission control is denying all modifications'

export class AlwaysDeny implements MutationInterface, ValidationInterface {
  constructor(init: Pick<PluginInitialization, 'log'>) {
    init.log(0, `${ALWAYS_DENY} admission controller is deprecated. Please remove this controller from your configuration files and scripts.`)
  }

  readonly handles = handlesOnly(CREATE, UPDATE, DELETE, CONNECT)

  admit(attributes: AdmissionAttributes): Promise<void> {
    return Promise.reject(forbidden(attributes, WHY))
  }

  validate(attributes: AdmissionAttributes): Promise<void> {
    return Promise.reject(forbidden(attributes, WHY))
  }
}
