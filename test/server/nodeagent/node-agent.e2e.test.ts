/**
 * Node agents end to end: the built server, a test node agent on loopback registered as a Node
 * (its InternalIP and daemonEndpoints port), and the real kubectl 1.35 and 1.32. `kubectl logs`
 * (also `-f`, which ends when the agent ends the stream) and `kubectl exec` (WebSocket
 * v5.channel.k8s.io: output, stdin, the exit code of the status channel) reach the agent
 * through the server; the errors are the reference's (a pod no node runs, a container to
 * choose, a node without a preferred address).
 *
 * The server runs with --nodeagent-preferred-address-types=InternalIP, the agent's CA and a
 * client certificate: the node also lists a Hostname that resolves nowhere, which the default
 * order would pick first.
 */
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { KubectlSession } from '../../support/kubectl-session.js'
import { describeEachKubectl } from '../../support/kubectl-versions.js'
import { TestNodeAgent } from '../../support/node-agent.js'
import { createCaCertificate, createLeafCertificate, generateKey, privateKeyPem } from '../../../src/server/tls/generate.js'

/** A client certificate (CN `kube-apiserver-kubelet-client`) for the server to present to the agent. */
async function clientCertificate(dir: string): Promise<{ cert: string; key: string }> {
  const notBefore = new Date(Date.now() - 3_600_000)
  const notAfter = new Date(Date.now() + 86_400_000)
  const caKey = await generateKey('ecdsa')
  const caPem = await createCaCertificate({ key: caKey, commonName: 'client-ca', notBefore, notAfter })
  const key = await generateKey('ecdsa')
  const certPem = await createLeafCertificate({
    ca: { certPem: caPem, privateKey: caKey.privateKey },
    publicKey: key.publicKey,
    commonName: 'kube-apiserver-kubelet-client',
    dns: [],
    ips: [],
    usage: 'client',
    notBefore,
    notAfter,
  })
  const cert = join(dir, 'nodeagent-client.crt')
  const keyFile = join(dir, 'nodeagent-client.key')
  writeFileSync(cert, certPem)
  writeFileSync(keyFile, privateKeyPem(key.privateKey))
  return { cert, key: keyFile }
}

