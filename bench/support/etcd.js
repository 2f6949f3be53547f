// A throwaway single-member etcd for benchmarks: free loopback ports, its own temporary
// data directory, stopped by PID. (The tests have their own TypeScript launcher; product
// code never starts etcd.)
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { toolCommand, whyMissing } from './tools.js'

export function etcdAvailable() {
  return whyMissing('etcd') === undefined
}

async function freePort() {
  const server = net.createServer()
  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address()
  await new Promise(resolve => server.close(resolve))
  return port
}

/** Starts etcd and resolves once /health says so: { clientUrl, pid, stop() }. */
export async function startEtcd({ bin = toolCommand('etcd'), timeoutMs = 20_000 } = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'etcd-bench-'))
  const clientPort = await freePort()
  const peerPort = await freePort()
  const clientUrl = `http://127.0.0.1:${clientPort}`
  const peerUrl = `http://127.0.0.1:${peerPort}`
  const child = spawn(
    bin,
    [
      '--name', 'bench',
      '--data-dir', path.join(dataDir, 'member'),
      '--listen-client-urls', clientUrl,
      '--advertise-client-urls', clientUrl,
      '--listen-peer-urls', peerUrl,
      '--initial-advertise-peer-urls', peerUrl,
      '--initial-cluster', `bench=${peerUrl}`,
      '--initial-cluster-state', 'new',
      '--heartbeat-interval', '50',
      '--election-timeout', '500',
      '--logger', 'zap',
      '--log-level', 'error',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let stderr = ''
  child.stderr.on('data', chunk => (stderr = (stderr + chunk).slice(-4000)))
  const exited = new Promise(resolve => child.once('exit', resolve))
  const killOnExit = () => {
    try {
      process.kill(child.pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
  process.once('exit', killOnExit)

  const stop = async () => {
    process.removeListener('exit', killOnExit)
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGTERM')
    await exited
    fs.rmSync(dataDir, { recursive: true, force: true })
  }

  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`etcd exited during start-up:\n${stderr}`)
    try {
      const res = await fetch(`${clientUrl}/health`, { signal: AbortSignal.timeout(1000) })
      if ((await res.json()).health === 'true') return { clientUrl, pid: child.pid, stop }
    } catch {
      // Not up yet.
    }
    await new Promise(resolve => setTimeout(resolve, 50))
  }
  await stop()
  throw new Error(`etcd did not become healthy within ${timeoutMs}ms:\n${stderr}`)
}
