/**
 * Where a command line comes from besides argv: `--file` (one line, or one flag per line with
 * `#` comments and shell quoting, a leading program word dropped) and `--manifest` (the API
 * server container of a static-pod manifest, `command` and `args`).
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'mocha'

import { gatherCommandLine } from '../../../src/core/flags/input.js'
import { UsageError, commandLineFromFile, commandLineFromManifest } from '../../../src/core/flags/sources.js'
import { validateServerCommandLine } from '../../../src/core/flags/validate.js'
import { fixture } from './support.js'

const read = (name: string) => readFileSync(fixture(name), 'utf8')

const usageError = (fn: () => unknown, message: string) =>
  assert.throws(fn, (err: Error) => {
    assert.ok(err instanceof UsageError, `a UsageError, got ${err.constructor.name}`)
    assert.equal(err.message, message)
    return true
  })

/** The flags of test/fixtures/flags/kube-apiserver.yaml, in order, without the program word. */
const KUBEADM_FLAGS = [
  '--advertise-address=192.168.56.10',
  '--allow-privileged=true',
  '--authorization-mode=Node,RBAC',
  '--client-ca-file=/etc/kubernetes/pki/ca.crt',
  '--enable-admission-plugins=NodeRestriction',
  '--enable-bootstrap-token-auth=true',
  '--etcd-cafile=/etc/kubernetes/pki/etcd/ca.crt',
  '--etcd-certfile=/etc/kubernetes/pki/apiserver-etcd-client.crt',
  '--etcd-keyfile=/etc/kubernetes/pki/apiserver-etcd-client.key',
  '--etcd-servers=https://127.0.0.1:2379',
  '--kubelet-client-certificate=/etc/kubernetes/pki/apiserver-kubelet-client.crt',
  '--kubelet-client-key=/etc/kubernetes/pki/apiserver-kubelet-client.key',
  '--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname',
  '--proxy-client-cert-file=/etc/kubernetes/pki/front-proxy-client.crt',
  '--proxy-client-key-file=/etc/kubernetes/pki/front-proxy-client.key',
  '--requestheader-allowed-names=front-proxy-client',
  '--requestheader-client-ca-file=/etc/kubernetes/pki/front-proxy-ca.crt',
  '--requestheader-extra-headers-prefix=X-Remote-Extra-',
  '--requestheader-group-headers=X-Remote-Group',
  '--requestheader-username-headers=X-Remote-User',
  '--secure-port=6443',
  '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
  '--service-account-key-file=/etc/kubernetes/pki/sa.pub',
  '--service-account-signing-key-file=/etc/kubernetes/pki/sa.key',
  '--service-cluster-ip-range=10.96.0.0/12',
  '--tls-cert-file=/etc/kubernetes/pki/apiserver.crt',
  '--tls-private-key-file=/etc/kubernetes/pki/apiserver.key',
]

