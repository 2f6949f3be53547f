/**
 * Label and field selectors, for the server's query parameters and objects: the parser and
 * matcher live in the core (src/core/util/selectors.ts), which `auth can-i` shares for
 * ClusterRole aggregation without a server.
 */
export * from '../../core/util/selectors.js'
