/**
 * The name rules a kind picks for metadata.name, as the reference's ValidateNameFunc
 * (`k8s.io/apimachinery/pkg/api/validation/generic.go`, `.../path/name.go`): `prefix` is true
 * for a generateName, which may end with a dash since a suffix follows.
 */
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isValidPathSegmentName, isValidPathSegmentPrefix } from './strings.js'

/** A kind's name rule: the messages of what is wrong with the name (or generateName when prefix). */
export type NameValidator = (name: string, prefix?: boolean) => readonly string[]

/** maskTrailingDash: a generateName's final dash stands for the generated suffix. */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name
}

export const nameIsDNSSubdomain: NameValidator = (name, prefix = false) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name)

export const nameIsDNSLabel: NameValidator = (name, prefix = false) => isDNS1123Label(prefix ? maskTrailingDash(name) : name)

export const nameIsDNS1035Label: NameValidator = (name, prefix = false) => isDNS1035Label(prefix ? maskTrailingDash(name) : name)

/** path.ValidatePathSegmentName: names that only have to be URL path segments (RBAC roles...). */
export const pathSegmentName: NameValidator = (name, prefix = false) => (prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name))

/** Any name at all (kinds whose reference ValidateNameFunc accepts everything). */
export const anyName: NameValidator = () => []
