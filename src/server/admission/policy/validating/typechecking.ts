/**
 * Type checking of a ValidatingAdmissionPolicy (the reference's validating TypeChecker), for
 * its status: each validation's expression and messageExpression is compiled with `object` and
 * `oldObject` typed from the schema of each kind its matchConstraints name (at most 10, without
 * wildcards or subresources, in group, version, kind order), `params` from its paramKind's
 * schema, and its variables typed by their results; the compile errors are the warnings, one
 * `<group>/<version>, Kind=<kind>: <cel-go issues>` per kind, as `status.typeChecking.
 * expressionWarnings` records them. A kind without a schema is not checked, as the reference's.
 * The result type is not checked (the reference's type checker does not either); `request` and
 * `namespaceObject` are dynamic here where the reference types them.
 */
import { type CelVariableType, CelCompileError, celEnvironment, compileCel } from '../../../../core/cel/index.js'
import { AUTHORIZER_TYPE } from '../../../../core/cel/libraries/authz.js'
import type { Json } from '../../../api/openapi-data.js'
import type { KubeObject } from '../../../api/registry/object.js'
import { celDeclType } from '../../../api/schema/cel-rules.js'
import type { AdmissionStores } from '../../plugins.js'
import { type GroupVersionKind, gvkString, parseGroupVersion, servedKinds } from '../kinds.js'
import { specOf } from '../sources.js'
import { resolveSchema } from './schema-resolver.js'

/** maxTypesToCheck. */
const MAX_TYPES = 10

export interface ExpressionWarning {
  readonly fieldRef: string
  readonly warning: string
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [])
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter((x): x is Json => typeof x === 'object' && x !== null) : [])

/** WithTypeAndObjectMeta: apiVersion, kind and metadata's name and generateName are always there. */
function withTypeAndObjectMeta(schema: Json): Json {
  const properties = (typeof schema.properties === 'object' && schema.properties !== null ? schema.properties : {}) as Record<string, Json>
  const metadata = properties.metadata
  const metadataProps = (metadata?.properties ?? {}) as Record<string, Json>
  if (properties.kind?.type === 'string' && properties.apiVersion?.type === 'string' && metadata?.type === 'object' && metadataProps.name?.type === 'string' && metadataProps.generateName?.type === 'string') {
    return schema
  }
  return {
    ...schema,
    properties: {
      ...properties,
      kind: { type: 'string' },
      apiVersion: { type: 'string' },
      metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } },
    },
  }
}

/** Where a kind's schema comes from (the reference's SchemaResolver); undefined: the kind has none. */
export type SchemaResolver = (stores: AdmissionStores | undefined, gvk: GroupVersionKind) => Promise<Json | undefined>

/** The declared type of a kind's objects; undefined when it has no schema. */
async function declType(stores: AdmissionStores | undefined, gvk: GroupVersionKind | undefined, resolve: SchemaResolver): Promise<CelVariableType | undefined> {
  if (!gvk) return undefined
  const schema = await resolve(stores, gvk)
  return schema ? celDeclType(withTypeAndObjectMeta(schema), false) : undefined
}

/** The kinds a resource is served as (RESTMapper.KindsFor). */
async function kindsFor(stores: AdmissionStores | undefined, group: string, version: string, resource: string): Promise<GroupVersionKind[]> {
  const served = await servedKinds(stores)
  return served.filter((s) => s.group === group && s.version === version && s.resource === resource).map((s) => ({ group: s.group, version: s.version, kind: s.kind }))
}

const byGvk = (a: GroupVersionKind, b: GroupVersionKind) => (a.group !== b.group ? (a.group < b.group ? -1 : 1) : a.version !== b.version ? (a.version < b.version ? -1 : 1) : a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0)

/** typesToCheck: the kinds of the matchConstraints' resourceRules, sorted, at most 10. */
export async function typesToCheck(policy: KubeObject, stores: AdmissionStores | undefined): Promise<GroupVersionKind[]> {
  const constraints = specOf(policy).matchConstraints as Json | undefined
  const found = new Map<string, GroupVersionKind>()
  let count = 0
  const done = () => [...found.values()].sort(byGvk)
  for (const rule of list(constraints?.resourceRules)) {
    const groups = strings(rule.apiGroups)
    const versions = strings(rule.apiVersions)
    if (groups.length === 0 || groups.some((g) => g.includes('*')) || versions.length === 0 || versions.some((v) => v.includes('*'))) continue
    const resources = strings(rule.resources).filter((r) => !/[*/]/.test(r))
    if (resources.length === 0) continue
    for (const group of [...groups].sort()) {
      for (const version of [...versions].sort()) {
        for (const resource of [...resources].sort()) {
          for (const gvk of await kindsFor(stores, group, version, resource)) {
            found.set(gvkString(gvk), gvk)
            if (++count === MAX_TYPES) return done()
          }
        }
      }
    }
  }
  return done()
}

