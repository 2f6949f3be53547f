/** The client connection core: kubeconfig, general client options, REST client. */
export { ClientConfigError, UnreachableError, type UnreachableKind } from './errors.js'
export { type ClientFlags, camelCase, clientFlagsFrom, hasNoEffect } from './flags.js'
export {
  type Kubeconfig,
  type KubeCluster,
  type KubeContext,
  type KubeUser,
  defaultKubeconfigPath,
  kubeconfigPaths,
  loadKubeconfig,
  mergeKubeconfigs,
  parseKubeconfig,
} from './kubeconfig.js'
export { type Connection, type ConnectionTls, NO_SERVER_MESSAGE, normalizeServer, resolveConnection, type ResolveOptions } from './connection.js'
export { type RestRequestOptions, type RestResponse, RestClient } from './rest-client.js'
export { headerKeyEscape, impersonationHeaders, parseUserExtras } from './impersonation.js'
export { INVALID_TIMEOUT, parseRequestTimeout } from './request-timeout.js'
export { parseWarningHeaders, warningTexts } from './warning-header.js'
export { userAgent } from './user-agent.js'
export { type ClientVersionInfo, type VersionRequest, clientVersionInfo, formatVersion, parseVersionFlag, serverVersionMismatch } from './version.js'
export { WarningWriter } from './warning-writer.js'
export { DISCOVERY_CACHE_TTL_MS, DiscoveryCache, defaultCacheDir, discoveryDirName, expandCacheDir } from './discovery-cache.js'
export { type Profiler, SUPPORTED_PROFILES, profileProblem, startProfile } from './profile.js'
export {
  ClientrcError,
  type Preferences,
  applyCommandDefaults,
  clientrcFlag,
  defaultClientrcPath,
  expandAlias,
  loadPreferences,
  parsePreferences,
} from './clientrc.js'
