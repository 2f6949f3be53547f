/**
 * The egress dialers against test proxies on loopback: bytes go both ways through an HTTP
 * CONNECT tunnel (TCP and Unix socket) and through a konnectivity server's gRPC stream (its
 * upstream client.proto decoded by proto-loader, so the hand-encoded packets are checked
 * against the real schema); each proxy records the address asked for.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import net, { type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Duplex } from 'node:stream'
import { writeFileSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import { egressAgent } from '../../../src/server/egress/agent.js'
import { DIRECT_DIALER } from '../../../src/server/egress/dialer.js'
import { installEgressDialer } from '../../../src/server/egress/installed.js'
import { AdmissionWebhookServer } from '../../support/admission-webhook.js'
import { egressDialerFor, egressDialerFromFile } from '../../../src/server/egress/selector.js'
import { ConnectProxy } from '../../support/connect-proxy.js'
import { KonnectivityServer } from '../../support/konnectivity-server.js'

/** Writes `text`, reads the echo back, closes. */
async function roundTrip(stream: Duplex, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = ''
    stream.on('data', (d: Buffer) => {
      got += d.toString()
      if (got.length >= text.length) {
        stream.end()
        resolve(got)
      }
    })
    stream.on('error', reject)
    stream.write(text)
  })
}

describe('egress: the dialers through test proxies', function () {
  this.timeout(20_000)
  let dir: string
  let echo: net.Server
  let port: number
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'egress-dial-'))
    echo = net.createServer((s) => s.pipe(s))
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve))
    port = (echo.address() as AddressInfo).port
  })
  after(async () => {
    await new Promise((resolve) => echo.close(resolve))
    rmSync(dir, { recursive: true, force: true })
  })

  it('HTTPConnect over TCP and over a Unix socket', async () => {
    const tcp = await ConnectProxy.start()
    const uds = await ConnectProxy.start(join(dir, 'connect.sock'))
    try {
      const dialer = egressDialerFor({
        egressSelections: [
          { name: 'cluster', proxyProtocol: 'HTTPConnect', transport: { tcp: { url: tcp.url } } },
          { name: 'controlplane', proxyProtocol: 'HTTPConnect', transport: { uds: { udsName: join(dir, 'connect.sock') } } },
        ],
      })
      assert.equal(await roundTrip(await dialer.dial('cluster', '127.0.0.1', port), 'through tcp'), 'through tcp')
      assert.equal(await roundTrip(await dialer.dial('controlplane', '127.0.0.1', port), 'through uds'), 'through uds')
      assert.deepEqual(tcp.targets, [`127.0.0.1:${port}`])
      assert.deepEqual(uds.targets, [`127.0.0.1:${port}`])
      // etcd is not named: direct.
      assert.equal(await roundTrip(await dialer.dial('etcd', '127.0.0.1', port), 'direct'), 'direct')
    } finally {
      await tcp.close()
      await uds.close()
    }
  })

  it('GRPC: a konnectivity tunnel carries the bytes; a refused dial carries the server\'s error', async () => {
    const socket = join(dir, 'konnectivity.sock')
    const server = await KonnectivityServer.start(socket)
    try {
      const dialer = egressDialerFor({ egressSelections: [{ name: 'cluster', proxyProtocol: 'GRPC', transport: { uds: { udsName: socket } } }] })
      const payload = 'x'.repeat(100_000)
      assert.equal(await roundTrip(await dialer.dial('cluster', '127.0.0.1', port), payload), payload)
      assert.deepEqual(server.dialed, [`127.0.0.1:${port}`])
      server.refuse = 'no route to the node'
      await assert.rejects(dialer.dial('cluster', '127.0.0.1', port), /no route to the node/)
    } finally {
      await server.close()
    }
  })

  it('from the file: none is DIRECT_DIALER; a non-Direct etcd selection is named as not applied when the store is etcd', () => {
    assert.equal(egressDialerFromFile(undefined), DIRECT_DIALER)
    const file = join(dir, 'egress.yaml')
    writeFileSync(file, 'apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: etcd\n  connection: {proxyProtocol: HTTPConnect, transport: {tcp: {url: "http://127.0.0.1:1"}}}\n')
    const warnings: string[] = []
    egressDialerFromFile(file, (m) => warnings.push(m))
    assert.equal(warnings.length, 1)
    assert.match(warnings[0]!, /"etcd" .*not applied/)
    egressDialerFromFile(file)
    assert.equal(warnings.length, 1)
  })

  it('the agents: HTTPS (TLS over the tunnel) and HTTP requests go through the network\'s proxy; none while nothing is installed', async () => {
    assert.equal(egressAgent('cluster'), undefined)
    const proxy = await ConnectProxy.start()
    const webhook = await AdmissionWebhookServer.start()
    const plain = http.createServer((_req, res) => res.end('plain'))
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve))
    const plainPort = (plain.address() as AddressInfo).port
    installEgressDialer(egressDialerFor({ egressSelections: [{ name: 'cluster', proxyProtocol: 'HTTPConnect', transport: { tcp: { url: proxy.url } } }, { name: 'controlplane', proxyProtocol: 'HTTPConnect', transport: { tcp: { url: proxy.url } } }] }))
    try {
      const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u1' } })
      const answer = await new Promise<string>((resolve, reject) => {
        const req = https.request(webhook.url('/x'), { method: 'POST', ca: webhook.caPem, agent: egressAgent('cluster')!, headers: { 'content-type': 'application/json' } }, (res) => {
          let text = ''
          res.on('data', (d) => (text += d))
          res.on('end', () => resolve(text))
        })
        req.on('error', reject)
        req.end(body)
      })
      assert.equal(JSON.parse(answer).response.uid, 'u1')
      const text = await new Promise<string>((resolve, reject) => {
        http.get(`http://127.0.0.1:${plainPort}/`, { agent: egressAgent('controlplane', 'http:')! }, (res) => {
          let t = ''
          res.on('data', (d) => (t += d))
          res.on('end', () => resolve(t))
        }).on('error', reject)
      })
      assert.equal(text, 'plain')
      assert.deepEqual(proxy.targets, [`127.0.0.1:${webhook.port}`, `127.0.0.1:${plainPort}`])
    } finally {
      installEgressDialer(DIRECT_DIALER)
      await new Promise((resolve) => plain.close(resolve))
      await webhook.close()
      await proxy.close()
    }
  })
})
