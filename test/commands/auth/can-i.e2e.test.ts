/**
 * `client auth can-i --rbac-from` offline agrees with the running server, as `kubectl auth
 * can-i --as ... --as-group ...` asks it, on a seeded random table of subjects, verbs,
 * resources and namespaces drawn from the default roles and the corpus (test/fixtures/rbac,
 * applied with the real kubectl: roles, cluster roles aggregated into a new role and into the
 * default `view`, bindings to users, groups and service accounts, one to a missing role, a
 * custom resource's definition).
 *
 * The bulk of the table goes to the server as kubectl sends it (a SelfSubjectAccessReview with
 * the Impersonate-User and Impersonate-Group headers, over HTTPS, with kubectl's resolution of
 * each TYPE written in the table) and is printed as kubectl's RunAccessCheck prints the review's
 * status; the offline side runs the command's pipeline in this process. A sample of the table
 * runs the real kubectl against the server and the built binary offline, and compares stdout,
 * stderr and the exit code; so does `--list` for a few subjects.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { offlineAuthDeps } from '../../../src/cli/offline-auth-deps.js'
import { runCanI } from '../../../src/core/auth-can-i/run.js'
import { BIN } from '../../support/api-server.js'
import { KubectlSession } from '../../support/kubectl-session.js'

const FIXTURES = fileURLToPath(new URL('../../fixtures/rbac', import.meta.url))
const SEED = 37
const BULK = 400
const SAMPLE = 24

/** A small seeded generator (mulberry32): the same table on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface Subject {
  as: string
  groups?: string[]
}

/** The corpus's subjects, the default policy's (controllers, scheduler, anonymous) and some with no binding. */
const SUBJECTS: Subject[] = [
  { as: 'alice' },
  { as: 'alice', groups: ['dev-team'] },
  { as: 'bob' },
  { as: 'carol' },
  { as: 'dave' },
  { as: 'erin' },
  { as: 'frank' },
  { as: 'frank', groups: ['sre'] },
  { as: 'gina', groups: ['system:masters'] },
  { as: 'henry', groups: ['system:unauthenticated'] },
  { as: 'system:serviceaccount:team-a:builder' },
  { as: 'system:serviceaccount:team-a:builder', groups: ['ci'] },
  { as: 'system:serviceaccount:team-b:default' },
  { as: 'system:serviceaccount:team-b:other' },
  { as: 'system:serviceaccount:kube-system:node-watcher' },
  { as: 'system:serviceaccount:kube-system:deployment-controller' },
  { as: 'system:serviceaccount:kube-system:namespace-controller' },
  { as: 'system:anonymous' },
  { as: 'system:kube-scheduler' },
  { as: 'system:kube-controller-manager' },
  { as: 'system:kube-proxy' },
]

const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection', 'impersonate', 'bind', 'escalate', 'approve', '*']

/**
 * The argument kubectl takes and what its RESTMapper resolves it to against the server's
 * discovery (`events` is the core group's, first in discovery's order; the corpus's custom
 * resource once its definition is established; a type discovery does not know is sent as
 * written, with no group).
 */
interface Target {
  arg: string
  group?: string
  resource?: string
  name?: string
  subresource?: string
  url?: string
}

