/** The authenticators' options from the server's configuration (the flags of spec section 5). */
import type { ServerConfig } from '../config.js'
import type { Logger } from '../log/logger.js'
import type { AuthenticationOptions } from './index.js'
import type { CaBundle } from './x509.js'

export function authenticationOptions(config: ServerConfig, extraClientCas: CaBundle[], log: Logger): AuthenticationOptions {
  return {
    anonymous: config.anonymousAuth,
    ...(config.clientCaFile ? { clientCaFile: config.clientCaFile } : {}),
    extraClientCas,
    ...(config.tokenAuthFile ? { tokenAuthFile: config.tokenAuthFile } : {}),
    ...(config.requestheaderClientCaFile
      ? {
          requestHeader: {
            clientCaFile: config.requestheaderClientCaFile,
            allowedNames: config.requestheaderAllowedNames,
            usernameHeaders: config.requestheaderUsernameHeaders,
            uidHeaders: config.requestheaderUidHeaders,
            groupHeaders: config.requestheaderGroupHeaders,
            extraHeaderPrefixes: config.requestheaderExtraHeadersPrefix,
          },
        }
      : {}),
    apiAudiences: config.apiAudiences,
    log: (level, message) => log.v(level, message),
    caLog: { info: (message) => log.v(2, message), error: (message) => log.error(message) },
  }
}

