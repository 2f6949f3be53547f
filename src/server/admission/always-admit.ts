/**
 * The AlwaysAdmit admission plugin (the reference's `plugin/pkg/admission/admit`): admits and
 * validates everything. Deprecated in the reference, which says so when it is made.
 */
import { type AdmissionAttributes, CONNECT, CREATE, DELETE, UPDATE } from './attributes.js'
import { type MutationInterface, type ValidationInterface, handlesOnly } from './interfaces.js'
import type { PluginInitialization } from './plugins.js'

export const ALWAYS_ADMIT = 'AlwaysAdmit'

export class AlwaysAdmit implements MutationInterface, ValidationInterface {
  constructor(init: Pick<PluginInitialization, 'log'>) {
    init.log(0, `${ALWAYS_ADMIT} admission controller is deprecated. Please remove this controller from your configuration files and scripts.`)
  }

  readonly handles = handlesOnly(CREATE, UPDATE, DELETE, CONNECT)

  admit(_attributes: AdmissionAttributes): Promise<void> {
    return Promise.resolve()
  }

  validate(_attributes: AdmissionAttributes): Promise<void> {
    return Promise.resolve()
  }
}
