/**
 * The code and the tests read nothing outside the repository: no absolute path of the machine
 * they were written on, no `../shared` next to the checkout. Fixtures are copied into
 * test/fixtures/ by a script under scripts/; the programs the tests run are listed once, in
 * test/support/tools.json. Absolute paths that are only values (a default the reference
 * documents, a made-up path a parser is fed, an operating-system file) are allowed one by one
 * below, each with the reason.
 */
import assert from 'node:assert/strict'
import { codeFiles, scan, showHits as show } from '../support/source-scan.js'

/**
 * A quoted string (or file: URL) that starts with a top-level folder of a Unix file system. URL
 * paths of the API (`/api/v1`, `/readyz`) start elsewhere and are not matched.
 */
const ABSOLUTE = /(?:['"`]|file:\/\/)(\/(?:work|home|root|Users|usr|opt|tmp|var|etc|srv|mnt|media|private|proc|sys|dev|bin|sbin|lib|lib64|nix|snap|run)(?:\/[^'"`\s]*)?)(?=['"`\s])/g

/** file -> absolute path literal -> why it is not a path of this machine the code depends on. */
const ALLOWED: Record<string, Record<string, string>> = {
  'src/server/api/kinds/pod-defaults.ts': { '/dev/termination-log': "the reference's default terminationMessagePath of a container" },
  'src/server/offline/dry-run-server.ts': { '/dev/shm': "Linux's memory file system, where client validate's throw-away store goes when the machine has one" },
  'test/commands/cluster/start.test.ts': { '/bin/sh': "the shell kubectl exec runs inside a simulated pod's container (the Python client's exec test sends it)" },
  'src/server/simnodes/pod-port-forwarder.ts': {
    '/var/run/netns/cni-<uuid>': "the network-namespace path in containerd's refusal text, quoted, never opened",
    '/var/run/netns/cni-${h.slice(0,': "the network-namespace path in containerd's refusal text, quoted, never opened",
  },
  'test/server/e2e/kubectl-cmd-apps.e2e.test.ts': { '/bin/sleep': "the container command of the reference's `kubectl create deployment ... -- /bin/sleep infinity`, never run on this machine" },
  'test/server/simnodes/simulated-shell.test.ts': { '/bin/sh': "a command line inside a simulated container, never run on this machine" },
  'src/server/controllers/volume/simulated-provisioner.ts': { '/var/local-path-provisioner': "the hostPath directory written into a simulated provisioned PersistentVolume (kind's local-path provisioner's); nothing is created there" },
  'src/server/paths/logs.ts': { '/var/log': "the reference's /logs directory (kube-apiserver serves /var/log)" },
  'src/server/admission/serviceaccount.ts': { '/var/run/secrets/kubernetes.io/serviceaccount': "the reference's DefaultAPITokenMountPath, a path inside the pod's containers" },
  'test/server/admission/serviceaccount.test.ts': { '/var/run/secrets/kubernetes.io/serviceaccount': "the expected mount path of the token volume inside a pod's containers" },
  'test/server/admission/serviceaccount-limitranger.e2e.test.ts': { '/var/run/secrets/kubernetes.io/serviceaccount': "the expected mount path of the token volume inside a pod's containers" },
  'test/core/config-files/admission-config.test.ts': {
    '/tmp/image-policy-webhook.json': 'a made-up absolute plugin path the parser is fed, to see it kept as is',
    '/home/user/.kube/config': 'a made-up kubeconfig path inside a legacy configuration the parser is fed',
  },
  'test/core/apply/field-manager.test.ts': { '/dev/termination-log': 'a defaulted container field inside a sample object' },
  'test/server/api/builtin-kinds.test.ts': { '/dev/termination-log': 'the expected defaulted container field' },
  'test/server/api/kubectl-openapi-v2.e2e.test.ts': { '/dev/termination-log': 'the expected defaulted container field' },
  'test/server/api/validation.e2e.test.ts': { '/dev/termination-log': 'the expected defaulted container field' },
  'test/server/api/validation/cluster.test.ts': { '/mnt': "a local PersistentVolume's path inside a sample object" },
  'test/server/api/validation/pods.test.ts': {
    '/etc/x': 'an absolute volume item path the pod validation must reject',
    '/etc/cfg': "a container's mount path inside a sample pod",
  },
  'test/core/client/general-options.test.ts': {
    '/home/u': 'a made-up HOME passed to the cache-directory expansion',
    '/home/u/.client/cache': 'the expansion of the made-up HOME',
  },
  'test/core/flags/rules.test.ts': { '/run/../signer.sock': 'a made-up socket path the option validation must reject' },
  'test/core/flags/sources.test.ts': { '/usr/local/bin/kube-apiserver': 'the program name at the head of a made-up command line, dropped by the parser' },
  'test/server/encryption/encryption.test.ts': { '/etc/enc.yaml': 'the file name a parsed in-memory configuration is reported under' },
  'test/server/paths/pprof.test.ts': {
    '/bin/client': 'a made-up argv[0] of the command line pprof reports',
    '/bin/client\\0server': 'the NUL-joined command line pprof reports for that argv',
  },
  'test/server/store/etcd-faults.test.ts': { '/proc/${pid}/stat': "Linux's process state of the etcd the test stopped (SIGSTOP), not a file of this machine" },
  'test/server/store/sqlite-wal-checkpoint.test.ts': { '/proc/self/fd/${fd}': "Linux's name of the file a descriptor the store syncs refers to, not a file of this machine" },
  'test/server/fuzz.e2e.test.ts': { '/proc/${pid}/status': "Linux's memory figures of the server process under test" },
  'test/server/api/list-stream.e2e.test.ts': { '/proc/${pid}/status': "Linux's memory figures of the server process under test" },
  'test/server/api/watch-slow-watchers.e2e.test.ts': { '/proc/${pid}/status': "Linux's memory figures of the server process under test" },
  'test/server/store/sqlite-startup.test.ts': {
    '/srv/xdg': 'a made-up XDG_DATA_HOME',
    '/srv/xdg/client/data': 'the data directory derived from it',
    '/proc/self/store-data': 'a Linux kernel file system that refuses new directories: the store must report it',
    '/sys/kernel': 'a Linux kernel file system that refuses new files: the store must report it',
  },
  'test/server/tls/generation.test.ts': { '/srv/state': 'a made-up XDG_STATE_HOME' },
  'test/server/authorization/config.test.ts': { '/etc/hook.kubeconfig': 'a made-up webhook kubeconfig path the configuration parser only carries' },
}

// Spelled in pieces so that this file does not itself name the folders it forbids.
const WORK = ['wo', 'rk'].join('')
const SHARED = ['sha', 'red'].join('')
const OUTSIDE = new RegExp(`(\\.\\./${SHARED}|/${WORK}/)`, 'g')

describe('project: nothing outside the repository', () => {
  const files = codeFiles('src', 'test')

  it('finds the code files it checks', () => {
    assert.ok(files.includes('test/project/no-outside-paths.test.ts'))
    assert.ok(files.some((f) => f.startsWith('src/')))
  })

  it('no file of src/ or test/ refers to the shared folder beside the repository or the work folder of this machine', () => {
    const self = 'test/project/no-outside-paths.test.ts'
    const hits = scan(files.filter((f) => f !== self), OUTSIDE)
    assert.equal(show(hits), '', 'copy what is needed into test/fixtures/ with a script under scripts/')
  })

  it('no absolute path of the machine in src/ or test/ (the programs the tests run are in test/support/tools.json)', () => {
    const self = 'test/project/no-outside-paths.test.ts'
    const hits = scan(files.filter((f) => f !== self), ABSOLUTE).filter((h) => ALLOWED[h.file]?.[h.text] === undefined)
    assert.equal(show(hits), '', 'use a path under test/fixtures/ or a temporary directory, or list the program in test/support/tools.json')
  })

  it('every allowed absolute path is still there (the allow-list does not rot)', () => {
    const found = new Set(scan(files, ABSOLUTE).map((h) => `${h.file} ${h.text}`))
    const stale = Object.entries(ALLOWED).flatMap(([file, paths]) => Object.keys(paths).map((p) => `${file} ${p}`)).filter((k) => !found.has(k))
    assert.deepEqual(stale, [])
  })

  it('the pattern catches what it is meant to catch', () => {
    const texts = (line: string): string[] => [...line.matchAll(ABSOLUTE)].map((m) => m[1]!)
    const corpus = `/${WORK}/shared/conformance/patch/cases`
    assert.deepEqual(texts(`const corpus = '${corpus}'`), [corpus])
    assert.equal([...`readFileSync('../${SHARED}/x')`.matchAll(OUTSIDE)].length, 1)
    assert.deepEqual(texts('const KUBECTL = "/usr/lib/google-cloud-sdk/bin/kubectl.1.32"'), ['/usr/lib/google-cloud-sdk/bin/kubectl.1.32'])
    assert.deepEqual(texts('readFileSync(`/home/someone/x.json`)'), ['/home/someone/x.json'])
    assert.deepEqual(texts(`new URL('file:///tmp/x')`), ['/tmp/x'])
    assert.deepEqual(texts(`server.get('/api/v1/namespaces')`), [])
    assert.deepEqual(texts(`server.get('/readyz')`), [])
    assert.deepEqual(texts(`f.endsWith('/run.ts')`), [], 'a file name, not the /run folder')
  })
})
