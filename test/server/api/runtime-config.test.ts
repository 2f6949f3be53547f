import assert from 'node:assert/strict'
import { KINDS } from '../../../src/server/api/kinds/index.js'
import { apiEnablement, enabledKinds, servedAtVersion } from '../../../src/server/api/runtime-config.js'

const resources = (entries: Array<[string, string?]>, gates: Record<string, boolean> = {}) =>
  new Set(
    enabledKinds(
      KINDS,
      entries.map(([key, value]) => ({ key, ...(value !== undefined ? { value } : {}) })),
      new Map(Object.entries(gates)),
    ).flatMap((k) => [`${k.group}/${k.resource}`, `${k.group}/${k.version}/${k.resource}`]),
  )

describe('api: --runtime-config', () => {
  it('serves every GA group version by default; beta and alpha are off', () => {
    const ga = KINDS.filter((k) => /^v\d+$/.test(k.version))
    assert.equal(resources([]).size, new Set(ga.flatMap((k) => [`${k.group}/${k.resource}`, `${k.group}/${k.version}/${k.resource}`])).size)
    assert.ok(KINDS.length > ga.length, 'beta and alpha kinds are generated too')
    const e = apiEnablement([])
    assert.equal(e.versionEnabled('apps', 'v1'), true)
    assert.equal(e.versionEnabled('batch', 'v1beta1'), false)
    assert.equal(e.versionEnabled('resource.k8s.io', 'v1alpha3'), false)
  })

  it('beta and alpha group versions from the upstream document, on by --runtime-config and their feature gate', () => {
    const r = resources([['resource.k8s.io/v1beta2', 'true'], ['coordination.k8s.io/v1beta1', 'true'], ['storagemigration.k8s.io/v1beta1', 'true']])
    for (const key of ['resource.k8s.io/v1beta2/deviceclasses', 'resource.k8s.io/v1beta2/resourceclaims', 'resource.k8s.io/v1beta2/resourceslices', 'resource.k8s.io/v1/deviceclasses']) {
      assert.equal(r.has(key), true, key)
    }
    // LeaseCandidates need CoordinatedLeaderElection, StorageVersionMigrations StorageVersionMigrator; DeviceTaintRules DRADeviceTaintRules.
    assert.equal(r.has('coordination.k8s.io/v1beta1/leasecandidates'), false)
    assert.equal(r.has('storagemigration.k8s.io/v1beta1/storageversionmigrations'), false)
    assert.equal(r.has('resource.k8s.io/v1beta2/devicetaintrules'), false)
    const gated = resources([['coordination.k8s.io/v1beta1'], ['storagemigration.k8s.io/v1beta1'], ['admissionregistration.k8s.io/v1beta1']], {
      CoordinatedLeaderElection: true,
      StorageVersionMigrator: true,
      MutatingAdmissionPolicy: true,
    })
    assert.equal(gated.has('coordination.k8s.io/v1beta1/leasecandidates'), true)
    assert.equal(gated.has('coordination.k8s.io/v1alpha2/leasecandidates'), false)
    assert.equal(gated.has('storagemigration.k8s.io/v1beta1/storageversionmigrations'), true)
    assert.equal(gated.has('admissionregistration.k8s.io/v1beta1/mutatingadmissionpolicies'), true)
    // api/all=true: every version, still behind the gates; a group version can then be switched off.
    const all = resources([['api/all', 'true'], ['resource.k8s.io/v1beta1', 'false']])
    assert.equal(all.has('certificates.k8s.io/v1beta1/clustertrustbundles'), false)
    assert.equal(all.has('networking.k8s.io/v1beta1/servicecidrs'), true)
    assert.equal(all.has('storage.k8s.io/v1beta1/volumeattributesclasses'), true)
    assert.equal(all.has('resource.k8s.io/v1beta1/deviceclasses'), false)
    assert.equal(all.has('resource.k8s.io/v1beta2/deviceclasses'), true)
  })

  it("discovery lists a group's versions by priority: GA, then beta, then alpha, higher numbers first", () => {
    const versions = [...new Set(KINDS.filter((k) => k.group === 'resource.k8s.io').map((k) => k.version))]
    assert.deepEqual(versions, ['v1', 'v1beta2', 'v1beta1', 'v1alpha3'])
  })

  it('<group>/<version>=false switches a group version off; a bare key means true', () => {
    const r = resources([['batch/v1', 'false']])
    assert.equal(r.has('batch/jobs'), false)
    assert.equal(r.has('batch/cronjobs'), false)
    assert.equal(r.has('apps/deployments'), true)
    assert.equal(apiEnablement([{ key: 'batch/v1beta1' }]).versionEnabled('batch', 'v1beta1'), true)
  })

  it('v1=false (also api/v1=false) is the legacy core group', () => {
    for (const key of ['v1', 'api/v1']) {
      const r = resources([[key, 'false']])
      assert.equal(r.has('/pods'), false)
      assert.equal(r.has('/namespaces'), false)
      assert.equal(r.has('apps/deployments'), true)
    }
  })

  it('api/all, then api/ga|beta|alpha, then group versions decide, in that order', () => {
    assert.deepEqual([...resources([['api/all', 'false'], ['v1', 'true']])].every((r) => r.startsWith('/')), true)
    assert.equal(resources([['api/all', 'false'], ['api/ga', 'true']]).size, resources([]).size)
    assert.equal(resources([['api/ga', 'false'], ['apps/v1', 'true']]).has('apps/deployments'), true)
    assert.equal(resources([['api/ga', 'false'], ['apps/v1', 'true']]).has('batch/jobs'), false)
    assert.equal(apiEnablement([{ key: 'api/beta', value: 'true' }]).versionEnabled('batch', 'v1beta1'), true)
    assert.equal(apiEnablement([{ key: 'api/alpha', value: 'true' }]).versionEnabled('batch', 'v1beta1'), false)
  })

  it('<group>/<version>/<resource> decides for that resource alone', () => {
    const r = resources([['apps/v1/deployments', 'false']])
    assert.equal(r.has('apps/deployments'), false)
    assert.equal(r.has('apps/replicasets'), true)
    const only = resources([['apps/v1', 'false'], ['apps/v1/deployments', 'true']])
    assert.equal(only.has('apps/deployments'), true)
    assert.equal(only.has('apps/replicasets'), false)
  })
})

