/**
 * The proxies' way through, in process: services/proxy resolved through the Service's port
 * and Endpoints (an address of a pod with that IP) and nodes/proxy to the node's agent with
 * its own transport (CA verified), each reaching the test agent through an egress dialer that
 * records the address the reference would dial and connects to the agent on loopback (the
 * Endpoints and pod addresses the real path needs cannot be loopback ones).
 */
import assert from 'node:assert/strict'
import { createServer, request, type Server } from 'node:http'
import { mkdtempSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { VirtualScope } from '../../../src/server/api/index.js'
import type { Registry } from '../../../src/server/api/registry/registry.js'
import { toApiError } from '../../../src/server/api/status-errors.js'
import { DIRECT_DIALER } from '../../../src/server/egress/dialer.js'
import type { RequestContext } from '../../../src/server/http/types.js'
import { NodeAgentClient } from '../../../src/server/nodeagent/client.js'
import { type ProxiedResource, proxyHandler } from '../../../src/server/nodeagent/proxy.js'
import { TestNodeAgent } from '../../support/node-agent.js'

type Obj = Record<string, unknown>

const OBJECTS: Record<string, Obj> = {
  'pods/default/web': { metadata: { name: 'web' }, status: { podIPs: [{ ip: '10.1.2.3' }] } },
  'services/default/svc': { spec: { ports: [{ name: 'https', port: 443 }] } },
  'endpoints/default/svc': {
    subsets: [{ addresses: [{ ip: '10.1.2.3', targetRef: { kind: 'Pod', namespace: 'default', name: 'web' } }], ports: [{ name: 'https', port: 8443 }] }],
  },
}

describe('server: node agent proxies (in process)', () => {
  let agent: TestNodeAgent
  let server: Server
  let port: number
  const dialed: string[] = []
  let resource: ProxiedResource = 'services'
  let unverified: NodeAgentClient
  let verified: NodeAgentClient
  /** The client the handler uses: without a CA unless a test sets the verifying one. */
  let client: NodeAgentClient

  before(async () => {
    agent = await TestNodeAgent.start()
    const dir = mkdtempSync(join(tmpdir(), 'nodeagent-proxy-'))
    writeFileSync(join(dir, 'ca.crt'), agent.caPem)
    OBJECTS['nodes//n1'] = { status: { addresses: [{ type: 'InternalIP', address: '10.9.9.9' }], daemonEndpoints: { kubeletEndpoint: { Port: 10250 } } } }
    const dialer = {
      dial: (network: 'cluster' | 'controlplane' | 'etcd', host: string, p: number) => {
        dialed.push(`${network} ${host}:${p}`)
        return DIRECT_DIALER.dial(network, '127.0.0.1', agent.port)
      },
    }
    unverified = new NodeAgentClient({ preferredAddressTypes: ['InternalIP'], timeoutMs: 2000, dialer })
    verified = new NodeAgentClient({ caFile: join(dir, 'ca.crt'), preferredAddressTypes: ['InternalIP'], timeoutMs: 2000, dialer })
    const registry = {
      lookup: (_g: string, _v: string, r: string) => ({
        get: async (ns: string | undefined, name: string) => {
          const found = OBJECTS[`${r}/${ns ?? ''}/${name}`]
          if (!found) throw new Error(`${r} ${name} not found`)
          return found
        },
      }),
      options: {},
    } as unknown as Registry
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x')
      const parts = url.pathname.split('/').slice(1)
      const scope = {
        req,
        res,
        ctx: { info: { parts, path: url.pathname }, rawQuery: url.search.slice(1) } as unknown as RequestContext,
        registry,
        ...(resource === 'nodes' ? {} : { namespace: 'default' }),
        name: parts[1]!,
        query: url.searchParams,
      } as VirtualScope
      proxyHandler(resource, client)(scope).catch((err: unknown) => {
        const apiErr = toApiError(err)
        res.writeHead(apiErr.code, { 'Content-Type': 'application/json' })
        res.end(JSON.stringify(apiErr.status))
      })
    })
    client = unverified
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })
  after(async () => {
    server.close()
    await agent.close()
  })

  const call = (method: string, path: string, body = '') =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method, path }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }))
      })
      req.on('error', reject)
      req.end(body)
    })

  it('services/<https:name:port>/proxy/<path> goes to the endpoint address of the port\'s name, with method, path, query and body', async () => {
    resource = 'services'
    dialed.length = 0
    const got = await call('POST', '/services/https:svc:443/proxy/echo/a/b?x=1', 'payload')
    assert.equal(got.status, 200, got.text)
    assert.deepEqual(JSON.parse(got.text), { method: 'POST', path: '/echo/a/b', query: '?x=1', body: 'payload' })
    assert.deepEqual(dialed, ['cluster 10.1.2.3:8443'])
  })

  it('services/<name:portName> names the port by name', async () => {
    resource = 'services'
    dialed.length = 0
    const got = await call('GET', '/services/https:svc:https/proxy/echo/')
    assert.equal(got.status, 200, got.text)
    assert.equal(JSON.parse(got.text).path, '/echo/')
    assert.deepEqual(dialed, ['cluster 10.1.2.3:8443'])
  })

  it('nodes/<name>/proxy/<path> goes to the node\'s agent over its own transport', async () => {
    resource = 'nodes'
    dialed.length = 0
    const got = await call('GET', '/nodes/n1/proxy/echo/stats')
    assert.equal(got.status, 200, got.text)
    assert.equal(JSON.parse(got.text).path, '/echo/stats')
    assert.deepEqual(dialed, ['cluster 10.9.9.9:10250'])
  })

  it('nodes/proxy checks the agent\'s certificate against the CA and the node\'s address', async () => {
    resource = 'nodes'
    client = verified
    try {
      // The agent's certificate names 127.0.0.1 and localhost, not the node's 10.9.9.9.
      const got = await call('GET', '/nodes/n1/proxy/echo/stats')
      assert.equal(got.status, 500)
      assert.match(JSON.parse(got.text).message, /IP: 10\.9\.9\.9 is not in the cert's list: 127\.0\.0\.1/)
    } finally {
      client = unverified
    }
  })

  it('an id that is not name, name:port or scheme:name:port is the reference\'s 400', async () => {
    resource = 'services'
    const got = await call('GET', '/services/a:b:c:d/proxy/')
    assert.equal(got.status, 400)
    assert.equal(JSON.parse(got.text).message, 'invalid service request "a:b:c:d"')
  })
})
