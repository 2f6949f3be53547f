/**
 * NodeRestriction on `serviceaccounts/<name>/token` (the reference's admitServiceAccount and
 * validateNodeServiceAccountAudience): a kubelet may only request a token bound to a pod on
 * its node, and, with ServiceAccountNodeAudienceRestriction (beta, on), only for an audience
 * that pod uses — a projected service account token, or a CSI driver (inline, through a
 * claim's volume, through an ephemeral volume's claim, or an in-tree volume migrated to CSI)
 * whose CSIDriver requests tokens for it — unless it is authorized for the
 * `request-serviceaccounts-token-audience` verb on that audience.
 */
import type { KubeObject } from '../../api/registry/object.js'
import type { ApiError } from '../../api/status-errors.js'
import { arr, obj, str } from '../../api/validation/helpers.js'
import type { AdmissionAttributes } from '../attributes.js'
import { forbidden } from '../forbidden.js'
import type { PluginInitialization } from '../plugins.js'
import { readObject } from './objects.js'

/** In-tree volume sources and the CSI driver each is migrated to (csi-translation-lib). */
const MIGRATED_DRIVERS: Readonly<Record<string, string>> = {
  awsElasticBlockStore: 'ebs.csi.aws.com',
  gcePersistentDisk: 'pd.csi.storage.gke.io',
  azureDisk: 'disk.csi.azure.com',
  azureFile: 'file.csi.azure.com',
  cinder: 'cinder.csi.openstack.org',
  vsphereVolume: 'csi.vsphere.vmware.com',
  portworxVolume: 'pxd.portworx.com',
}

/** The CSI driver of a volume source (a pod's volume or a persistent volume's spec), if any. */
function csiDriverOf(source: Record<string, unknown>): string | undefined {
  const csi = str(obj(source.csi).driver)
  if (csi !== '') return csi
  for (const [field, driver] of Object.entries(MIGRATED_DRIVERS)) if (source[field] !== undefined && source[field] !== null) return driver
  return undefined
}

export class TokenRequestRestriction {
  constructor(
    private readonly init: PluginInitialization,
    private readonly audienceRestriction: boolean,
  ) {}

  async admit(nodeName: string, a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'CREATE' || a.subresource !== 'token') return
    const tr = a.object
    if (!tr) throw forbidden(a, 'unexpected type <nil>')
    // TokenRequests from a node must be bound to a pod scheduled on that node.
    const spec = obj(tr.spec)
    const ref = obj(spec.boundObjectRef)
    if (spec.boundObjectRef == null || str(ref.apiVersion) !== 'v1' || str(ref.kind) !== 'Pod' || str(ref.name) === '') {
      throw forbidden(a, 'node requested token not bound to a pod')
    }
    const uid = str(ref.uid)
    if (uid === '') throw forbidden(a, 'node requested token with a pod binding without a uid')
    const pod = await readObject(this.init, a, 'pods', a.namespace, str(ref.name))
    if (uid !== pod.metadata.uid) {
      throw forbidden(a, `the UID in the bound object reference (${uid}) does not match the UID in record. The object might have been deleted and then recreated`)
    }
    if (str(obj(pod.spec).nodeName) !== nodeName) throw forbidden(a, 'node requested token bound to a pod scheduled on a different node')
    if (this.audienceRestriction) await this.validateAudience(a, tr, pod)
  }

  private async validateAudience(a: AdmissionAttributes, tr: KubeObject, pod: KubeObject): Promise<void> {
    const audiences = arr(obj(tr.spec).audiences).map((x) => str(x))
    if (audiences.length > 1) throw forbidden(a, 'node may only request 0 or 1 audiences')
    const audience = audiences[0] ?? ''
    const { found, problems } = await this.podReferencesAudience(pod, audience)
    if (found) return
    if (problems.length > 0) throw forbidden(a, `error validating audience ${JSON.stringify(audience)}: ${aggregate(problems)}`)
    const user = a.userInfo
    const decision = user
      ? await this.init.authorizer?.authorize({
          user,
          verb: 'request-serviceaccounts-token-audience',
          resourceRequest: true,
          path: '',
          namespace: a.namespace,
          apiGroup: '',
          apiVersion: '',
          resource: audience,
          subresource: '',
          name: a.name,
        })
      : undefined
    if (decision?.decision === 'allow') return
    throw forbidden(a, `audience ${JSON.stringify(audience)} not found in pod spec volume, ${user?.name ?? ''} is not authorized to request tokens for this audience`)
  }

  /**
   * Whether a volume of the pod uses `audience`; the objects that could not be read on the way
   * are reported only when none does (a claim not found does not hide a driver that matches).
   */
  private async podReferencesAudience(pod: KubeObject, audience: string): Promise<{ found: boolean; problems: string[] }> {
    const problems: string[] = []
    const namespace = pod.metadata.namespace ?? ''
    for (const volume of arr(obj(pod.spec).volumes).map(obj)) {
      for (const source of arr(obj(volume.projected).sources).map(obj)) {
        const token = source.serviceAccountToken
        if (token != null && str(obj(token).audience) === audience) return { found: true, problems }
      }
      let driver: string | undefined
      try {
        if (volume.persistentVolumeClaim != null) driver = await this.claimDriver(namespace, str(obj(volume.persistentVolumeClaim).claimName))
        else if (volume.ephemeral != null) driver = await this.claimDriver(namespace, `${pod.metadata.name ?? ''}-${str(volume.name)}`)
        else driver = csiDriverOf(volume)
        if (driver !== undefined && (await this.driverRequestsAudience(driver, audience))) return { found: true, problems }
      } catch (err) {
        problems.push((err as Error).message)
      }
    }
    return { found: false, problems }
  }

  /** The CSI driver behind a claim's bound volume, if any. */
  private async claimDriver(namespace: string, claimName: string): Promise<string | undefined> {
    const claim = await this.find('', 'persistentvolumeclaims', namespace, claimName, `persistentvolumeclaim ${JSON.stringify(claimName)} not found`)
    const volumeName = str(obj(claim.spec).volumeName)
    if (volumeName === '') return undefined
    const pv = await this.find('', 'persistentvolumes', undefined, volumeName, `persistentvolume ${JSON.stringify(volumeName)} not found`)
    return csiDriverOf(obj(pv.spec))
  }

  private async driverRequestsAudience(driver: string, audience: string): Promise<boolean> {
    const csiDriver = await this.find('storage.k8s.io', 'csidrivers', undefined, driver, `csidriver.storage.k8s.io ${JSON.stringify(driver)} not found`)
    return arr(obj(csiDriver.spec).tokenRequests).some((r) => str(obj(r).audience) === audience)
  }

  /** An object read as the reference's listers read it: absent is an error with the lister's text. */
  private async find(group: string, resource: string, namespace: string | undefined, name: string, notFound: string): Promise<KubeObject> {
    const store = this.init.stores()?.lookup(group, 'v1', resource)
    if (!store) throw new Error(notFound)
    try {
      return await store.get(namespace, name)
    } catch (err) {
      if ((err as ApiError).code === 404) throw new Error(notFound)
      throw err
    }
  }
}

/** utilerrors.NewAggregate's text: one error as itself, more in brackets. */
function aggregate(messages: string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`
}