describeEachKubectl('node agents: logs and exec through the server (end to end)', function (client) {
  this.timeout(120_000)
  let agent: TestNodeAgent
  let session: KubectlSession

  before(async function () {
    agent = await TestNodeAgent.start()
    const dir = (await import('node:fs')).mkdtempSync(join((await import('node:os')).tmpdir(), 'nodeagent-certs-'))
    const caFile = join(dir, 'agent-ca.crt')
    writeFileSync(caFile, agent.caPem)
    const creds = await clientCertificate(dir)
    session = await KubectlSession.open(this, 'nodeagent-', {
      waitFor: 'ready',
      kubectl: client.tool,
      args: [
        '--nodeagent-preferred-address-types=InternalIP',
        `--nodeagent-certificate-authority=${caFile}`,
        `--nodeagent-client-certificate=${creds.cert}`,
        `--nodeagent-client-key=${creds.key}`,
        '--nodeagent-timeout=3s',
      ],
    })
    const node = agent.node('agent-node', [{ type: 'Hostname', address: 'agent-node.invalid' }])
    await session.ok('create', '-f', session.file('node.json', JSON.stringify(node)))
    // A node's status is its agent's to write: set through the status subresource.
    await session.ok('patch', 'node', 'agent-node', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: node.status }))
    const pod = (name: string, containers: string[], nodeName?: string) =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: 'default' },
        spec: { ...(nodeName ? { nodeName } : {}), containers: containers.map((c) => ({ name: c, image: 'busybox' })) },
      })
    await session.ok('create', '-f', session.file('p1.json', pod('p1', ['c1'], 'agent-node')))
    await session.ok('create', '-f', session.file('p2.json', pod('p2', ['a', 'b'], 'agent-node')))
    await session.ok('create', '-f', session.file('p3.json', pod('p3', ['c1'])))
    agent.logs.set('default/p1/c1', 'first line\nsecond line\n')
    agent.logs.set('default/p2/b', 'from b\n')
  })
  after(async () => {
    await session?.close()
    await agent?.close()
  })

  it('kubectl logs prints what the agent serves for the pod\'s only container, through its CA and with the client certificate', async () => {
    assert.equal(await session.ok('logs', 'p1'), 'first line\nsecond line\n')
    const seen = agent.requests.filter((r) => r.path === '/containerLogs/default/p1/c1').at(-1)
    assert.ok(seen, 'the agent saw the request')
    assert.equal(seen.clientCommonName, 'kube-apiserver-kubelet-client')
  })

  it('kubectl logs passes the options on as the reference does (tail, timestamps, limit)', async () => {
    await session.ok('logs', 'p1', '--tail=1', '--timestamps', '--limit-bytes=5')
    const seen = agent.requests.filter((r) => r.path === '/containerLogs/default/p1/c1').at(-1)!
    assert.equal(seen.query.get('tailLines'), '1')
    assert.equal(seen.query.get('timestamps'), 'true')
    assert.equal(seen.query.get('limitBytes'), '5')
  })

  it('kubectl logs -c picks a container; an unknown one is the reference\'s 400', async () => {
    assert.equal(await session.ok('logs', 'p2', '-c', 'b'), 'from b\n')
    const unknown = await session.run('logs', 'p2', '-c', 'zz')
    assert.match(unknown.stderr, /container zz is not valid for pod p2/)
  })

  it('the server answers the reference\'s 400 for a pod of several containers without one named', async () => {
    const r = await session.run('get', '--raw', '/api/v1/namespaces/default/pods/p2/log')
    assert.match(r.stderr, /a container name must be specified for pod p2, choose one of: \[a b\]/)
  })

  it('kubectl logs -f streams until the agent ends the stream', async () => {
    agent.followMs = 500
    // What the agent writes after a pause, just before it ends the stream, is printed too.
    assert.equal(await session.ok('logs', '-f', 'p1'), 'first line\nsecond line\nwritten later\n')
    const seen = agent.requests.filter((r) => r.path === '/containerLogs/default/p1/c1').at(-1)!
    assert.equal(seen.query.get('follow'), 'true')
  })

  it('PodLogOptions are validated as the reference (tailLines, limitBytes, sinceSeconds with sinceTime)', async () => {
    const r = await session.run('get', '--raw', '/api/v1/namespaces/default/pods/p1/log?tailLines=-1&limitBytes=0')
    // kubectl prints an Invalid Status's causes one a line.
    assert.match(r.stderr, /The PodLogOptions "p1" is invalid: \n\* tailLines: Invalid value: -1: must be greater than or equal to 0\n\* limitBytes: Invalid value: 0: must be greater than 0\n/)
    const both = await session.run('get', '--raw', '/api/v1/namespaces/default/pods/p1/log?sinceSeconds=5&sinceTime=2024-01-01T00:00:00Z')
    assert.match(both.stderr, /at most one of `sinceTime` or `sinceSeconds` may be specified/)
  })

  it('kubectl exec runs the command on the agent and prints its output', async () => {
    assert.equal(await session.ok('exec', 'p1', '--', 'echo', 'hi', 'there'), 'hi there\n')
    const seen = agent.requests.filter((r) => r.path === '/exec/default/p1/c1').at(-1)!
    assert.deepEqual(seen.query.getAll('command'), ['echo', 'hi', 'there'])
    assert.equal(seen.query.get('output'), '1')
    assert.equal(seen.headers.authorization, undefined, 'the client\'s credentials are not passed on')
    // kubectl 1.32 and 1.35 open exec over WebSocket, offering the v5 channel protocol.
    assert.equal(seen.headers.upgrade, 'websocket')
    assert.match(String(seen.headers['sec-websocket-protocol']), /v5\.channel\.k8s\.io/)
  })

  it('kubectl exec -i sends stdin and reads it back', async () => {
    const r = await session.runWithInput('hello from stdin\n', 'exec', '-i', 'p1', '--', 'cat')
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, 'hello from stdin\n')
  })

  it('kubectl exec propagates the exit code of the status channel', async () => {
    const r = await session.run('exec', 'p1', '--', 'exit', '3')
    assert.equal(r.code, 3)
    assert.match(r.stderr, /command terminated with exit code 3/)
  })

  it('kubectl attach reaches the agent\'s /attach/<ns>/<pod>/<container>', async () => {
    assert.equal(await session.ok('attach', 'p1'), 'attached to c1\n')
    const seen = agent.requests.filter((r) => r.path === '/attach/default/p1/c1').at(-1)!
    assert.equal(seen.query.get('output'), '1')
  })

  it('kubectl exec into a pod no node runs prints the reference\'s error', async () => {
    const r = await session.run('exec', 'p3', '--', 'echo', 'hi')
    assert.notEqual(r.code, 0)
    assert.match(r.stderr, /pod p3 does not have a host assigned/)
  })

  it('the logs of a pod no node runs are empty, as the reference\'s empty location', async () => {
    assert.equal(await session.ok('logs', 'p3'), '')
  })
})
