/** The kinds the API serves, by group/version. */
import type { Strategy } from '../registry/strategy.js'
import { selfsubjectreviews, tokenreviews } from './authentication.js'
import { BUILTIN_KINDS } from './builtin.js'
import { configmaps } from './configmaps.js'
import { customresourcedefinitions } from './crd.js'
import { namespaces } from './namespaces.js'

export const KINDS: readonly Strategy[] = [configmaps, namespaces, ...BUILTIN_KINDS, customresourcedefinitions, selfsubjectreviews, tokenreviews]
