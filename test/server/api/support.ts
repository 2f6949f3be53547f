/**
 * A registry over a fresh embedded store in a temporary directory, with namespaces written
 * as the bootstrap post-start hook writes them (no resourceVersion), and the controllers that
 * follow it started (test/server/controllers/support.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { admissionFromConfig } from '../../../src/server/admission/from-config.js'
import type { RegistryOptions } from '../../../src/server/api/registry/options.js'
import { Registry } from '../../../src/server/api/registry/registry.js'
import { SqliteStore } from '../../../src/server/store/sqlite-store.js'
import { startControllers } from '../controllers/support.js'

export interface TestRegistry {
  dir: string
  store: SqliteStore
  registry: Registry
  close(): Promise<void>
}

export async function openTestRegistry(prefix: string, namespaces: readonly string[] = ['default'], options: RegistryOptions = {}): Promise<TestRegistry> {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const store = SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0, healthcheckTimeoutMs: 2000, readycheckTimeoutMs: 2000 })
  for (const ns of namespaces) {
    await store.create(`/namespaces/${ns}`, Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns }, status: { phase: 'Active' } })))
  }
  // The server's admission chain (the default plugins) over this registry, as the server passes it.
  const admission = admissionFromConfig({ config: {}, stores: () => registry, log: { v: () => {}, warning: () => {} } })
  const registry: Registry = new Registry(store, undefined, undefined, { admission, ...options })
  const controllers = await startControllers(registry)
  return {
    dir,
    store,
    registry,
    close: async () => {
      await controllers.stop()
      admission.stop()
      registry.stop()
      await store.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Polls `condition` until it holds (the controllers work in the background). */
export async function eventually(condition: () => Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
