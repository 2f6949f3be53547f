/**
 * The API server process, assembled from the parts under src/server: the configuration's
 * rooms (encryption, authorization, authentication), the store, the health checks and their
 * post-start hooks, the routes, the handler chain, the HTTPS server, the controllers and the
 * termination sequence. Each part is built in its own file (src/server/assembly and the
 * rooms' from-config.ts); this only puts them together, in the order start-up needs.
 */
import { resolve as resolvePath } from 'node:path'
import type { AddressInfo } from 'node:net'
import { KINDS } from './api/kinds/index.js'
import type { KubeObject } from './api/registry/object.js'
import { type EmulationOptions, enabledKinds, servedAtVersion } from './api/runtime-config.js'
import { Aggregator } from './aggregator/index.js'
import { admissionFromConfig } from './admission/from-config.js'
import { AdmissionMetrics } from './admission/metrics.js'
import { auditFromConfig } from './audit/from-config.js'
import { auditMetrics } from './audit/metrics.js'
import { authenticationFromConfig } from './authentication/from-config.js'
import type { ServiceAccountTokenEvents } from './authentication/service-account-metrics.js'
import { authorizationFromConfig } from './authorization/from-config.js'
import { NodeGraph } from './authorization/node.js'
import { PolicyCache } from './authorization/rbac-policy.js'
import { servedGroupVersions } from './bootstrap/cluster.js'
import { boundHeapGrowth } from './lifecycle/heap-growth.js'
import { endpointAddress } from './bootstrap/kubernetes-service.js'
import { bootstrapRbac } from './bootstrap/rbac.js'
import type { ClusterConfig, ServerConfig } from './config.js'
import type { Clock } from './controllers/clock.js'
import type { Controller } from './controllers/controller.js'
import { clockStartingAt } from './controllers/clock.js'
import { buildControllers } from './controllers/index.js'
import { LeaderElectedControllers } from './controllers/leader-elected.js'
import { ControllerManager } from './controllers/manager.js'
import { SimulatedNodes } from './simnodes/index.js'
import { SimulatedMetricsApi } from './simnodes/metrics-api.js'
import { boundAddress, serveOn } from './http/listener.js'
import { Mux } from './http/mux.js'
import { egressDialerFromFile } from './egress/selector.js'
import { installEgressDialer } from './egress/installed.js'
import { tracingFromConfig } from './assembly/tracing.js'
import { LifecycleSignals, WaitGroup } from './lifecycle/signals.js'
import { StartupError } from './lifecycle/startup-error.js'
import type { Logger } from './log/logger.js'
import { defaultDataDir, openStore } from './store/index.js'
import { tracedStore } from './store/traced-store.js'
import { TestFaults } from './test-faults.js'
import { defaultCertDir } from './tls/index.js'
import { ApiAccess, installServedApi } from './assembly/api.js'
import { BootstrapWrites } from './assembly/bootstrap-writes.js'
import { encryptionFromConfig } from './assembly/encryption.js'
import { ConfigurationReads, flowControlFromConfig } from './assembly/flow-control.js'
import { buildHandlerChain } from './assembly/handler-chain.js'
import { Readiness, installHealthChecks, serverHealth } from './assembly/health-checks.js'
import { bindServingPort, createHttpServer, prepareServingTls } from './assembly/http-server.js'
import { adminKeyInAdvance, writeKubeconfig } from './assembly/kubeconfig.js'
import { serverMetrics } from './assembly/metrics.js'
import { PendingStore, connectInBackground } from './assembly/pending-store.js'
import { peersFromConfig } from './assembly/peers.js'
import { postStartHooks } from './assembly/post-start-hooks.js'
import { installNonResourceRoutes, installStatusRoutes, serveDebugSocketFor } from './assembly/routes.js'
import { ShutdownList, terminationSequence } from './assembly/shutdown.js'
import { storeConfig } from './assembly/store-config.js'

export { StartupError }

export interface ServerOptions {
  config: ServerConfig
  log: Logger
  /** Reported by /version. */
  productVersion: string
  emulatedMinor: number
  minCompatibilityMinor: number
}

export interface RunningServer {
  /** Where it listens. */
  address: AddressInfo
  /** The CA that signed the serving certificate, when the server generated it. */
  caCertPem?: string
  signals: LifecycleSignals
  /** Starts the termination sequence (as a first SIGTERM does); resolves when it is complete. */
  shutdown(): Promise<void>
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { config, log } = options
  const [signals, inFlight, watches, faults, releases] = [new LifecycleSignals(), new WaitGroup(), new WaitGroup(), TestFaults.fromEnvironment(), new ShutdownList()]
  // Every outgoing connection made from here on dials through it (a bad file stops the start-up).
  installEgressDialer(egressDialerFromFile(config.egressSelectorConfigFile, config.storeServers.length > 0 ? (message) => log.warning(message) : undefined))
  // Before the handler chain and the store are built: they open spans only when it is on.
  const tracer = await tracingFromConfig(config.tracingConfigFile)

