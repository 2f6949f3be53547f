/**
 * The server without a listener: a registry over a scratch store (the embedded store's tables
 * in memory, nothing on disk, nothing synced: nothing of it outlives the run),
 * the server's admission chain (the default plugins, with --admission-control-config-file
 * when given) and the server's API handler, to which requests are handed in memory
 * (in-memory-exchange.ts). `client validate` creates through it what a manifest set holds:
 * each object decoded, defaulted, validated and admitted by the same code as a request to
 * `client server start`, as the cluster administrator (system:masters, whom RBAC allows
 * everything).
 */
import { accessSync, constants, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { admissionFromConfig } from '../admission/from-config.js'
import { apiHandler, servedApi } from '../api/index.js'
import type { Registry } from '../api/registry/registry.js'
import type { Strategy } from '../api/registry/strategy.js'
import { IncomingContext } from '../http/context.js'
import { decodeRequestPath } from '../http/request-info.js'
import type { UserInfo } from '../http/types.js'
import { SqliteStore } from '../store/sqlite-store.js'
import { InMemoryResponse, type RecordedAnswer, inMemoryRequest } from './in-memory-exchange.js'

/** The user kubectl's admin kubeconfig of `client server start` authenticates as. */
export const CLUSTER_ADMIN: UserInfo = { name: 'system:admin', groups: ['system:masters', 'system:authenticated'] }

/** The namespaces a new server writes at start-up (the reference's system namespaces and `default`). */
const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease']

export interface DryRunServerOptions {
  /** `--emulated-version`'s minor (1.N): the kinds and fields that release serves. */
  emulatedMinor?: number
  /** An AdmissionConfiguration document (YAML or JSON), as --admission-control-config-file would read it. */
  admissionConfiguration?: string
  /**
   * false: writes record no managedFields (RegistryOptions.managedFields): for an input
   * whose checks cannot read them (see run-validate.ts); default true.
   */
  managedFields?: boolean
}

export class DryRunServer {
  private constructor(
    private readonly dir: string | undefined,
    private readonly store: SqliteStore,
    readonly registry: Registry,
    private readonly handle: ReturnType<typeof apiHandler>,
    private readonly stopAdmission: () => void,
    private readonly admission: { forgetCachedReads(): void },
  ) {}

  static async open(options: DryRunServerOptions = {}): Promise<DryRunServer> {
    // A directory only for the admission configuration, which the plugins read from a file.
    let dir: string | undefined
    let admissionControlConfigFile: string | undefined
    if (options.admissionConfiguration !== undefined) {
      dir = mkdtempSync(join(scratchDir(), 'client-validate-'))
      admissionControlConfigFile = join(dir, 'admission.yaml')
      writeFileSync(admissionControlConfigFile, options.admissionConfiguration)
    }
    const store = SqliteStore.scratch({ healthcheckTimeoutMs: 2000, readycheckTimeoutMs: 2000 })
    const log = () => {}
    let registry: Registry | undefined
    const admission = admissionFromConfig({
      config: admissionControlConfigFile ? { admissionControlConfigFile } : {},
      stores: () => registry,
      log: { v: log, warning: log },
      // system:masters: RBAC allows it everything, the plugins that ask too.
      authorizer: { authorize: () => ({ decision: 'allow' }) },
    })
    // Stored as JSON: what is stored is never read by another program, and the protobuf codec
    // (its descriptor, decompressed at first use) is a quarter of a short run's start.
    const deps = {
      store: () => store,
      log,
      options: { admission, watchCache: false, ...(options.managedFields === false ? { managedFields: false } : {}) },
      storageMediaType: 'application/json' as const,
      ...(options.emulatedMinor !== undefined ? { emulatedMinor: options.emulatedMinor } : {}),
    }
    const served = servedApi(deps)
    await served.storage.ready()
    registry = served.registryFor(store)
    const server = new DryRunServer(dir, store, registry, apiHandler(deps, served), () => admission.stop(), admission)
    for (const name of SYSTEM_NAMESPACES) await server.createNamespace({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })
    return server
  }

  /** The kinds served now (built-in ones and those of the CRDs created so far). */
  kinds(): Promise<Strategy[]> {
    return this.registry.kinds()
  }

  /**
   * A namespace as the server has it once running: created, with the `default` service account
   * its controller adds (pods without a serviceAccountName need it).
   */
  async createNamespace(namespace: Record<string, unknown>): Promise<RecordedAnswer> {
    const answer = await this.send('POST', '/api/v1/namespaces', namespace)
    const name = (namespace.metadata as { name?: unknown } | undefined)?.name
    if (answer.status === 201 && typeof name === 'string') {
      await this.send('POST', `/api/v1/namespaces/${name}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: name } })
    }
    return answer
  }

  /**
   * One request as the administrator: the answer the server would send. `body` is an object
   * (sent as JSON) or the JSON text itself.
   */
  async send(method: string, target: string, body?: unknown): Promise<RecordedAnswer> {
    const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body)
    const req = inMemoryRequest(method, target, text, { 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'client-validate' })
    const res = new InMemoryResponse()
    const ctx = new IncomingContext(req, target, decodeRequestPath(target.split('?')[0]!))
    ctx.user = CLUSTER_ADMIN
    await this.handle(req, res.asResponse(), ctx)
    await res.done
    return res.answer()
  }

  /** Policies and other configuration read with a short cache are read again on the next request. */
  forgetCachedReads(): void {
    this.admission.forgetCachedReads()
  }

  async close(): Promise<void> {
    this.stopAdmission()
    this.registry.stop()
    await this.store.close()
    if (this.dir !== undefined) rmSync(this.dir, { recursive: true, force: true })
  }
}

/**
 * Where the admission configuration's file goes: memory (/dev/shm) where there is one, as
 * nothing of it needs to survive the run; the system's temporary directory otherwise.
 */
function scratchDir(): string {
  const shm = '/dev/shm'
  try {
    if (statSync(shm).isDirectory()) {
      accessSync(shm, constants.W_OK)
      return shm
    }
  } catch {
    // none: the temporary directory
  }
  return tmpdir()
}
