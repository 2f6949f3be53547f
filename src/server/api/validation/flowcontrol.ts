/**
 * Validation of flowcontrol.apiserver.k8s.io/v1, after the reference's
 * `pkg/apis/flowcontrol/validation/validation.go`: FlowSchema (matching precedence,
 * distinguisher method, the priority level's name, rules with their subjects, resource and
 * non-resource rules; the mandatory schemas' fixed specs; status conditions) and
 * PriorityLevelConfiguration (type, limited and exempt settings, limit response, the queuing
 * parameters and shuffle sharding's entropy; the mandatory levels' fixed specs).
 */
import { flowControlConfiguration } from '../bootstrap/flowcontrol.js'
import type { KubeObject } from '../registry/object.js'
import { type ErrorList, Path, Rendered, duplicate, forbidden, goJSON, invalid, notSupported, required } from './field/index.js'
import { arr, obj, semanticEqual, str } from './helpers.js'
import { nameIsDNSLabel, nameIsDNSSubdomain } from './names.js'

type Obj = Record<string, unknown>

const SPEC = Path.of('spec')
const MAX_MATCHING_PRECEDENCE = 10000
const MAX_QUEUES = 10 * 1000 * 1000
/** shufflesharding.MaxHashBits. */
const MAX_HASH_BITS = 60
const DISTINGUISHER_METHODS = ['ByNamespace', 'ByUser']
const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch']
const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User']
const ENABLEMENTS = ['Exempt', 'Limited']
const LIMIT_RESPONSE_TYPES = ['Queue', 'Reject']
const NS_ERR_INTRO = "each member of this list must be '*' or a DNS-1123 label; "

const isSet = (v: unknown) => v !== undefined && v !== null
const strings = (v: unknown) => arr(v).map((x) => str(x))
const num = (v: unknown) => (typeof v === 'number' ? v : 0)

// ---- bad values: the reference passes its internal structs, which have no JSON names ----

type GoType = 'string' | 'int' | 'bool' | '*int' | '[]string' | { struct: Array<[goName: string, jsonName: string, type: GoType]> } | { ptr: GoType } | { slice: GoType }

function goValue(v: unknown, type: GoType): string {
  if (type === 'string') return goJSON(str(v))
  if (type === 'int') return String(num(v))
  if (type === 'bool') return String(v === true)
  if (type === '*int') return typeof v === 'number' ? String(v) : 'null'
  if (type === '[]string') return arr(v).length === 0 ? 'null' : goJSON(strings(v))
  if ('ptr' in type) return isSet(v) ? goValue(v, type.ptr) : 'null'
  if ('slice' in type) return arr(v).length === 0 ? 'null' : `[${arr(v).map((x) => goValue(x, type.slice)).join(',')}]`
  const o = obj(v)
  return `{${type.struct.map(([goName, jsonName, t]) => `${JSON.stringify(goName)}:${goValue(o[jsonName], t)}`).join(',')}}`
}

const NAME_STRUCT: GoType = { struct: [['Name', 'name', 'string']] }
const SUBJECT: GoType = {
  struct: [
    ['Kind', 'kind', 'string'],
    ['User', 'user', { ptr: NAME_STRUCT }],
    ['Group', 'group', { ptr: NAME_STRUCT }],
    ['ServiceAccount', 'serviceAccount', { ptr: { struct: [['Namespace', 'namespace', 'string'], ['Name', 'name', 'string']] } }],
  ],
}
const FLOW_SCHEMA_SPEC: GoType = {
  struct: [
    ['PriorityLevelConfiguration', 'priorityLevelConfiguration', NAME_STRUCT],
    ['MatchingPrecedence', 'matchingPrecedence', 'int'],
    ['DistinguisherMethod', 'distinguisherMethod', { ptr: { struct: [['Type', 'type', 'string']] } }],
    [
      'Rules',
      'rules',
      {
        slice: {
          struct: [
            ['Subjects', 'subjects', { slice: SUBJECT }],
            [
              'ResourceRules',
              'resourceRules',
              { slice: { struct: [['Verbs', 'verbs', '[]string'], ['APIGroups', 'apiGroups', '[]string'], ['Resources', 'resources', '[]string'], ['ClusterScope', 'clusterScope', 'bool'], ['Namespaces', 'namespaces', '[]string']] } },
            ],
            ['NonResourceRules', 'nonResourceRules', { slice: { struct: [['Verbs', 'verbs', '[]string'], ['NonResourceURLs', 'nonResourceURLs', '[]string']] } }],
          ],
        },
      },
    ],
  ],
}
const PRIORITY_LEVEL_SPEC: GoType = {
  struct: [
    ['Type', 'type', 'string'],
    [
      'Limited',
      'limited',
      {
        ptr: {
          struct: [
            ['NominalConcurrencyShares', 'nominalConcurrencyShares', 'int'],
            ['LimitResponse', 'limitResponse', { struct: [['Type', 'type', 'string'], ['Queuing', 'queuing', { ptr: { struct: [['Queues', 'queues', 'int'], ['HandSize', 'handSize', 'int'], ['QueueLengthLimit', 'queueLengthLimit', 'int']] } }]] }],
            ['LendablePercent', 'lendablePercent', '*int'],
            ['BorrowingLimitPercent', 'borrowingLimitPercent', '*int'],
          ],
        },
      },
    ],
    ['Exempt', 'exempt', { ptr: { struct: [['NominalConcurrencyShares', 'nominalConcurrencyShares', '*int'], ['LendablePercent', 'lendablePercent', '*int']] } }],
  ],
}

