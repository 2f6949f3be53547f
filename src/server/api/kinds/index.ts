/**
 * The kinds the API serves, by group/version: the generated built-in kinds (builtin.ts, with
 * each kind's entry in its API group's file) and the kinds written as strategies of their own.
 */
import type { Strategy } from '../registry/strategy.js'
import { AUTHORIZATION_REVIEW_KINDS } from './authorization-reviews.js'
import { selfsubjectreviews, tokenreviews } from './authentication.js'
import { BUILTIN_KINDS } from './builtin.js'
import { namespaces } from './core-cluster.js'
import { configmaps } from './core-config.js'
import { customresourcedefinitions } from './crd.js'

export const KINDS: readonly Strategy[] = [configmaps, namespaces, ...BUILTIN_KINDS, customresourcedefinitions, selfsubjectreviews, tokenreviews, ...AUTHORIZATION_REVIEW_KINDS]
