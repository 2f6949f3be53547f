/**
 * The server's parsers of the structured configuration files, as one module that
 * config-files.ts imports on first need: the CEL engine and the server's authentication and
 * authorization code come with them, which most runs of `client flags validate` never need (the
 * fast entry keeps this module in a bundle of its own, scripts/bundle-commands.js).
 */
export * as authn from '../../../server/authentication/authentication-config.js'
export * as sa from '../../../server/authentication/service-account.js'
export * as authz from '../../../server/authorization/config.js'
