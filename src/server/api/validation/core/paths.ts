/**
 * The file-path rules of the core group (pkg/apis/core/validation/validation.go):
 * validateLocalDescendingPath, validatePathNoBacksteps, ValidateLocalNonReservedPath.
 */
import { type ErrorList, type Path, invalid } from '../field/index.js'

/** validatePathNoBacksteps: no `..` element. */
export function validatePathNoBacksteps(targetPath: string, fldPath: Path): ErrorList {
  return targetPath.split('/').includes('..') ? [invalid(fldPath, targetPath, "must not contain '..'")] : []
}

/** validateLocalDescendingPath: relative, without `..` elements. */
export function validateLocalDescendingPath(targetPath: string, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (targetPath.startsWith('/')) errs.push(invalid(fldPath, targetPath, 'must be a relative path'))
  return [...errs, ...validatePathNoBacksteps(targetPath, fldPath)]
}

/** ValidateLocalNonReservedPath: a descending path that does not start with `..`. */
export function validateLocalNonReservedPath(targetPath: string, fldPath: Path): ErrorList {
  const errs = validateLocalDescendingPath(targetPath, fldPath)
  if (targetPath.startsWith('..') && !targetPath.startsWith('../')) errs.push(invalid(fldPath, targetPath, "must not start with '..'"))
  return errs
}