const TARGETS: Target[] = [
  { arg: 'pods', group: '', resource: 'pods' },
  { arg: 'po', group: '', resource: 'pods' },
  { arg: 'pods', group: '', resource: 'pods', subresource: 'log' },
  { arg: 'pod/web-1', group: '', resource: 'pods', name: 'web-1' },
  { arg: 'secrets', group: '', resource: 'secrets' },
  { arg: 'secrets/db-creds', group: '', resource: 'secrets', name: 'db-creds' },
  { arg: 'secret/other', group: '', resource: 'secrets', name: 'other' },
  { arg: 'deployments.apps', group: 'apps', resource: 'deployments' },
  { arg: 'deploy', group: 'apps', resource: 'deployments' },
  { arg: 'deployments.apps', group: 'apps', resource: 'deployments', subresource: 'scale' },
  { arg: 'Deployment.v1.apps', group: 'apps', resource: 'deployments' },
  { arg: 'configmaps', group: '', resource: 'configmaps' },
  { arg: 'services', group: '', resource: 'services' },
  { arg: 'endpoints', group: '', resource: 'endpoints' },
  { arg: 'events', group: '', resource: 'events' },
  { arg: 'serviceaccounts', group: '', resource: 'serviceaccounts', subresource: 'token' },
  { arg: 'nodes', group: '', resource: 'nodes' },
  { arg: 'namespaces', group: '', resource: 'namespaces' },
  { arg: 'leases.coordination.k8s.io', group: 'coordination.k8s.io', resource: 'leases' },
  { arg: 'clusterroles.rbac.authorization.k8s.io', group: 'rbac.authorization.k8s.io', resource: 'clusterroles' },
  { arg: 'rolebindings', group: 'rbac.authorization.k8s.io', resource: 'rolebindings' },
  { arg: 'csr', group: 'certificates.k8s.io', resource: 'certificatesigningrequests', subresource: 'approval' },
  { arg: 'users/alice', group: '', resource: 'users', name: 'alice' },
  { arg: 'groups/dev-team', group: '', resource: 'groups', name: 'dev-team' },
  { arg: 'widgets.example.com', group: 'example.com', resource: 'widgets' },
  { arg: 'wd/w-1', group: 'example.com', resource: 'widgets', name: 'w-1' },
  { arg: 'gizmos.example.com', group: '', resource: 'gizmos.example.com' },
  { arg: '*', group: '', resource: '*' },
  { arg: '/metrics', url: '/metrics' },
  { arg: '/healthz', url: '/healthz' },
  { arg: '/api', url: '/api' },
  { arg: '/logs/kube-apiserver.log', url: '/logs/kube-apiserver.log' },
  { arg: '/version', url: '/version' },
]

const ALL = '*all*'
const NAMESPACES = ['default', 'team-a', 'team-b', 'prod', 'kube-system', ALL]

interface Question {
  subject: Subject
  verb: string
  target: Target
  namespace: string
}

function table(count: number, next: () => number): Question[] {
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!
  return Array.from({ length: count }, () => ({ subject: pick(SUBJECTS), verb: pick(VERBS), target: pick(TARGETS), namespace: pick(NAMESPACES) }))
}

/** The command line both take (kubectl's flags), without --rbac-from. */
function argsOf(q: Question): string[] {
  return [
    q.verb,
    q.target.arg,
    ...(q.target.subresource ? ['--subresource', q.target.subresource] : []),
    ...(q.namespace === ALL ? ['-A'] : ['-n', q.namespace]),
    '--as',
    q.subject.as,
    ...(q.subject.groups ?? []).flatMap((g) => ['--as-group', g]),
  ]
}

const describeQuestion = (q: Question) => argsOf(q).join(' ')

/** What kubectl sends: a SelfSubjectAccessReview, the user impersonated. */
async function serverAnswer(session: KubectlSession, q: Question): Promise<{ stdout: string; code: number; error?: string }> {
  const namespace = q.namespace === ALL ? '' : q.namespace
  const spec = q.target.url
    ? { nonResourceAttributes: { path: q.target.url, verb: q.verb } }
    : { resourceAttributes: { namespace, verb: q.verb, group: q.target.group, resource: q.target.resource, subresource: q.target.subresource ?? '', name: q.target.name ?? '' } }
  const body = JSON.stringify({ kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', spec })
  const headers = { 'content-type': 'application/json', 'impersonate-user': q.subject.as, ...(q.subject.groups ? { 'impersonate-group': q.subject.groups } : {}) } as unknown as Record<string, string>
  const reply = await session.server.get('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', headers, 'POST', body)
  // kubectl's error for a refused review (cmdutil.CheckErr of a StatusError).
  if (reply.status === 403) return { stdout: '', code: 1, error: `Error from server (Forbidden): ${JSON.parse(reply.body).message}\n` }
  assert.equal(reply.status, 201, `${describeQuestion(q)}: ${reply.body}`)
  const status = JSON.parse(reply.body).status as { allowed: boolean; reason?: string; evaluationError?: string }
  // kubectl's RunAccessCheck.
  if (status.allowed) return { stdout: 'yes\n', code: 0 }
  return { stdout: `no${status.reason ? ` - ${status.reason}` : ''}${status.evaluationError ? ` - ${status.evaluationError}` : ''}\n`, code: 1 }
}

async function offlineAnswer(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  let stdout = ''
  let stderr = ''
  const io = { cwd: process.cwd(), out: (t: string) => (stdout += t), err: (t: string) => (stderr += t), readStdin: async () => '', fetchUrl: async () => '' }
  const result = await runCanI([...args, '--rbac-from', FIXTURES], 'client', io, offlineAuthDeps())
  return { stdout, stderr, code: result.exitCode }
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: 30_000, env }, (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }))
  })
}