/** The mandatory objects' specs (internalbootstrap.MandatoryFlowSchemas and ...PriorityLevelConfigurations). */
function mandatorySpec(kind: string, name: string): Obj | undefined {
  if (name !== 'exempt' && name !== 'catch-all') return undefined
  const found = flowControlConfiguration().find((b) => b.object.kind === kind && obj(b.object.metadata).name === name)
  return found ? obj(found.object.spec) : undefined
}

// ---- FlowSchema ----

function validateServiceAccountSubject(sa: unknown, fldPath: Path): ErrorList {
  if (!isSet(sa)) return [required(fldPath, "serviceAccount is required when subject kind is 'ServiceAccount'")]
  const errs: ErrorList = []
  const name = str(obj(sa).name)
  const namespace = str(obj(sa).namespace)
  if (name.length === 0) errs.push(required(fldPath.child('name')))
  else if (name !== '*') for (const m of nameIsDNSSubdomain(name, false)) errs.push(invalid(fldPath.child('name'), name, m))
  if (namespace.length > 0) for (const m of nameIsDNSLabel(namespace, false)) errs.push(invalid(fldPath.child('namespace'), namespace, m))
  else errs.push(required(fldPath.child('namespace'), 'must specify namespace for service account'))
  return errs
}

function validateNamedSubject(subject: unknown, kind: 'user' | 'group', fldPath: Path): ErrorList {
  if (!isSet(subject)) return [required(fldPath, `${kind} is required when subject kind is '${kind === 'user' ? 'User' : 'Group'}'`)]
  return str(obj(subject).name).length === 0 ? [required(fldPath.child('name'))] : []
}

function validateSubject(subject: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const notUser = () => isSet(subject.user) && errs.push(forbidden(fldPath.child('user'), "user is forbidden when subject kind is not 'User'"))
  const notGroup = () => isSet(subject.group) && errs.push(forbidden(fldPath.child('group'), "group is forbidden when subject kind is not 'Group'"))
  const notSA = () => isSet(subject.serviceAccount) && errs.push(forbidden(fldPath.child('serviceAccount'), "serviceAccount is forbidden when subject kind is not 'ServiceAccount'"))
  switch (str(subject.kind)) {
    case 'ServiceAccount':
      errs.push(...validateServiceAccountSubject(subject.serviceAccount, fldPath.child('serviceAccount')))
      notUser()
      notGroup()
      break
    case 'User':
      errs.push(...validateNamedSubject(subject.user, 'user', fldPath.child('user')))
      notSA()
      notGroup()
      break
    case 'Group':
      errs.push(...validateNamedSubject(subject.group, 'group', fldPath.child('group')))
      notSA()
      notUser()
      break
    default:
      errs.push(notSupported(fldPath.child('kind'), str(subject.kind), SUBJECT_KINDS))
  }
  return errs
}

