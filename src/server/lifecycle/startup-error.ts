/**
 * A start-up failure the operator caused (a bad flag, an unreadable file, a port in use): the
 * command prints its message alone and exits 1, without a stack. Each room's `from-config`
 * maps its own configuration errors to it, as the server did when it parsed them itself.
 */
export class StartupError extends Error {}
