/**
 * The project's one CEL environment (Common Expression Language), on @marcbachmann/cel-js:
 * the standard library and macros, optional types, and the Kubernetes extension libraries
 * the reference adds to cel-go. Authentication claim mappings, authorization match
 * conditions, admission policies and custom-resource validation rules each declare their
 * variables on top of it (see docs/cel.md for why this library).
 */
import { Environment } from '@marcbachmann/cel-js'
import { registerAuthzLibrary } from './libraries/authz.js'
import { registerFormatLibrary } from './libraries/format.js'
import { registerIpLibrary } from './libraries/ip.js'
import { registerListsLibrary } from './libraries/lists.js'
import { registerQuantityLibrary } from './libraries/quantity.js'
import { registerRegexLibrary } from './libraries/regex.js'
import { registerSemverLibrary } from './libraries/semver.js'
import { registerStringsLibrary } from './libraries/strings.js'
import { registerUrlsLibrary } from './libraries/urls.js'

/** A CEL type as the library writes it: 'string', 'map<string, dyn>', 'list<string>', or an object schema. */
export type CelVariableType = string | { schema: Record<string, unknown> }

let base: Environment | undefined

/** The shared environment with every library; frozen once cloned, so it is built once. */
function baseEnvironment(): Environment {
  if (!base) {
    const env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false })
    registerStringsLibrary(env)
    registerFormatLibrary(env)
    registerListsLibrary(env)
    registerRegexLibrary(env)
    registerUrlsLibrary(env)
    registerIpLibrary(env)
    registerQuantityLibrary(env)
    registerSemverLibrary(env)
    registerAuthzLibrary(env)
    base = env
  }
  return base
}

/** An environment that declares the given variables on top of the libraries. */
export function celEnvironment(variables: Record<string, CelVariableType>): Environment {
  const env = baseEnvironment().clone()
  for (const [name, type] of Object.entries(variables)) {
    if (typeof type === 'string') env.registerVariable(name, type)
    else env.registerVariable({ name, schema: type.schema } as never)
  }
  return env
}