function validateVerbs(verbs: string[], fldPath: Path): ErrorList {
  if (verbs.length === 0) return [required(fldPath, 'verbs must contain at least one value')]
  if (verbs.includes('*')) return verbs.length > 1 ? [invalid(fldPath, verbs, "if '*' is present, must not specify other verbs")] : []
  return verbs.every((v) => VERBS.includes(v)) ? [] : [notSupported(fldPath, verbs, VERBS)]
}

/** ValidateNonResourceURLPath. */
function validateNonResourceURLPath(path: string, fldPath: Path): ErrorList {
  if (path.length === 0) return [invalid(fldPath, path, 'must not be empty')]
  if (path === '/') return []
  if (!path.startsWith('/')) return [invalid(fldPath, path, 'must start with slash')]
  if (path.includes(' ')) return [invalid(fldPath, path, 'must not contain white-space')]
  if (path.includes('//')) return [invalid(fldPath, path, 'must not contain double slash')]
  const wildcards = path.split('*').length - 1
  if (wildcards > 1 || (wildcards === 1 && path.slice(-2) !== '/*')) return [invalid(fldPath, path, 'wildcard can only do suffix matching')]
  return []
}

function validateResourceRule(rule: Obj, fldPath: Path): ErrorList {
  const errs = validateVerbs(strings(rule.verbs), fldPath.child('verbs'))
  const groups = strings(rule.apiGroups)
  if (groups.length === 0) errs.push(required(fldPath.child('apiGroups'), 'resource rules must supply at least one api group'))
  else if (groups.length > 1 && groups.includes('*')) errs.push(invalid(fldPath.child('apiGroups'), groups, "if '*' is present, must not specify other api groups"))
  const resources = strings(rule.resources)
  if (resources.length === 0) errs.push(required(fldPath.child('resources'), 'resource rules must supply at least one resource'))
  else if (resources.length > 1 && resources.includes('*')) errs.push(invalid(fldPath.child('resources'), resources, "if '*' is present, must not specify other resources"))
  const namespaces = strings(rule.namespaces)
  if (namespaces.length === 0 && rule.clusterScope !== true) {
    errs.push(required(fldPath.child('namespaces'), 'resource rules that are not cluster scoped must supply at least one namespace'))
  } else if (namespaces.includes('*')) {
    if (namespaces.length > 1) errs.push(invalid(fldPath.child('namespaces'), namespaces, "if '*' is present, must not specify other namespaces"))
  } else {
    namespaces.forEach((ns, i) => {
      for (const m of nameIsDNSLabel(ns, false)) errs.push(invalid(fldPath.child('namespaces').index(i), ns, NS_ERR_INTRO + m))
    })
  }
  return errs
}

function validateNonResourceRule(rule: Obj, fldPath: Path): ErrorList {
  const errs = validateVerbs(strings(rule.verbs), fldPath.child('verbs'))
  const urls = strings(rule.nonResourceURLs)
  if (urls.length === 0) errs.push(required(fldPath.child('nonResourceURLs'), 'nonResourceURLs must contain at least one value'))
  else if (urls.includes('*')) {
    if (urls.length > 1) errs.push(invalid(fldPath.child('nonResourceURLs'), urls, "if '*' is present, must not specify other non-resource URLs"))
  } else urls.forEach((u, i) => errs.push(...validateNonResourceURLPath(u, fldPath.child('nonResourceURLs').index(i))))
  return errs
}

function validatePolicyRulesWithSubjects(rule: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const subjects = arr(rule.subjects)
  if (subjects.length > 0) subjects.forEach((s, i) => errs.push(...validateSubject(obj(s), fldPath.child('subjects').index(i))))
  else errs.push(required(fldPath.child('subjects'), 'subjects must contain at least one value'))
  const resourceRules = arr(rule.resourceRules)
  const nonResourceRules = arr(rule.nonResourceRules)
  if (resourceRules.length === 0 && nonResourceRules.length === 0) errs.push(required(fldPath, 'at least one of resourceRules and nonResourceRules has to be non-empty'))
  resourceRules.forEach((r, i) => errs.push(...validateResourceRule(obj(r), fldPath.child('resourceRules').index(i))))
  nonResourceRules.forEach((r, i) => errs.push(...validateNonResourceRule(obj(r), fldPath.child('nonResourceRules').index(i))))
  return errs
}

