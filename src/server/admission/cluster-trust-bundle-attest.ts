/**
 * The ClusterTrustBundleAttest admission plugin (the reference's
 * `plugin/pkg/admission/certificates/ctbattest`): creating or updating a ClusterTrustBundle
 * that names a signer needs the `attest` verb on that signer name (or its domain wildcard),
 * and its signer name may not change. Inert while the ClusterTrustBundle feature gate is off.
 */
import { featureGate } from '../../core/options/feature-gates.js'
import type { ApiError } from '../api/status-errors.js'
import { errors } from '../api/status-errors.js'
import { type AdmissionAttributes, CREATE, UPDATE, nameForRefusal } from './attributes.js'
import { isAuthorizedForSignerName, signerNameOf } from './certificates-signer-authorization.js'
import { type ValidationInterface, actsOnOnly, handlesOnly } from './interfaces.js'
import type { PluginInitialization } from './plugins.js'

export const CLUSTER_TRUST_BUNDLE_ATTEST = 'ClusterTrustBundleAttest'

const GATE = 'ClusterTrustBundle'

export class ClusterTrustBundleAttest implements ValidationInterface {
  private readonly enabled: boolean

  constructor(private readonly init: PluginInitialization) {
    this.enabled = init.config.featureGates?.get(GATE) ?? featureGate(GATE)?.default ?? false
  }

  readonly handles = handlesOnly(CREATE, UPDATE)
  readonly actsOn = actsOnOnly('clustertrustbundles.certificates.k8s.io')

  async validate(a: AdmissionAttributes): Promise<void> {
    if (!this.enabled || a.resource.group !== 'certificates.k8s.io' || a.resource.resource !== 'clustertrustbundles') return
    const bundle = a.object
    if (!bundle) throw forbidden(a, 'expected type ClusterTrustBundle, got: <nil>')
    const signerName = signerNameOf(bundle.spec)
    // Validation refuses a changed signer name too; refused here as well, in depth.
    if (a.operation === UPDATE) {
      if (!a.oldObject) throw forbidden(a, 'expected type ClusterTrustBundle, got: <nil>')
      if (signerNameOf(a.oldObject.spec) !== signerName) throw forbidden(a, 'changing signerName is forbidden')
    }
    if (signerName === '') return
    // A write without a requester is the server's own; with no authorizer there is nothing to ask.
    if (!a.userInfo || !this.init.authorizer) return
    if (!(await isAuthorizedForSignerName(this.init.authorizer, a.userInfo, 'attest', signerName))) {
      throw forbidden(a, `user not permitted to attest for signerName ${JSON.stringify(signerName)}`)
    }
  }
}

function forbidden(a: AdmissionAttributes, why: string): ApiError {
  return errors.forbidden({ group: a.resource.group, resource: a.resource.resource }, nameForRefusal(a), why)
}