describe('api: --emulated-version and the served kinds', () => {
  const keys = (minor: number | undefined) => new Set(servedAtVersion(KINDS, minor).map((k) => `${k.group}/${k.version}/${k.resource}`))

  it('1.35 leaves out what came later (MutatingAdmissionPolicy v1); 1.32 also ServiceCIDRs, IPAddresses, VolumeAttributesClasses, resource.k8s.io/v1', () => {
    const at35 = keys(35)
    assert.equal(at35.has('admissionregistration.k8s.io/v1/mutatingadmissionpolicies'), false)
    assert.equal(at35.has('resource.k8s.io/v1/deviceclasses'), true)
    assert.equal(at35.has('networking.k8s.io/v1/servicecidrs'), true)
    const at32 = keys(32)
    for (const k of ['networking.k8s.io/v1/servicecidrs', 'networking.k8s.io/v1/ipaddresses', 'storage.k8s.io/v1/volumeattributesclasses', 'resource.k8s.io/v1/resourceclaims']) assert.equal(at32.has(k), false, k)
    assert.equal(at32.has('flowcontrol.apiserver.k8s.io/v1/flowschemas'), true)
    assert.equal(keys(undefined).size, KINDS.length)
  })

  it('a subresource added later is left out of its kind, without touching the shared strategy', () => {
    const pods32 = servedAtVersion(KINDS, 32).find((k) => k.group === '' && k.resource === 'pods')!
    assert.equal(pods32.subresources!.includes('resize'), false)
    assert.equal(pods32.subresources!.includes('eviction'), true)
    assert.equal(KINDS.find((k) => k.group === '' && k.resource === 'pods')!.subresources!.includes('resize'), true)
  })

  // The reference's removeUnintroducedKinds (apiserver/pkg/server/deleted_kinds.go).
  describe('forward compatibility', () => {
    const at33 = (options: Parameters<typeof servedAtVersion>[2]) => new Set(servedAtVersion(KINDS, 33, options).map((k) => `${k.group}/${k.version}/${k.resource}`))
    const rc = (...entries: string[]) => entries.map((e) => ({ key: e.split('=')[0]!, value: e.split('=')[1] ?? 'true' }))

    it('--emulation-forward-compatible serves the later GA version of a resource whose beta version is served', () => {
      assert.equal(at33({}).has('resource.k8s.io/v1/deviceclasses'), false)
      const forward = at33({ forwardCompatible: true })
      assert.equal(forward.has('resource.k8s.io/v1/deviceclasses'), true)
      assert.equal(forward.has('resource.k8s.io/v1beta2/deviceclasses'), true)
      // Without a served lower version nothing comes forward.
      const withoutBeta = new Set(
        servedAtVersion(KINDS.filter((k) => !(k.group === 'resource.k8s.io' && k.version.includes('beta'))), 33, { forwardCompatible: true }).map((k) => `${k.group}/${k.version}/${k.resource}`),
      )
      assert.equal(withoutBeta.has('resource.k8s.io/v1/deviceclasses'), false)
    })

    it('--runtime-config-emulation-forward-compatible serves what --runtime-config enables even if introduced later', () => {
      const version = at33({ runtimeConfigForwardCompatible: true, runtimeConfig: rc('resource.k8s.io/v1') })
      assert.equal(version.has('resource.k8s.io/v1/resourceclaims'), true)
      const resource = at33({ runtimeConfigForwardCompatible: true, runtimeConfig: rc('storage.k8s.io/v1/volumeattributesclasses') })
      assert.equal(resource.has('storage.k8s.io/v1/volumeattributesclasses'), true)
      assert.equal(resource.has('resource.k8s.io/v1/resourceclaims'), false)
    })

    it('without it, enabling a later version or resource in --runtime-config is an error, with the reference\'s text', () => {
      assert.throws(
        () => at33({ runtimeConfig: rc('resource.k8s.io/v1') }),
        { message: 'cannot enable version resource.k8s.io/v1 in runtime-config because all the resources have been introduced after the current version 1.33. Consider setting --runtime-config-emulation-forward-compatible=true' },
      )
      assert.throws(
        () => at33({ runtimeConfig: rc('storage.k8s.io/v1/volumeattributesclasses') }),
        { message: 'cannot enable resource storage.k8s.io/v1, Resource=volumeattributesclasses in runtime-config because it is introduced at 1.34 after the current version 1.33. Consider setting --runtime-config-emulation-forward-compatible=true' },
      )
    })
  })
})