function validateFlowSchemaSpec(name: string, spec: Obj): ErrorList {
  const errs: ErrorList = []
  const precedence = num(spec.matchingPrecedence)
  const precedencePath = SPEC.child('matchingPrecedence')
  if (precedence <= 0) errs.push(invalid(precedencePath, precedence, 'must be a positive value'))
  if (precedence > MAX_MATCHING_PRECEDENCE) errs.push(invalid(precedencePath, precedence, `must not be greater than ${MAX_MATCHING_PRECEDENCE}`))
  if (precedence === 1 && name !== 'exempt') errs.push(invalid(precedencePath, precedence, "only the schema named 'exempt' may have matchingPrecedence 1"))
  if (isSet(spec.distinguisherMethod)) {
    const method = obj(spec.distinguisherMethod)
    // The reference passes the whole method (a pointer to its struct) as the bad value.
    if (!DISTINGUISHER_METHODS.includes(str(method.type))) errs.push(notSupported(SPEC.child('distinguisherMethod', 'type'), new Rendered(`{"Type":${goJSON(str(method.type))}}`), DISTINGUISHER_METHODS))
  }
  const level = str(obj(spec.priorityLevelConfiguration).name)
  if (level.length > 0) for (const m of nameIsDNSSubdomain(level, false)) errs.push(invalid(SPEC.child('priorityLevelConfiguration', 'name'), level, m))
  else errs.push(required(SPEC.child('priorityLevelConfiguration', 'name'), 'must reference a priority level'))
  arr(spec.rules).forEach((r, i) => errs.push(...validatePolicyRulesWithSubjects(obj(r), SPEC.child('rules').index(i))))
  return errs
}

function validateStatusConditions(status: unknown): ErrorList {
  const errs: ErrorList = []
  const types = new Set<string>()
  arr(obj(status).conditions).forEach((c, i) => {
    const path = Path.of('status', 'conditions').index(i)
    const type = str(obj(c).type)
    if (types.has(type)) errs.push(duplicate(path.child('type'), type))
    types.add(type)
    if (type.length === 0) errs.push(required(path.child('type'), 'must not be empty'))
  })
  return errs
}

/** ValidateFlowSchema (without the metadata): the spec, a mandatory schema's fixed spec, the status. */
export function validateFlowSchema(o: KubeObject): ErrorList {
  const name = str(o.metadata.name)
  const spec = obj(o.spec)
  const errs = validateFlowSchemaSpec(name, spec)
  const mandatory = mandatorySpec('FlowSchema', name)
  if (mandatory && !semanticEqual(spec, mandatory)) errs.push(invalid(SPEC, new Rendered(goValue(spec, FLOW_SCHEMA_SPEC)), `spec of '${name}' must equal the fixed value`))
  errs.push(...validateStatusConditions(o.status))
  return errs
}

/** ValidateFlowSchemaStatusUpdate. */
export function validateFlowSchemaStatusUpdate(o: KubeObject): ErrorList {
  return validateStatusConditions(o.status)
}

// ---- PriorityLevelConfiguration ----

/** shufflesharding.RequiredEntropyBits. */
function requiredEntropyBits(deckSize: number, handSize: number): number {
  return Math.ceil(Math.log2(deckSize) * handSize)
}

function validateQueuing(q: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const queueLengthLimit = num(q.queueLengthLimit)
  const queues = num(q.queues)
  const handSize = num(q.handSize)
  if (queueLengthLimit <= 0) errs.push(invalid(fldPath.child('queueLengthLimit'), queueLengthLimit, 'must be positive'))
  if (queues <= 0) errs.push(invalid(fldPath.child('queues'), queues, 'must be positive'))
  else if (queues > MAX_QUEUES) errs.push(invalid(fldPath.child('queues'), queues, `must not be greater than ${MAX_QUEUES}`))
  if (handSize <= 0) errs.push(invalid(fldPath.child('handSize'), handSize, 'must be positive'))
  else if (handSize > queues) errs.push(invalid(fldPath.child('handSize'), handSize, `should not be greater than queues (${queues})`))
  else if (requiredEntropyBits(queues, handSize) > MAX_HASH_BITS) {
    errs.push(invalid(fldPath.child('handSize'), handSize, `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${MAX_HASH_BITS}`))
  }
  return errs
}