  const encryption = encryptionFromConfig(config, log)
  releases.add('encryption-config', () => encryption.providers?.stop())
  // RBAC answers from the bootstrap policy until its informers have read the store.
  const rbacPolicy = PolicyCache.withFallback(bootstrapRbac().map((b) => b.object as KubeObject))
  const nodeGraph = new NodeGraph()
  const authorization = authorizationFromConfig(config, { rbacPolicy, nodeGraph }, log)
  releases.add('rbac-informers', () => rbacPolicy.stop())
  releases.add('authorization-config', () => authorization.reloading?.stop())
  releases.add('node-authorizer-informers', () => nodeGraph.stop())
  // The admission chain (its configuration file read now: a bad one stops the start-up before
  // anything listens) reads the registry the API makes over the open store, once it is made.
  // The metrics registry comes first: admission observes on it (the store it polls opens later).
  const { metrics, storageMetrics, tokenEvents: events } = serverMetrics(config, () => pending.store, log)
  const admission = admissionFromConfig({
    config, stores: () => (pending.store ? api.registryFor(pending.store) : undefined), log, authorizer: authorization.chain.authorizer, metrics: new AdmissionMetrics(metrics.registry),
  })
  releases.add('admission', () => admission.stop())

  const bound = await bindServingPort(config)
  const address = boundAddress(bound)
  // The keys a first start generates are generated at once (the serving certificate's, the
  // CA's and the administrator's); nothing is written before the start-up checks below have
  // passed.
  const certDir = config.certDir ?? defaultCertDir()
  const adminKey = adminKeyInAdvance(config, certDir)
  const tlsReady = prepareServingTls(config)
  // The embedded store opens before connections are accepted: a locked, unwritable or corrupt data
  // directory is a start-up error. etcd may come up later, so it is opened in the background.
  const pending = new PendingStore()
  const embedded = config.storeServers.length === 0
  if (embedded) pending.set(tracedStore(encryption.encrypting(await openStore(storeConfig(config, log))), 'sqlite'))
  const tls = await tlsReady

  const api = new ApiAccess()
  let tokenEvents: ServiceAccountTokenEvents | undefined
  const authn = await authenticationFromConfig(config, { certDir, ...(tls.caFiles ? { servingCaFile: tls.caFiles.cert } : {}), objects: api.objects, tokenEvents: () => tokenEvents }, log)
  const { authentication } = authn
  releases.add('token-authenticators', () => authn.tokenMethods.stop())
  releases.add('external-jwt-signer', () => authn.serviceAccountKeys.external?.close())
  releases.add('ca-files', () => authentication.caFiles.forEach((file) => file.stop()))
  tokenEvents = events
  releases.add('storage-metrics', () => storageMetrics.stop())

  const storeNow = async () => pending.ready
  const writes = new BootstrapWrites({ config, log, signals, storeNow, authentication, api })
  const flowReads = new ConfigurationReads()
  const advertised = endpointAddress(config.advertiseAddress, config.bindAddress)
  const peers = peersFromConfig(config, { advertiseAddress: advertised, registry: () => (pending.store ? api.registryFor(pending.store) : undefined), store: () => pending.store, log, metrics: metrics.registry })
  // `cluster start`: the clusterOnly controllers, on the cluster's clock, and the simulated nodes.
  const cluster = config.cluster
  // A whole cluster's write rate would let V8 grow the heap to several times what lives in it.
  if (cluster) boundHeapGrowth()
  const clock = cluster?.clockStartMs !== undefined ? clockStartingAt(cluster.clockStartMs) : undefined
  // `cluster start`: the resource metrics API of the simulated usage (kubectl top, the autoscaler).
  const metricsApi = cluster ? new SimulatedMetricsApi(clock) : undefined
  const controllers = new ControllerManager([
    ...buildControllers({
      config, log, rbacPolicy, serviceAccountSigningKey: authn.serviceAccountKeys.signing, ...(tls.caCertPem ? { caPem: tls.caCertPem } : {}), ...(tls.caFiles ? { clusterSigningFiles: tls.caFiles } : {}), authorizer: { authorize: (attributes) => authorization.chain.authorizer.authorize(attributes) }, rootCaPem: tls.caCertPem ?? tls.servingChainPem, store: () => pending.store!,
      endpointAddress: advertised, kubernetesServiceWritten: writes.kubernetesServiceWritten, flowConfigurationReads: flowReads,
      identity: peers.identity, ...(peers.proxy ? { peerDiscovery: peers.proxy.discovery } : {}),
      ...(cluster ? { cluster: true } : {}), ...(clock ? { clock } : {}), ...(metricsApi ? { podResourceMetrics: metricsApi.podResourceMetrics } : {}),
    }),
    ...(cluster ? [simulatedNodes(cluster, options.productVersion, clock, log)] : []),
    ...(metricsApi ? [metricsApi] : []),
  ])
  releases.add('controllers', () => controllers.stop())
  const health = serverHealth(config, signals, log)
  const readiness = new Readiness()
  const apiGroupVersions = servedGroupVersions(servedAtVersion(enabledKinds(KINDS, config.runtimeConfig, config.featureGates), options.emulatedMinor, emulationOf(config)))
  const aggregator = new Aggregator(config, (level, message) => log.v(level, message))
  releases.add('aggregator', () => aggregator.stop())
  const hooks = postStartHooks({ config, log, storeNow, api, rbacPolicy, nodeGraph, controllers, ready: readiness.ready, writes, authentication, apiGroupVersions, aggregator })
  installHealthChecks(health, { config, log, faults, pending, ...(encryption.providers ? { encryption: encryption.providers } : {}), hooks, apiServices: apiGroupVersions.length })
  metrics.reportHealthChecks(() => health.lastResults())

