/**
 * The real kubectl (the versioned binary, as the developers' guide asks) against a built
 * server started for the test, with its own kubeconfig, cache and home directory.
 * Without kubectl the tests fail under CI and are skipped elsewhere (test/support/tools.ts).
 * The main client is kubectl 1.35; a suite picks another with `kubectl` (test/support/kubectl-versions.ts).
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ApiServer, type StartOptions } from './api-server.js'
import type { StoreChoice } from './stores.js'
import { requireTool, toolCommand, type ToolName } from './tools.js'

/** The main kubectl binary, 1.35 (test/support/tools.json). */
export const KUBECTL = toolCommand('kubectl')

export interface Run {
  code: number
  stdout: string
  stderr: string
}

export class KubectlSession {
  private constructor(
    readonly server: ApiServer,
    readonly tmp: string,
    readonly base: string[],
    readonly kubectl: string = KUBECTL,
  ) {}

  /**
   * Call from a `before` hook; starts the server (on `options.store` when given, see
   * describeEachStore) and writes the kubeconfig.
   */
  static async open(ctx: Mocha.Context, prefix: string, options: StartOptions & { store?: StoreChoice; kubectl?: ToolName } = { waitFor: 'ready' }): Promise<KubectlSession> {
    const { store, kubectl: tool = 'kubectl', ...start } = options
    const kubectl = requireTool(ctx, tool)
    const server = await ApiServer.start({ ...start, args: [...(store?.args ?? []), ...(start.args ?? [])] })
    // kubectl acts as the administrator, with the client certificate the server wrote.
    const admin = server.admin()
    const b64 = (text: string) => Buffer.from(text).toString('base64')
    const tmp = mkdtempSync(join(tmpdir(), prefix))
    const kubeconfig = join(tmp, 'kubeconfig')
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: c, cluster: {server: "https://127.0.0.1:${server.port}", insecure-skip-tls-verify: true}}]`,
        `users: [{name: u, user: {client-certificate-data: ${b64(admin.cert)}, client-key-data: ${b64(admin.key)}}}]`,
        'contexts: [{name: c, context: {cluster: c, user: u, namespace: default}}]',
        'current-context: c',
        '',
      ].join('\n'),
    )
    return new KubectlSession(server, tmp, [`--kubeconfig=${kubeconfig}`, `--cache-dir=${join(tmp, 'cache')}`], kubectl)
  }

  run(...args: string[]): Promise<Run> {
    return this.runWithInput(undefined, ...args)
  }

  /** Runs kubectl with `input` on its standard input (closed after it); none: stdin closed at once. */
  runWithInput(input: string | undefined, ...args: string[]): Promise<Run> {
    return new Promise((resolve) => {
      const child = execFile(this.kubectl, [...this.base, ...args], { timeout: 30_000, env: { ...process.env, HOME: this.tmp } }, (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
      })
      child.stdin?.end(input)
    })
  }

  /** Runs kubectl and asserts it succeeded; returns its output. */
  async ok(...args: string[]): Promise<string> {
    const r = await this.run(...args)
    assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}\nserver:\n${this.server.logs.slice(-2000)}`)
    return r.stdout
  }

  /** Writes a file into the session's directory; returns its path. */
  file(name: string, text: string): string {
    const path = join(this.tmp, name)
    writeFileSync(path, text)
    return path
  }

  async close(): Promise<void> {
    await this.server.stop()
    rmSync(this.tmp, { recursive: true, force: true })
  }
}