function validateLimitResponse(lr: Obj, fldPath: Path): ErrorList {
  switch (str(lr.type)) {
    case 'Reject':
      return isSet(lr.queuing) ? [forbidden(fldPath.child('queuing'), 'must be nil if limited.limitResponse.type is not Limited')] : []
    case 'Queue':
      return isSet(lr.queuing) ? validateQueuing(obj(lr.queuing), fldPath.child('queuing')) : [required(fldPath.child('queuing'), 'must not be empty if limited.limitResponse.type is Limited')]
    default:
      return [notSupported(fldPath.child('type'), str(lr.type), LIMIT_RESPONSE_TYPES)]
  }
}

function validateLendablePercent(value: unknown, fldPath: Path): ErrorList {
  return typeof value === 'number' && !(value >= 0 && value <= 100) ? [invalid(fldPath, value, 'must be between 0 and 100, inclusive')] : []
}

/** ValidateLimitedPriorityLevelConfiguration (zero shares allowed: ZeroLimitedNominalConcurrencyShares is on). */
function validateLimited(l: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const shares = num(l.nominalConcurrencyShares)
  if (shares < 0) errs.push(invalid(fldPath.child('nominalConcurrencyShares'), shares, 'must be a non-negative integer'))
  errs.push(...validateLimitResponse(obj(l.limitResponse), fldPath.child('limitResponse')))
  errs.push(...validateLendablePercent(l.lendablePercent, fldPath.child('lendablePercent')))
  if (typeof l.borrowingLimitPercent === 'number' && l.borrowingLimitPercent < 0) {
    errs.push(invalid(fldPath.child('borrowingLimitPercent'), l.borrowingLimitPercent, 'if specified, must be a non-negative integer'))
  }
  return errs
}

function validateExempt(e: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (typeof e.nominalConcurrencyShares === 'number' && e.nominalConcurrencyShares < 0) {
    errs.push(invalid(fldPath.child('nominalConcurrencyShares'), e.nominalConcurrencyShares, 'must be a non-negative integer'))
  }
  errs.push(...validateLendablePercent(e.lendablePercent, fldPath.child('lendablePercent')))
  return errs
}

function validatePriorityLevelConfigurationSpec(spec: Obj, name: string): ErrorList {
  const errs: ErrorList = []
  const type = str(spec.type)
  if ((name === 'exempt') !== (type === 'Exempt')) errs.push(invalid(SPEC.child('type'), type, "type must be 'Exempt' if and only if name is 'exempt'"))
  switch (type) {
    case 'Exempt':
      if (isSet(spec.limited)) errs.push(forbidden(SPEC.child('limited'), 'must be nil if the type is not Limited'))
      if (isSet(spec.exempt)) errs.push(...validateExempt(obj(spec.exempt), SPEC.child('exempt')))
      break
    case 'Limited':
      if (isSet(spec.exempt)) errs.push(forbidden(SPEC.child('exempt'), 'must be nil if the type is Limited'))
      if (!isSet(spec.limited)) errs.push(required(SPEC.child('limited'), 'must not be empty when type is Limited'))
      else errs.push(...validateLimited(obj(spec.limited), SPEC.child('limited')))
      break
    default:
      errs.push(notSupported(SPEC.child('type'), type, ENABLEMENTS))
  }
  return errs
}

/**
 * ValidatePriorityLevelConfiguration (without the metadata): the spec, a mandatory level's
 * fixed spec (the exempt level's `exempt` settings may be changed by its users), the status.
 */
export function validatePriorityLevelConfiguration(o: KubeObject): ErrorList {
  const name = str(o.metadata.name)
  const spec = obj(o.spec)
  const errs = validatePriorityLevelConfigurationSpec(spec, name)
  const mandatory = mandatorySpec('PriorityLevelConfiguration', name)
  const comparable = (s: Obj) => (name === 'exempt' ? { ...s, exempt: undefined } : s)
  if (mandatory && !semanticEqual(comparable(spec), comparable(mandatory))) {
    errs.push(invalid(SPEC, new Rendered(goValue(spec, PRIORITY_LEVEL_SPEC)), `spec of '${name}' must equal the fixed value`))
  }
  errs.push(...validateStatusConditions(o.status))
  return errs
}

/** ValidatePriorityLevelConfigurationStatusUpdate. */
export function validatePriorityLevelConfigurationStatusUpdate(o: KubeObject): ErrorList {
  return validateStatusConditions(o.status)
}