  const mux = new Mux()
  installStatusRoutes(mux, health, options)
  api.set(installServedApi(mux, { config, log, emulatedMinor: options.emulatedMinor, store: () => pending.store, authentication: authn, authorization, admission, aggregated: metricsApi ? metricsApi.besides(aggregator) : aggregator }))
  const flowControl = flowControlFromConfig({ config, metrics, store: () => pending.store, codec: writes.codec, reads: flowReads })
  releases.add('flow-controller', () => flowControl.controller?.stop())
  installNonResourceRoutes(mux, { config, log, metrics, ...(flowControl.controller ? { flowController: flowControl.controller } : {}), authentication: authn })
  const audit = auditFromConfig({ config, log, metrics: auditMetrics(metrics.registry, log) })
  audit.backend?.run()
  releases.add('audit', async () => audit.backend?.shutdown())
  const handler = buildHandlerChain(mux.serve, { config, log, metrics, signals, inFlight, watches, authentication, authorizer: authorization.chain.authorizer, flowControl, audit, ...(peers.proxy ? { peerProxy: peers.proxy } : {}) })
  const http = createHttpServer(handler, config, tls, log)

  // Everything written for users is complete before the first connection is accepted, so
  // before /readyz can answer 200.
  await writeKubeconfig(config, { address, tls, certDir, ...(adminKey ? { adminKey } : {}) }, log)
  await serveOn(http.server, bound)
  http.server.on('error', (err) => log.error(`server error: ${err.message}`))
  log.info(`Serving securely on ${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`)
  // A newcomer's first question is where the state went: name the full path (or the etcd servers).
  log.info(config.storeServers.length > 0 ? `Storing data in etcd at ${config.storeServers.join(',')} under ${config.storePrefix}` : `Storing data in ${resolvePath(config.dataDir || defaultDataDir())}`)
  const debugSocket = await serveDebugSocketFor(config)
  releases.add('debug-socket', async () => debugSocket?.close())
  releases.add('store', async () => pending.store?.close())
  releases.add('tracing', async () => tracer?.shutdown())
  releases.add('log', () => log.flush())
  if (!embedded) connectInBackground(pending, async () => tracedStore(encryption.encrypting(await openStore(storeConfig(config, log))), 'etcd3'), config, log)

  readiness.startPostStartHooks(health, { signals, writes, log })
  encryption.providers?.start()
  storageMetrics.start()
  void pending.ready.then(() => Promise.all([storageMetrics.pollCounts(), storageMetrics.pollSize()]))
  const shutdown = terminationSequence({ config, signals, inFlight, watches, http, releases, log })
  return { address, caCertPem: tls.caCertPem, signals, shutdown }
}

/** The simulated nodes, under a Lease of their own when leader election is on (one process of several on a store runs them). */
function simulatedNodes(cluster: ClusterConfig, version: string, clock: Clock | undefined, log: Logger): Controller {
  const nodes = new SimulatedNodes({ cluster, version, ...(clock ? { clock } : {}), log: (level, message) => log.v(level, message) })
  return cluster.leaderElect ? new LeaderElectedControllers({ name: 'simulated-nodes', lease: { namespace: 'kube-system', name: 'client-simulated-nodes' } }, [nodes]) : nodes
}

/** What --emulated-version serves beyond the release it emulates (the forward-compatibility options). */
export function emulationOf(config: ServerConfig): EmulationOptions {
  return {
    forwardCompatible: config.emulationForwardCompatible,
    runtimeConfigForwardCompatible: config.runtimeConfigEmulationForwardCompatible,
    runtimeConfig: config.runtimeConfig,
  }
}
