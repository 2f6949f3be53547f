/**
 * `kubectl port-forward` to a pod of `client cluster start`, with the real kubectl 1.35 (and
 * 1.32): kubectl's own listener is read with Node's HTTP client. An nginx pod answers on port 80
 * with the official image's page (its `<h1>Welcome to nginx!</h1>`, 615 bytes); a port nothing
 * listens on fails as on a kubelet with containerd: kubectl prints its `an error occurred
 * forwarding L -> R` with the runtime's `connection refused` and ends with `lost connection to pod`.
 */
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { get } from 'node:http'
import { openCluster, waitForKubectl } from '../../support/cluster.js'
import type { KubectlSession } from '../../support/kubectl-session.js'
import { requireTool } from '../../support/tools.js'

interface Forwarding {
  child: ChildProcess
  port: number
  output: () => string
  exited: Promise<number | null>
}

/** Starts `kubectl port-forward pod/<pod> :<remote>` and resolves once kubectl names its local port. */
function portForward(kubectl: string, session: KubectlSession, pod: string, remote: number, env: Record<string, string> = {}): Promise<Forwarding> {
  // -v=6 names the dialer kubectl used (tunneling_dialer.go, fallback_dialer.go).
  const child = spawn(kubectl, [...session.base, '-v=6', 'port-forward', '--address=127.0.0.1', `pod/${pod}`, `:${remote}`], { env: { ...process.env, HOME: session.tmp, ...env } })
  let out = ''
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`kubectl port-forward did not start: ${out}`)), 20_000)
    const onData = (d: Buffer) => {
      out += d.toString()
      // client-go's portforward: "Forwarding from 127.0.0.1:<local> -> <remote>"
      const m = /Forwarding from 127\.0\.0\.1:(\d+) -> (\d+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve({ child, port: Number(m[1]), output: () => out, exited })
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    void exited.then(() => reject(new Error(`kubectl port-forward exited: ${out}`)))
  })
}

function fetch(port: number, path = '/'): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port, path, agent: false, timeout: 15_000 }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => (body += d))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('timeout', () => req.destroy(new Error('timed out')))
    req.on('error', reject)
  })
}

describe('cluster start: kubectl port-forward to a simulated pod', function () {
  this.timeout(120_000)
  let k: KubectlSession
  const running: ChildProcess[] = []

  before(async function () {
    k = await openCluster(this, 'cluster-port-forward-')
    await k.ok('run', 'web', '--image=nginx')
    await k.ok('run', 'tools', '--image=busybox', '--', 'sleep', '3600')
    await waitForKubectl(k, ['get', 'pods', '-o', 'jsonpath={.items[*].status.phase}'], /^Running Running$/)
  })
  afterEach(() => {
    for (const child of running.splice(0)) if (child.exitCode === null) child.kill()
  })
  after(async () => k?.close())

  // kubectl ≥ 1.31 tunnels SPDY in a WebSocket; KUBECTL_PORT_FORWARD_WEBSOCKETS=false makes it speak SPDY/3.1 itself.
  const variants = [
    { tool: 'kubectl', env: {}, tunnelled: true },
    { tool: 'kubectl-1.32', env: {}, tunnelled: true },
    { tool: 'kubectl', env: { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' }, tunnelled: false },
  ] as const
  for (const { tool, env, tunnelled } of variants) {
    it(`${tool}${tunnelled ? ' (SPDY in a WebSocket)' : ' (SPDY/3.1)'}: the nginx pod's port 80 answers the official image's default page, over several connections`, async function () {
      const kubectl = requireTool(this, tool)
      const forwarding = await portForward(kubectl, k, 'web', 80, env)
      running.push(forwarding.child)
      for (let i = 0; i < 3; i++) {
        const res = await fetch(forwarding.port)
        assert.equal(res.status, 200)
        assert.ok(res.body.includes('<h1>Welcome to nginx!</h1>'), res.body)
        // The official image's /usr/share/nginx/html/index.html is 615 bytes.
        assert.equal(res.headers['content-length'], '615')
        assert.match(String(res.headers.server), /^nginx\//)
      }
      const missing = await fetch(forwarding.port, '/missing')
      assert.equal(missing.status, 404)
      assert.match(missing.body, /<center><h1>404 Not Found<\/h1><\/center>/)
      assert.equal(forwarding.child.exitCode, null, forwarding.output())
      const out = forwarding.output()
      if (tunnelled) {
        assert.match(out, /negotiated protocol: portforward\.k8s\.io/)
        assert.doesNotMatch(out, /fallback to secondary dialer/)
      } else assert.doesNotMatch(out, /tunneling_dialer/)
    })
  }

  it('a port nothing listens on: the runtime refuses, kubectl reports it and loses the pod', async function () {
    const kubectl = requireTool(this, 'kubectl')
    const forwarding = await portForward(kubectl, k, 'tools', 8080)
    running.push(forwarding.child)
    // The local connection is accepted, then closed without data.
    await assert.rejects(fetch(forwarding.port))
    const code = await forwarding.exited
    assert.equal(code, 1)
    const out = forwarding.output()
    assert.match(out, new RegExp(`an error occurred forwarding ${forwarding.port} -> 8080: error forwarding port 8080 to pod [0-9a-f]{64}, uid : `))
    assert.match(out, /failed to connect to localhost:8080 inside namespace .*dial tcp4 127\.0\.0\.1:8080: connect: connection refused/)
    assert.match(out, /error: lost connection to pod/)
  })
})
