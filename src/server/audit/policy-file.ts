/**
 * The audit policy file (`--audit-policy-file`), read as the reference's audit/policy
 * reader.go reads it: YAML or JSON, an `audit.k8s.io/v1` Policy; fields the type does not
 * have are warned about and ignored (its strict decoding falling back to lenient); the
 * validation errors (policy-validation.ts), or no rule at all, refuse the file. Errors carry
 * the reference's text and name the file; the server stops with `loading audit policy file:`
 * before them.
 */
import { readFileSync } from 'node:fs'
import { loadYaml } from '../../core/util/yaml.js'
import { goJsonType } from '../../core/util/go-json-type.js'
import { aggregateMessage } from '../api/validation/field/index.js'
import type { Policy } from './policy.js'
import { validatePolicy } from './policy-validation.js'

export class PolicyFileError extends Error {}

const POLICY_VERSION = 'audit.k8s.io/v1'

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The fields of each type of the Policy (v1 types.go), and which are lists of strings. */
const POLICY_FIELDS = ['apiVersion', 'kind', 'metadata', 'rules', 'omitStages', 'omitManagedFields']
const RULE_FIELDS = ['level', 'users', 'userGroups', 'verbs', 'resources', 'namespaces', 'nonResourceURLs', 'omitStages', 'omitManagedFields']
const GROUP_RESOURCES_FIELDS = ['group', 'resources', 'resourceNames']

/** LoadPolicyFromFile. `warn` hears of fields the policy's types do not have. */
export function loadPolicyFromFile(path: string, warn: (message: string) => void): Policy {
  if (path === '') throw new PolicyFileError('file path not specified')
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw new PolicyFileError(`failed to read file path "${path}": ${goOpenError(path, err as NodeJS.ErrnoException)}`)
  }
  try {
    return loadPolicyFromBytes(text, warn)
  } catch (err) {
    if (err instanceof PolicyFileError) throw new PolicyFileError(`${err.message}: from file ${path}`)
    throw err
  }
}

/** LoadPolicyFromBytes: decoded, its version checked, validated, and at least one rule. */
export function loadPolicyFromBytes(text: string, warn: (message: string) => void = () => {}): Policy {
  let doc: unknown
  try {
    doc = text.trim() === '' ? {} : loadYaml(text)
  } catch (err) {
    throw new PolicyFileError(`failed decoding: ${(err as Error).message}`)
  }
  if (doc === null || doc === undefined) doc = {}
  if (!isObj(doc)) throw new PolicyFileError(`failed decoding: couldn't get version/kind; json parse error: json: cannot unmarshal ${goJsonType(doc)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`)
  const apiVersion = typeof doc.apiVersion === 'string' ? doc.apiVersion : ''
  const kind = typeof doc.kind === 'string' ? doc.kind : ''
  if (apiVersion !== '' && (apiVersion !== POLICY_VERSION || kind !== 'Policy')) {
    // Only audit.k8s.io/v1 Policy is in the reference's audit scheme.
    throw new PolicyFileError(`failed decoding: no kind "${kind}" is registered for version "${apiVersion}" in scheme "k8s.io/apiserver/pkg/audit/scheme.go:30"`)
  }
  const unknown = unknownFields(doc)
  if (unknown.length > 0) warn(`Audit policy contains errors, falling back to lenient decoding: strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(', ')}`)
  const policy = decodePolicy(doc)
  // Without apiVersion and kind the decoder keeps the internal version, which no file may use.
  if (apiVersion === '') throw new PolicyFileError(`unknown group version field audit.k8s.io/__internal, Kind=Policy in policy`)
  const errors = validatePolicy(policy)
  if (errors.length > 0) throw new PolicyFileError(aggregateMessage(errors))
  if (policy.rules.length === 0) throw new PolicyFileError('loaded illegal policy with 0 rules')
  return policy
}

