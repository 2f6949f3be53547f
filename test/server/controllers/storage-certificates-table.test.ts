/**
 * The volume, certificate and bootstrap-token controllers of kube-controller-manager are in the
 * table under the reference's --controllers names: only a whole cluster runs them, the CSR
 * signer only with a CA to sign with and the approver only with an authorizer, and the
 * bootstrap signer and token cleaner only when named (the reference's disabled-by-default set).
 */
import assert from 'node:assert/strict'
import { CONTROLLERS, type ControllerDeps, buildControllers } from '../../../src/server/controllers/index.js'

const ON_BY_DEFAULT = [
  'persistentvolume-binder-controller',
  'certificatesigningrequest-signing-controller',
  'certificatesigningrequest-approving-controller',
  'certificatesigningrequest-cleaner-controller',
]
const OFF_BY_DEFAULT = ['bootstrap-signer-controller', 'token-cleaner-controller']
const NAMES = [...ON_BY_DEFAULT, ...OFF_BY_DEFAULT]

describe('controllers: volume, certificate and bootstrap-token controllers in the table', () => {
  const built = (deps: Partial<ControllerDeps>, controllers?: string[]) =>
    buildControllers(
      { config: controllers ? { cluster: { controllers } } : {}, log: { warning: () => {} }, ...deps } as unknown as ControllerDeps,
      CONTROLLERS.filter((e) => NAMES.includes(e.name)),
    ).map((c) => c.name)
  const signing = { clusterSigningFiles: { cert: 'ca.crt', key: 'ca.key' }, authorizer: { authorize: () => ({ decision: 'noOpinion' as const }) } }

  it('runs them only in a whole cluster; the bootstrap ones only when named', () => {
    assert.deepEqual(built(signing), [])
    assert.deepEqual(built({ cluster: true, ...signing }).sort(), [...ON_BY_DEFAULT].sort())
    assert.deepEqual(built({ cluster: true, ...signing }, ['*', 'bootstrapsigner', 'tokencleaner']).sort(), [...NAMES].sort())
  })

  it('signs only with a CA and approves only with an authorizer', () => {
    assert.deepEqual(built({ cluster: true }).sort(), ['certificatesigningrequest-cleaner-controller', 'persistentvolume-binder-controller'])
  })
})
