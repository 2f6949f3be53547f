/**
 * The meta/v1 validators shared by every group, as the reference's
 * `k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go`: labels, label selectors,
 * managed fields, field managers and conditions.
 */
import { type ErrorList, type Path, forbidden, invalid, notSupported, required, tooLong, duplicate } from './field/index.js'
import { arr, obj, str } from './helpers.js'
import { isQualifiedName, isValidLabelValue, regexError } from './strings.js'

export function validateLabelName(labelName: string, fldPath: Path): ErrorList {
  return isQualifiedName(labelName).map((m) => invalid(fldPath, labelName, m))
}

/** ValidateLabels: every key a qualified name, every value a label value (errors at the map's path). */
export function validateLabels(labels: unknown, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const map = obj(labels)
  for (const k in map) {
    if (!Object.hasOwn(map, k)) continue
    for (const m of isQualifiedName(k)) errs.push(invalid(fldPath, k, m))
    const value = str(map[k])
    for (const m of isValidLabelValue(value)) errs.push(invalid(fldPath, value, m))
  }
  return errs
}

export interface LabelSelectorValidationOptions {
  allowInvalidLabelValueInSelector?: boolean
  allowUnknownOperatorInRequirement?: boolean
}

export function validateLabelSelectorRequirement(sr: unknown, opts: LabelSelectorValidationOptions, fldPath: Path): ErrorList {
  const r = obj(sr)
  const operator = str(r.operator)
  const values = arr(r.values)
  const errs: ErrorList = []
  switch (operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errs.push(required(fldPath.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"))
      break
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) errs.push(forbidden(fldPath.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
      break
    default:
      if (!opts.allowUnknownOperatorInRequirement) errs.push(invalid(fldPath.child('operator'), operator, 'not a valid selector operator'))
  }
  errs.push(...validateLabelName(str(r.key), fldPath.child('key')))
  if (!opts.allowInvalidLabelValueInSelector) {
    values.forEach((v, i) => {
      for (const m of isValidLabelValue(str(v))) errs.push(invalid(fldPath.child('values').index(i), str(v), m))
    })
  }
  return errs
}

/** ValidateLabelSelector (metav1.LabelSelector): nil is valid. */
export function validateLabelSelector(ps: unknown, opts: LabelSelectorValidationOptions, fldPath: Path): ErrorList {
  if (ps === undefined || ps === null) return []
  const s = obj(ps)
  const errs = validateLabels(s.matchLabels, fldPath.child('matchLabels'))
  arr(s.matchExpressions).forEach((e, i) => errs.push(...validateLabelSelectorRequirement(e, opts, fldPath.child('matchExpressions').index(i))))
  return errs
}

export const FIELD_MANAGER_MAX_LENGTH = 128

/** ValidateFieldManager: at most 128 bytes, printable characters only. */
export function validateFieldManager(fieldManager: string, fldPath: Path): ErrorList {
  // Every printable ASCII character is a letter, digit, punctuation, symbol or space, and one
  // byte: the usual manager ("kubectl-client-side-apply") is checked without the per-character
  // Unicode test below.
  if (fieldManager.length <= FIELD_MANAGER_MAX_LENGTH && isPrintableAscii(fieldManager)) return []
  const errs: ErrorList = []
  if (Buffer.byteLength(fieldManager) > FIELD_MANAGER_MAX_LENGTH) errs.push(tooLong(fldPath, FIELD_MANAGER_MAX_LENGTH))
  let pos = 0
  for (const ch of fieldManager) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) {
      const cp = ch.codePointAt(0)!
      errs.push(invalid(fldPath, fieldManager, `invalid character U+${cp.toString(16).toUpperCase().padStart(4, '0')} (at position ${pos})`))
    }
    pos += Buffer.byteLength(ch)
  }
  return errs
}

function isPrintableAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x20 || c > 0x7e) return false
  }
  return true
}

const MAX_SUBRESOURCE_NAME_LENGTH = 256

export function validateManagedFields(fieldsList: unknown, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  arr(fieldsList).forEach((f, i) => {
    const entry = obj(f)
    const p = fldPath.index(i)
    const operation = str(entry.operation)
    if (operation !== 'Apply' && operation !== 'Update') errs.push(invalid(p.child('operation'), operation, 'must be `Apply` or `Update`'))
    const fieldsType = str(entry.fieldsType)
    if (fieldsType.length > 0 && fieldsType !== 'FieldsV1') errs.push(invalid(p.child('fieldsType'), fieldsType, 'must be `FieldsV1`'))
    errs.push(...validateFieldManager(str(entry.manager), p.child('manager')))
    if (Buffer.byteLength(str(entry.subresource)) > MAX_SUBRESOURCE_NAME_LENGTH) errs.push(tooLong(p.child('subresource'), MAX_SUBRESOURCE_NAME_LENGTH))
  })
  return errs
}

const CONDITION_REASON_FMT = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?'
const CONDITION_REASON_RE = new RegExp(`^${CONDITION_REASON_FMT}$`)

/** ValidateConditions (metav1.Condition lists in status). */
export function validateConditions(conditions: unknown, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const seen = new Set<string>()
  arr(conditions).forEach((c, i) => {
    const cond = obj(c)
    const type = str(cond.type)
    if (seen.has(type)) errs.push(duplicate(fldPath.index(i).child('type'), type))
    else seen.add(type)
    errs.push(...validateCondition(cond, fldPath.index(i)))
  })
  return errs
}

export function validateCondition(c: unknown, fldPath: Path): ErrorList {
  const cond = obj(c)
  const errs = validateLabelName(str(cond.type), fldPath.child('type'))
  const status = str(cond.status)
  if (!['False', 'True', 'Unknown'].includes(status)) errs.push(notSupported(fldPath.child('status'), status, ['False', 'True', 'Unknown']))
  if (typeof cond.observedGeneration === 'number' && cond.observedGeneration < 0) {
    errs.push(invalid(fldPath.child('observedGeneration'), cond.observedGeneration, 'must be greater than or equal to zero'))
  }
  if (!str(cond.lastTransitionTime)) errs.push(required(fldPath.child('lastTransitionTime')))
  const reason = str(cond.reason)
  if (reason.length === 0) errs.push(required(fldPath.child('reason')))
  else {
    if (!CONDITION_REASON_RE.test(reason)) {
      errs.push(
        invalid(
          fldPath.child('reason'),
          reason,
          regexError(
            "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
            CONDITION_REASON_FMT,
            'my_name',
            'MY_NAME',
            'MyName',
            'ReasonA,ReasonB',
            'ReasonA:ReasonB',
          ),
        ),
      )
    }
    if (Buffer.byteLength(reason) > 1024) errs.push(tooLong(fldPath.child('reason'), 1024))
  }
  if (Buffer.byteLength(str(cond.message)) > 32 * 1024) errs.push(tooLong(fldPath.child('message'), 32 * 1024))
  return errs
}
