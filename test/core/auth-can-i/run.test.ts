/**
 * `auth can-i` and `auth who-can` offline, in process, on the RBAC corpus (test/fixtures/rbac):
 * kubectl's usage errors and output forms (its cani.go), the user impersonation makes (the
 * reference's impersonation filter), kubectl-who-can's table. The answers themselves are
 * compared with a running server in test/commands/auth/can-i.e2e.test.ts.
 */
import assert from 'node:assert/strict'
import { fileURLToPath } from 'node:url'
import { offlineAuthDeps } from '../../../src/cli/offline-auth-deps.js'
import { runCanI } from '../../../src/core/auth-can-i/run.js'
import { runWhoCan } from '../../../src/core/auth-can-i/run-who-can.js'

const FIXTURES = fileURLToPath(new URL('../../fixtures/rbac', import.meta.url))

async function run(runner: typeof runCanI, args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  let stdout = ''
  let stderr = ''
  const io = { cwd: process.cwd(), out: (t: string) => (stdout += t), err: (t: string) => (stderr += t), readStdin: async () => '', fetchUrl: async () => '' }
  const result = await runner(args, 'client', io, offlineAuthDeps())
  return { stdout, stderr, code: result.exitCode }
}

const canI = (...args: string[]) => run(runCanI, [...args, '--rbac-from', FIXTURES])
const whoCan = (...args: string[]) => run(runWhoCan, [...args, '--rbac-from', FIXTURES])

describe('auth can-i offline', () => {
  it("prints kubectl's usage errors, exit 1", async () => {
    const usage = "error: you must specify two arguments: verb resource or verb resource/resourceName.\nSee 'client auth can-i -h' for help and examples.\n"
    assert.deepEqual(await canI('get', '--as', 'alice'), { stdout: '', stderr: usage, code: 1 })
    assert.equal((await canI('--list', 'pods', '--as', 'alice')).stderr, 'error: list option must be specified with no arguments\n')
    assert.equal((await canI('--list', '-q', '--as', 'alice')).stderr, "error: list option can't be specified with neither quiet, all-namespaces nor subresource options\n")
    assert.equal((await canI('get', '/logs', '--subresource', 'x', '--as', 'alice')).stderr, 'error: --subresource can not be used with NonResourceURL\n')
    assert.equal((await canI('get', 'pods', '--no-headers', '--as', 'alice')).stderr, 'error: --no-headers cannot be set without --list specified\n')
    assert.equal((await canI('get', 'pods', '--bogus')).stderr, "error: unknown flag: --bogus\nSee 'client auth can-i --help' for usage.\n")
  })

  it('answers yes or no with the exit code; -q prints nothing; the reason after a no', async () => {
    assert.deepEqual(await canI('get', 'pods', '-n', 'team-a', '--as', 'alice'), { stdout: 'yes\n', stderr: '', code: 0 })
    assert.deepEqual(await canI('get', 'pods', '-n', 'team-b', '--as', 'alice'), { stdout: 'no\n', stderr: '', code: 1 })
    assert.deepEqual(await canI('get', 'pods', '-n', 'team-b', '--as', 'alice', '-q'), { stdout: '', stderr: '', code: 1 })
    // A binding to a missing role: the RBAC authorizer's error is the review's reason.
    assert.equal((await canI('get', 'pods', '-n', 'team-a', '--as', 'carol')).stdout, 'no - RBAC: role.rbac.authorization.k8s.io "missing-role" not found\n')
  })

  it('--explain adds the reason of a yes: the binding, its role and the subject that matched', async () => {
    const r = await canI('update', 'deployments.apps', '--subresource', 'scale', '-n', 'team-b', '--as', 'system:serviceaccount:team-a:builder', '--explain')
    assert.equal(r.stdout, 'yes\nRBAC: allowed by RoleBinding "scalers/team-b" of Role "deploy-scaler" to Group "system:serviceaccounts:team-a"\n')
  })

  it('gives a service account its groups unless --as-group names the groups', async () => {
    const args = ['update', 'deploy', '--subresource', 'scale', '-n', 'team-b', '--as', 'system:serviceaccount:team-a:builder']
    assert.equal((await canI(...args)).code, 0)
    assert.equal((await canI(...args, '--as-group', 'ci')).code, 1)
  })

  it('resolves aggregation: monitoring from its labelled roles, view (and so edit) with the added role', async () => {
    assert.equal((await canI('get', '/metrics', '--as', 'frank', '--as-group', 'sre')).code, 0)
    assert.equal((await canI('list', 'endpoints', '-A', '--as', 'frank', '--as-group', 'sre')).code, 0)
    // The custom resource's type, from its definition among the inputs (short name, resource.version.group).
    assert.equal((await canI('get', 'widgets.v1.example.com', '-n', 'team-b', '--as', 'alice', '--as-group', 'dev-team')).code, 0)
    assert.equal((await canI('watch', 'wd', '-n', 'team-b', '--as', 'alice', '--as-group', 'dev-team')).code, 0)
    assert.equal((await canI('watch', 'wd', '-n', 'team-a', '--as', 'alice', '--as-group', 'dev-team')).code, 1)
    const list = await canI('--list', '-n', 'team-b', '--as', 'alice', '--as-group', 'dev-team')
    assert.match(list.stdout, /^widgets\.example\.com +\[\] +\[\] +\[get list watch\]$/m)
  })

  it("warns as kubectl does about a type discovery does not know and a cluster-scoped one in a namespace", async () => {
    const unknown = await canI('get', 'gizmos', '--as', 'alice')
    assert.equal(unknown.stderr, "Warning: the server doesn't have a resource type 'gizmos'\n\n")
    const scoped = await canI('get', 'nodes', '--as', 'dave')
    assert.deepEqual(scoped, { stdout: 'yes\n', stderr: "Warning: resource 'nodes' is not namespace scoped\n\n", code: 0 })
  })

  it('refuses as the server would when the user may not create the review (unauthenticated)', async () => {
    const r = await canI('get', 'pods', '--as', 'system:anonymous')
    assert.equal(r.stderr, 'Error from server (Forbidden): selfsubjectaccessreviews.authorization.k8s.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope\n')
    assert.equal(r.code, 1)
  })
})

describe('auth who-can offline', () => {
  it("prints kubectl-who-can's two tables, one row per subject of each granting binding", async () => {
    const r = await whoCan('get', 'pods', '-n', 'team-a', '--default-policy=false')
    assert.equal(
      r.stdout,
      [
        'ROLEBINDING       NAMESPACE  SUBJECT  TYPE  SA-NAMESPACE',
        'alice-reads-pods  team-a     alice    User  ',
        '',
        'CLUSTERROLEBINDING  SUBJECT  TYPE   SA-NAMESPACE',
        'sre-monitoring      sre      Group  ',
        '',
      ].join('\n'),
    )
  })

  it('says when no binding grants it; a non-resource URL has no RoleBindings part', async () => {
    const none = await whoCan('delete', 'nodes', '--default-policy=false')
    assert.equal(none.stdout, 'No subjects found with permissions to delete nodes assigned through RoleBindings\n\nNo subjects found with permissions to delete nodes assigned through ClusterRoleBindings\n')
    const url = await whoCan('get', '/metrics', '--default-policy=false')
    assert.equal(url.stdout, 'CLUSTERROLEBINDING  SUBJECT  TYPE   SA-NAMESPACE\nsre-monitoring      sre      Group  \n')
  })
})