/** Runs `work` over `items`, `width` at a time, keeping the order of the results. */
async function inParallel<T, R>(items: readonly T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length)
  let next = 0
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++
        results[i] = await work(items[i]!)
      }
    }),
  )
  return results
}

describe('auth can-i offline agrees with the server (kubectl auth can-i)', function () {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    this.timeout(90_000)
    session = await KubectlSession.open(this, 'auth-can-i-', { waitFor: 'ready' })
    await session.ok('apply', '-f', join(FIXTURES, '00-namespaces.yaml'))
    await session.ok('apply', '-f', FIXTURES)
    await session.ok('wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=30s')
    // kubectl cached discovery before the CRD was there: `api-resources` refreshes its cache.
    await session.ok('api-resources')
    // The server's aggregation controller and RBAC informers catch up: `admin` (from `edit`,
    // from `view`, from widget-viewer) and `monitoring` have their rules, and they are in effect.
    const deadline = Date.now() + 30_000
    for (;;) {
      const admin = await session.run('get', 'clusterrole', 'admin', '-o', 'jsonpath={.rules[*].apiGroups}')
      const sre = await session.run('auth', 'can-i', 'get', '/metrics', '--as', 'frank', '--as-group', 'sre')
      if (admin.stdout.includes('example.com') && sre.stdout === 'yes\n') break
      if (Date.now() > deadline) assert.fail(`aggregation not in effect: ${admin.stdout} ${sre.stdout}`)
      await new Promise((r) => setTimeout(r, 200))
    }
  })

  after(async () => {
    await session?.close()
  })

  it(`answers ${BULK} seeded questions as the server's SelfSubjectAccessReview does`, async () => {
    const questions = table(BULK, random(SEED))
    const server = await inParallel(questions, 6, (q) => serverAnswer(session, q))
    const mismatches: string[] = []
    let yes = 0
    for (const [i, q] of questions.entries()) {
      const offline = await offlineAnswer(argsOf(q))
      if (server[i]!.code === 0) yes++
      const { stdout, code, error } = server[i]!
      // Warnings come before an error on stderr; without an error stderr holds only warnings.
      const offlineError = error === undefined ? undefined : offline.stderr.slice(-error.length)
      if (offline.stdout !== stdout || offline.code !== code || offlineError !== error) {
        mismatches.push(`${describeQuestion(q)}: server ${JSON.stringify(error ?? stdout)} (${code}), offline ${JSON.stringify(offlineError ?? offline.stdout)} (${offline.code})`)
      }
    }
    assert.deepEqual(mismatches, [])
    // A table that tests something: both answers are common.
    assert.ok(yes > BULK / 20 && yes < BULK - BULK / 20, `yes ${yes} of ${BULK}`)
  })

  it(`prints what kubectl auth can-i prints on ${SAMPLE} of them (stdout, warnings, exit code)`, async () => {
    // Unauthenticated users may not read discovery: kubectl then logs its failures (with times)
    // and resolves no type, where the offline command still knows the server's types.
    const unauthenticated = (s: Subject) => s.as === 'system:anonymous' || (s.groups ?? []).includes('system:unauthenticated')
    const questions = table(SAMPLE * 2, random(SEED + 1))
      .filter((q) => !unauthenticated(q.subject))
      .slice(0, SAMPLE)
    const answers = await inParallel(questions, 4, async (q) => ({
      kubectl: await session.run('auth', 'can-i', ...argsOf(q)),
      offline: await run(process.execPath, [BIN, 'auth', 'can-i', ...argsOf(q), '--rbac-from', FIXTURES]),
    }))
    for (const [i, q] of questions.entries()) {
      const { kubectl, offline } = answers[i]!
      assert.deepEqual({ stdout: offline.stdout, stderr: offline.stderr, code: offline.code }, { stdout: kubectl.stdout, stderr: kubectl.stderr, code: kubectl.code }, describeQuestion(q))
    }
  })

  it('prints the table of kubectl auth can-i --list', async () => {
    const cases: Array<[Subject, string]> = [
      [{ as: 'alice', groups: ['dev-team'] }, 'team-b'],
      [{ as: 'erin' }, 'team-a'],
      [{ as: 'system:serviceaccount:team-a:builder' }, 'prod'],
      [{ as: 'frank', groups: ['sre'] }, 'default'],
      [{ as: 'system:kube-scheduler' }, 'kube-system'],
    ]
    for (const [subject, namespace] of cases) {
      const args = ['--list', '-n', namespace, '--as', subject.as, ...(subject.groups ?? []).flatMap((g) => ['--as-group', g])]
      const kubectl = await session.run('auth', 'can-i', ...args)
      const offline = await run(process.execPath, [BIN, 'auth', 'can-i', ...args, '--rbac-from', FIXTURES])
      assert.equal(kubectl.code, 0, kubectl.stderr)
      if (offline.stdout !== kubectl.stdout) {
        // The first line that differs, for a readable failure.
        const a = offline.stdout.split('\n')
        const b = kubectl.stdout.split('\n')
        const i = a.findIndex((line, n) => line !== b[n])
        assert.fail(`${args.join(' ')}: line ${i + 1}: offline ${JSON.stringify(a[i])}, kubectl ${JSON.stringify(b[i])}`)
      }
      assert.equal(offline.code, kubectl.code, args.join(' '))
    }
  })

  it('auth who-can lists subjects the server allows: kubectl auth can-i as each says yes', async () => {
    const actions = [
      ['get', 'pods', '-n', 'team-a'],
      ['update', 'deployments.apps', '--subresource', 'scale', '-n', 'team-b'],
      ['get', '/metrics'],
      ['list', 'widgets.example.com', '-n', 'team-b'],
    ]
    for (const action of actions) {
      const out = await run(process.execPath, [BIN, 'auth', 'who-can', ...action, '--rbac-from', FIXTURES])
      assert.equal(out.code, 0, out.stderr)
      // kubectl-who-can's rows: the RoleBindings' (5 columns) then the ClusterRoleBindings' (4).
      const asArgs: string[][] = []
      let columns = 0
      for (const line of out.stdout.split('\n')) {
        if (line.startsWith('ROLEBINDING')) columns = 5
        else if (line.startsWith('CLUSTERROLEBINDING')) columns = 4
        else if (line.trim() === '' || line.startsWith('No subjects')) continue
        else {
          const cells = line.trim().split(/\s+/)
          const [namespace, subject, type, saNamespace] = columns === 5 ? cells.slice(1) : ['', ...cells.slice(1)]
          if (type === 'User') asArgs.push(['--as', subject!])
          else if (type === 'Group') asArgs.push(['--as', 'probe', '--as-group', subject!])
          else asArgs.push(['--as', `system:serviceaccount:${saNamespace || namespace}:${subject}`])
        }
      }
      assert.ok(asArgs.length > 0, `${action.join(' ')}: ${out.stdout}`)
      const answers = await inParallel(asArgs, 4, (as) => session.run('auth', 'can-i', ...action, ...as))
      for (const [n, answer] of answers.entries()) assert.equal(answer.stdout, 'yes\n', `${action.join(' ')} ${asArgs[n]!.join(' ')}: ${answer.stderr}`)
    }
  })
})