function decodePolicy(doc: Obj): Policy {
  const rules = list(doc.rules, 'Policy.rules', '[]v1.PolicyRule').map(decodeRule)
  return {
    apiVersion: POLICY_VERSION,
    kind: 'Policy',
    rules,
    ...(doc.omitStages != null ? { omitStages: strings(doc.omitStages, 'Policy.omitStages', '[]v1.Stage') as Policy['omitStages'] } : {}),
    ...(doc.omitManagedFields != null ? { omitManagedFields: bool(doc.omitManagedFields, 'Policy.omitManagedFields') } : {}),
  }
}

function decodeRule(rule: unknown): Policy['rules'][number] {
  if (!isObj(rule)) throw typeError(rule, 'Policy.rules', 'v1.PolicyRule')
  const out: Record<string, unknown> = { level: rule.level == null ? '' : str(rule.level, 'PolicyRule.rules.level', 'v1.Level') }
  for (const field of ['users', 'userGroups', 'verbs', 'namespaces', 'nonResourceURLs', 'omitStages'] as const) {
    if (rule[field] != null) out[field] = strings(rule[field], `PolicyRule.rules.${field}`, field === 'omitStages' ? '[]v1.Stage' : '[]string')
  }
  if (rule.resources != null) {
    out.resources = list(rule.resources, 'PolicyRule.rules.resources', '[]v1.GroupResources').map((gr) => {
      if (!isObj(gr)) throw typeError(gr, 'PolicyRule.rules.resources', 'v1.GroupResources')
      const decoded: Record<string, unknown> = {}
      if (gr.group != null) decoded.group = str(gr.group, 'GroupResources.rules.resources.group', 'string')
      if (gr.resources != null) decoded.resources = strings(gr.resources, 'GroupResources.rules.resources.resources', '[]string')
      if (gr.resourceNames != null) decoded.resourceNames = strings(gr.resourceNames, 'GroupResources.rules.resources.resourceNames', '[]string')
      return decoded
    })
  }
  if (rule.omitManagedFields != null) out.omitManagedFields = bool(rule.omitManagedFields, 'PolicyRule.rules.omitManagedFields')
  return out as unknown as Policy['rules'][number]
}

/** The paths of fields the types do not have (what strict decoding reports). */
function unknownFields(doc: Obj): string[] {
  const found: string[] = []
  const check = (obj: unknown, known: readonly string[], prefix: string) => {
    if (!isObj(obj)) return
    for (const key of Object.keys(obj)) if (!known.includes(key)) found.push(`${prefix}${key}`)
  }
  check(doc, POLICY_FIELDS, '')
  const rules = Array.isArray(doc.rules) ? doc.rules : []
  rules.forEach((rule, i) => {
    check(rule, RULE_FIELDS, `rules[${i}].`)
    const resources = isObj(rule) && Array.isArray(rule.resources) ? rule.resources : []
    resources.forEach((gr, j) => check(gr, GROUP_RESOURCES_FIELDS, `rules[${i}].resources[${j}].`))
  })
  return found
}

function list(v: unknown, field: string, type: string): unknown[] {
  if (v == null) return []
  if (!Array.isArray(v)) throw typeError(v, field, type)
  return v
}

function strings(v: unknown, field: string, type: string): string[] {
  return list(v, field, type).map((item) => str(item, field, type.replace(/^\[\]/, '')))
}

function str(v: unknown, field: string, type: string): string {
  if (typeof v !== 'string') throw typeError(v, field, type)
  return v
}

function bool(v: unknown, field: string): boolean {
  if (typeof v !== 'boolean') throw typeError(v, field, 'bool')
  return v
}

/** encoding/json's UnmarshalTypeError text. */
function typeError(v: unknown, field: string, type: string): PolicyFileError {
  return new PolicyFileError(`failed decoding: json: cannot unmarshal ${goJsonType(v)} into Go struct field ${field} of type ${type}`)
}


/** Go's text of a failed open or read: `open <path>: no such file or directory`. */
function goOpenError(path: string, err: NodeJS.ErrnoException): string {
  const why: Record<string, string> = { ENOENT: 'no such file or directory', EACCES: 'permission denied', ENOTDIR: 'not a directory' }
  return err.code === 'EISDIR' ? `read ${path}: is a directory` : `open ${path}: ${why[err.code ?? ''] ?? err.message}`
}
