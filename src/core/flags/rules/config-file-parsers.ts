/**
 * The server's parsers of the structured configuration files, as one module that
 * config-files.ts imports on first need (the server uses the same ones): the CEL engine comes
 * with them, which most runs of `client flags validate` never need (the
 * fast entry keeps this module in a bundle of its own, scripts/bundle-commands.js).
 */
export * as authn from '../../config-files/authentication-config.js'
export * as sa from '../../config-files/service-account-issuer.js'
export * as authz from '../../config-files/authorization-config.js'
