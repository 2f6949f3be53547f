/**
 * The node agent client: the address chosen by --nodeagent-preferred-address-types (the
 * reference's GetPreferredNodeAddress and its NoMatchError), the default port 10250, the
 * --nodeagent-timeout on a dial that never completes, and the certificate check against
 * --nodeagent-certificate-authority (none: not verified, as the reference's transport).
 */
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Registry } from '../../../src/server/api/registry/registry.js'
import { ApiError } from '../../../src/server/api/status-errors.js'
import { DIRECT_DIALER } from '../../../src/server/egress/dialer.js'
import { NodeAgentClient, preferredAddress } from '../../../src/server/nodeagent/client.js'
import { TestNodeAgent } from '../../support/node-agent.js'

const DEFAULT_TYPES = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP']

/** A registry holding only `nodes`. */
function registryWith(nodes: Record<string, unknown>): Registry {
  return { lookup: (_g: string, _v: string, r: string) => (r === 'nodes' ? { get: async (_ns: unknown, name: string) => nodes[name] } : undefined) } as unknown as Registry
}

describe('server: node agent client', () => {
  it('picks the first address of the first preferred type present', () => {
    const addresses = [
      { type: 'ExternalIP', address: '203.0.113.1' },
      { type: 'InternalIP', address: '10.0.0.1' },
      { type: 'Hostname', address: 'node-1' },
    ]
    assert.equal(preferredAddress(addresses, DEFAULT_TYPES), 'node-1')
    assert.equal(preferredAddress(addresses, ['InternalIP', 'Hostname']), '10.0.0.1')
  })

  it('answers the reference\'s NoMatchError when no address has a preferred type', () => {
    assert.throws(
      () => preferredAddress([{ type: 'ExternalIP', address: '203.0.113.1' }], ['InternalIP']),
      (err: unknown) => err instanceof ApiError && err.code === 500 && err.message === 'no preferred addresses found; known addresses: [{ExternalIP 203.0.113.1}]',
    )
  })

  it('uses the node\'s daemonEndpoints port, or 10250 when it reports none', async () => {
    const client = new NodeAgentClient({ preferredAddressTypes: DEFAULT_TYPES, timeoutMs: 1000, dialer: DIRECT_DIALER })
    const registry = registryWith({
      a: { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: 11250 } } } },
      b: { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.2' }] } },
    })
    assert.deepEqual(await client.location(registry, 'a'), { host: '10.0.0.1', port: 11250 })
    assert.deepEqual(await client.location(registry, 'b'), { host: '10.0.0.2', port: 10250 })
  })

  it('gives up a dial after --nodeagent-timeout', async () => {
    const never = { dial: () => new Promise<never>(() => undefined) }
    const client = new NodeAgentClient({ preferredAddressTypes: DEFAULT_TYPES, timeoutMs: 100, dialer: never })
    // The dial never completes: only the timeout can end it.
    await assert.rejects(client.connect({ host: '10.0.0.1', port: 10250 }), /dial tcp 10\.0\.0\.1:10250: i\/o timeout/)
  })

  describe('with a test agent', () => {
    let agent: TestNodeAgent
    before(async () => {
      agent = await TestNodeAgent.start()
    })
    after(async () => {
      await agent.close()
    })

    it('connects through the egress dialer it is given, with the cluster network', async () => {
      const networks: string[] = []
      const dialer = { dial: (network: 'cluster' | 'controlplane' | 'etcd', host: string, port: number) => (networks.push(network), DIRECT_DIALER.dial(network, host, port)) }
      const client = new NodeAgentClient({ preferredAddressTypes: DEFAULT_TYPES, timeoutMs: 2000, dialer })
      const socket = await client.connect({ host: '127.0.0.1', port: agent.port })
      socket.destroy()
      assert.deepEqual(networks, ['cluster'])
    })

    it('verifies the agent against the CA when one is given, and not at all without one', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'nodeagent-client-'))
      const right = join(dir, 'right.crt')
      writeFileSync(right, agent.caPem)
      const other = await TestNodeAgent.start()
      const wrong = join(dir, 'wrong.crt')
      writeFileSync(wrong, other.caPem)
      await other.close()
      const client = (caFile?: string) => new NodeAgentClient({ ...(caFile ? { caFile } : {}), preferredAddressTypes: DEFAULT_TYPES, timeoutMs: 2000, dialer: DIRECT_DIALER })
      const location = { host: '127.0.0.1', port: agent.port }
      ;(await client(right).connect(location)).destroy()
      ;(await client().connect(location)).destroy()
      await assert.rejects(client(wrong).connect(location), /certificate/)
      // insecureSkipTLSVerifyBackend skips the check even with a CA.
      ;(await client(wrong).connect(location, true)).destroy()
    })
  })
})