function paramsGvk(policy: KubeObject): GroupVersionKind | undefined {
  const paramKind = specOf(policy).paramKind as Json | undefined
  if (!paramKind || typeof paramKind !== 'object') return undefined
  try {
    const gv = parseGroupVersion(typeof paramKind.apiVersion === 'string' ? paramKind.apiVersion : '')
    return { ...gv, kind: typeof paramKind.kind === 'string' ? paramKind.kind : '' }
  } catch {
    return undefined
  }
}

/** An environment for one kind; a schema the engine cannot declare leaves the variable dynamic. */
function environment(object: CelVariableType, params: CelVariableType | undefined, hasParams: boolean, variables: Record<string, string>) {
  const make = (o: CelVariableType, p: CelVariableType | undefined) =>
    celEnvironment({
      object: o,
      oldObject: o,
      ...(hasParams ? { params: p ?? 'dyn' } : {}),
      request: 'dyn',
      namespaceObject: 'dyn',
      authorizer: AUTHORIZER_TYPE,
      variables: Object.keys(variables).length > 0 ? { schema: variables } : 'map<string, dyn>',
    })
  try {
    return make(object, params)
  } catch {
    return make('dyn', 'dyn')
  }
}

interface KindContext {
  readonly gvk: GroupVersionKind
  readonly object: CelVariableType
}

/** The compile error of `expression` for one kind, in cel-go's issue text, or undefined. */
function issues(expression: string, kind: KindContext, params: CelVariableType | undefined, hasParams: boolean, variableDecls: Json[]): string | undefined {
  // The variables, each typed by its result in the environment of the ones before it.
  const variableTypes: Record<string, string> = {}
  for (const variable of variableDecls) {
    const name = typeof variable.name === 'string' ? variable.name : ''
    try {
      const program = compileCel(environment(kind.object, params, hasParams, variableTypes), typeof variable.expression === 'string' ? variable.expression : '')
      variableTypes[name] = program.outputType
    } catch {
      // An error in a variable is not reported here; the variable stays dynamic.
      variableTypes[name] = 'dyn'
    }
  }
  try {
    compileCel(environment(kind.object, params, hasParams, variableTypes), expression)
    return undefined
  } catch (err) {
    if (!(err instanceof CelCompileError)) throw err
    return err.message.replace(/^compilation failed: /, '')
  }
}

/** The reference's TypeChecker.Check: the policy's expression warnings (none when all check). */
export async function checkPolicy(policy: KubeObject, stores: AdmissionStores | undefined, resolve: SchemaResolver = resolveSchema): Promise<ExpressionWarning[]> {
  const kinds: KindContext[] = []
  for (const gvk of await typesToCheck(policy, stores)) {
    const object = await declType(stores, gvk, resolve)
    if (object) kinds.push({ gvk, object })
  }
  const paramGvk = paramsGvk(policy)
  const hasParams = specOf(policy).paramKind !== undefined && specOf(policy).paramKind !== null
  const params = await declType(stores, paramGvk, resolve)
  const variables = list(specOf(policy).variables)
  const check = (expression: string): string => {
    const messages: string[] = []
    for (const kind of kinds) {
      const found = issues(expression, kind, params, hasParams, variables)
      if (found !== undefined) messages.push(`${gvkString(kind.gvk)}: ${found}\n`)
    }
    return messages.join('\n')
  }
  const warnings: ExpressionWarning[] = []
  list(specOf(policy).validations).forEach((validation, i) => {
    const expression = typeof validation.expression === 'string' ? validation.expression : ''
    const found = check(expression)
    if (found !== '') warnings.push({ fieldRef: `spec.validations[${i}].expression`, warning: found })
    const messageExpression = typeof validation.messageExpression === 'string' ? validation.messageExpression : ''
    if (messageExpression === '') return
    const foundMessage = check(messageExpression)
    if (foundMessage !== '') warnings.push({ fieldRef: `spec.validations[${i}].messageExpression`, warning: foundMessage })
  })
  return warnings
}
