// A `client server start` for a bench, acting as its administrator: the server writes its
// kubeconfig (--write-kubeconfig: system:admin in system:masters, with a client certificate),
// readiness is awaited with it, and `admin` is a keep-alive request function that presents
// the certificate and FAILS on any answer that is not 2xx (a bench must not measure error
// answers). `adminToken` is a bearer token of the same group (--token-auth-file), for tools
// that cannot present a certificate (wrk).
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import https from 'node:https'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from './net.js'

const bin = fileURLToPath(new URL('../../bin/run.js', import.meta.url))
export const ADMIN_TOKEN = 'bench-admin-token'

/** The administrator's credentials from a kubeconfig the server wrote. */
export function adminCredentials(kubeconfig) {
  const text = readFileSync(kubeconfig, 'utf8')
  const field = (name) => Buffer.from(new RegExp(`${name}: (\\S+)`).exec(text)[1], 'base64')
  return { ca: field('certificate-authority-data'), cert: field('client-certificate-data'), key: field('client-key-data') }
}

/**
 * Starts a server in `dir` with `args` added; resolves once /readyz answers 200 to the
 * administrator. `tokenFile: false` leaves --token-auth-file to the bench's own args.
 * `runScript` is another build's bin/run.js (an A/B comparison of two builds); `nodeArgs` go
 * to node before it (--cpu-prof).
 */
export async function startServer(dir, args = [], { maxSockets = 32, tokenFile = true, timeoutMs = 60_000, runScript = bin, nodeArgs = [] } = {}) {
  mkdirSync(dir, { recursive: true })
  const port = await freePort()
  const kubeconfig = join(dir, 'admin.kubeconfig')
  const extra = []
  if (tokenFile) {
    writeFileSync(join(dir, 'admin-tokens.csv'), `${ADMIN_TOKEN},bench-admin,bench-admin-uid,"system:masters"\n`)
    extra.push(`--token-auth-file=${join(dir, 'admin-tokens.csv')}`)
  }
  const child = spawn(
    process.execPath,
    [...nodeArgs, runScript, 'server', 'start', '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${dir}/certs`, `--data-dir=${dir}/data`, `--write-kubeconfig=${kubeconfig}`, ...extra, ...args],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let stderr = ''
  child.stderr.on('data', (c) => (stderr = (stderr + c).slice(-4000)))
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
  }
  try {
    const deadline = Date.now() + timeoutMs
    while (!existsSync(kubeconfig) || !readFileSync(kubeconfig, 'utf8').includes('client-key-data')) {
      if (child.exitCode !== null) throw new Error(`the server exited ${child.exitCode}: ${stderr}`)
      if (Date.now() > deadline) throw new Error(`the server wrote no kubeconfig in time: ${stderr}`)
      await new Promise((r) => setTimeout(r, 50))
    }
    const credentials = adminCredentials(kubeconfig)
    const agent = new https.Agent({ keepAlive: true, maxSockets, ...credentials })
    const admin = requester(port, agent)
    for (;;) {
      const r = await admin.raw('GET', '/readyz').catch(() => ({ status: 0 }))
      if (r.status === 200) break
      if (child.exitCode !== null) throw new Error(`the server exited ${child.exitCode}: ${stderr}`)
      if (Date.now() > deadline) throw new Error(`/readyz did not answer 200 in time: ${stderr}`)
      await new Promise((r) => setTimeout(r, 100))
    }
    return { port, child, kubeconfig, agent, admin, ...credentials, url: `https://127.0.0.1:${port}`, stop: async () => (agent.destroy(), await stop()) }
  } catch (err) {
    await stop()
    throw err
  }
}

/**
 * `request(method, path, options)` resolving to the body text, rejecting on a status that is
 * not 2xx; `request.raw` resolves to { status, headers, body } whatever the status.
 */
export function requester(port, agent) {
  const raw = (method, path, { body, contentType = 'application/json', accept = 'application/json', headers = {} } = {}) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body))
      const req = https.request(
        { host: '127.0.0.1', port, method, path, agent, headers: { accept, ...headers, ...(payload ? { 'content-type': contentType, 'content-length': payload.length } : {}) } },
        (res) => {
          const chunks = []
          res.on('data', (c) => chunks.push(c))
          res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }))
          res.on('error', reject)
        },
      )
      req.on('error', reject)
      req.end(payload)
    })
  const request = async (method, path, options) => {
    const r = await raw(method, path, options)
    if (r.status < 200 || r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.body.toString('utf8').slice(0, 300)}`)
    return r.body.toString('utf8')
  }
  request.raw = raw
  return request
}