describe('flags validate: command line sources', () => {
  describe('--file', () => {
    it('one line with the leading kube-apiserver program word dropped', () => {
      assert.deepEqual(commandLineFromFile(read('kube-apiserver.cmdline')), [
        '--etcd-servers=https://127.0.0.1:2379',
        '--authorization-mode=Node,RBAC',
        '--anonymous-auth=false',
        '--profiling=false',
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        '--service-account-key-file=/etc/kubernetes/pki/sa.pub',
        '--service-account-signing-key-file=/etc/kubernetes/pki/sa.key',
      ])
    })

    it('one flag per line: # comments and blank lines skipped, # inside a value kept, quotes removed', () => {
      assert.deepEqual(commandLineFromFile(read('kube-apiserver.flags')), [
        '--etcd-servers=https://127.0.0.1:2379',
        '--etcd-servers-overrides=/events#https://127.0.0.1:2381',
        '--authorization-mode=Node,RBAC',
        '--anonymous-auth=false',
        '--cors-allowed-origins=//example\\.com(:|$)',
        '--requestheader-allowed-names=front-proxy client',
        '--profiling=false',
      ])
    })

    it('a file of flags validates like the same flags on the command line', () => {
      const report = validateServerCommandLine(commandLineFromFile(read('kube-apiserver.flags')))
      assert.equal(report.valid, true, JSON.stringify(report.findings))
    })

    it('a path to the program, backslash-newline continuations and CRLF line ends', () => {
      assert.deepEqual(commandLineFromFile('/usr/local/bin/kube-apiserver \\\n  --secure-port=6443 \\\n  --profiling=false\n'), ['--secure-port=6443', '--profiling=false'])
      assert.deepEqual(commandLineFromFile('--secure-port=6443\r\n--profiling=false\r\n'), ['--secure-port=6443', '--profiling=false'])
      assert.deepEqual(commandLineFromFile('client server start --secure-port=1'), ['--secure-port=1'])
    })

    it('keeps a program word that is not first, and keeps space-separated values', () => {
      assert.deepEqual(commandLineFromFile('--secure-port 6443 --profiling kube-apiserver'), ['--secure-port', '6443', '--profiling', 'kube-apiserver'])
    })

    it('an empty file is an empty command line', () => {
      assert.deepEqual(commandLineFromFile('# nothing here\n\n'), [])
    })

    it('an unterminated quote is a usage error', () => {
      usageError(() => commandLineFromFile("--cors-allowed-origins='//example"), "unterminated ' quote at offset 23")
      usageError(() => commandLineFromFile('--oidc-username-prefix="oidc'), 'unterminated " quote at offset 23')
    })
  })

  describe('--manifest', () => {
    it('kubeadm static pod: the command list without the program word', () => {
      assert.deepEqual(commandLineFromManifest(read('kube-apiserver.yaml')), KUBEADM_FLAGS)
    })

    it('command with the program and args with the flags; a sidecar listed first is skipped', () => {
      assert.deepEqual(commandLineFromManifest(read('kube-apiserver-args.yaml')), [
        '--etcd-servers=https://10.0.0.11:2379,https://10.0.0.12:2379',
        '--etcd-cafile=/etc/kubernetes/pki/etcd/ca.crt',
        '--etcd-certfile=/etc/kubernetes/pki/apiserver-etcd-client.crt',
        '--etcd-keyfile=/etc/kubernetes/pki/apiserver-etcd-client.key',
        '--authorization-mode=Node,RBAC',
        '--anonymous-auth=false',
        '--profiling=false',
        '--secure-port=6443',
        '--kubelet-client-certificate=/etc/kubernetes/pki/apiserver-kubelet-client.crt',
        '--kubelet-client-key=/etc/kubernetes/pki/apiserver-kubelet-client.key',
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        '--service-account-key-file=/etc/kubernetes/pki/sa.pub',
        '--service-account-signing-key-file=/etc/kubernetes/pki/sa.key',
      ])
    })

    it('the args manifest validates for the reference server, with aliases noted', () => {
      const report = validateServerCommandLine(commandLineFromManifest(read('kube-apiserver-args.yaml')), { target: 'reference' })
      assert.equal(report.valid, true, JSON.stringify(report.findings.filter((f) => f.severity === 'error')))
      assert.deepEqual(
        report.findings.filter((f) => f.rule === 'ALIAS').map((f) => f.option),
        ['--store-servers', '--store-cafile', '--store-certfile', '--store-keyfile', '--nodeagent-client-certificate', '--nodeagent-client-key'],
      )
    })

    it('a workload manifest (template.spec.containers) and a multi-document file', () => {
      const deployment = 'kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - name: apiserver\n        args: [--secure-port=6443]\n'
      assert.deepEqual(commandLineFromManifest(deployment), ['--secure-port=6443'])
      const multi = `kind: ConfigMap\ndata: {}\n---\n${read('kube-apiserver-args.yaml')}`
      assert.equal(commandLineFromManifest(multi)[0], '--etcd-servers=https://10.0.0.11:2379,https://10.0.0.12:2379')
    })

    it('numbers and booleans in the lists are read as text', () => {
      const yaml = 'kind: Pod\nspec:\n  containers:\n  - name: kube-apiserver\n    command: [kube-apiserver, --secure-port, 6443, --profiling, false]\n'
      assert.deepEqual(commandLineFromManifest(yaml), ['--secure-port', '6443', '--profiling', 'false'])
    })

    it('no API server container is a usage error', () => {
      usageError(() => commandLineFromManifest(read('no-apiserver.yaml')), 'the manifest has no API server container (a container named like *apiserver* or running kube-apiserver)')
      usageError(() => commandLineFromManifest(''), 'the manifest has no API server container (a container named like *apiserver* or running kube-apiserver)')
    })

    it('a command that is not a list is a usage error', () => {
      const yaml = 'kind: Pod\nspec:\n  containers:\n  - name: kube-apiserver\n    command: kube-apiserver --secure-port=6443\n'
      usageError(() => commandLineFromManifest(yaml), 'container "kube-apiserver" command must be a list of strings')
    })

    it('invalid YAML is a usage error naming the first line of the cause', () => {
      usageError(() => commandLineFromManifest('a: [\n'), 'the manifest is not valid YAML: unexpected end of the stream within a flow collection (2:1)')
    })
  })

  describe('gathering the input', () => {
    it('argv as given when there is no file', () => {
      assert.deepEqual(gatherCommandLine({ argv: ['--secure-port=1'] }), ['--secure-port=1'])
    })
    it('reads --file and --manifest paths', () => {
      assert.deepEqual(gatherCommandLine({ argv: [], file: fixture('kube-apiserver.cmdline') })[0], '--etcd-servers=https://127.0.0.1:2379')
      assert.deepEqual(gatherCommandLine({ argv: [], manifest: fixture('kube-apiserver.yaml') }), KUBEADM_FLAGS)
    })
    it('a missing file is a usage error', () => {
      usageError(() => gatherCommandLine({ argv: [], file: '/nonexistent/flags.txt' }), 'cannot read the file "/nonexistent/flags.txt": no such file')
      usageError(() => gatherCommandLine({ argv: [], manifest: '/nonexistent/kube-apiserver.yaml' }), 'cannot read the manifest "/nonexistent/kube-apiserver.yaml": no such file')
    })
    it('two sources at once are a usage error', () => {
      usageError(() => gatherCommandLine({ argv: [], file: 'a', manifest: 'b' }), 'give either --file or --manifest, not both')
      usageError(() => gatherCommandLine({ argv: ['--secure-port=1'], file: fixture('kube-apiserver.cmdline') }), 'give the flags either after -- or in --file/--manifest, not both')
    })
  })
})
