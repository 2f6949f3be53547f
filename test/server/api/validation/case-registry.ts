/**
 * The count of table cases per kind, kept as the tables are defined: the table helpers
 * (`kindTable`, `updateTable` in groups-support.ts; `invalidCreates`, `validCreates` in
 * support.ts) record each case under its strategy's `<group>/<resource>`, so the coverage test
 * counts the cases that really run, not a list written by hand.
 */
export interface KindCases {
  /** Invalid objects and updates, each with its expected errors. */
  invalid: number
  /** Valid objects accepted. */
  valid: number
}

const cases = new Map<string, KindCases>()

/** `<group>/<resource>`, the core group as `core`. */
export function kindKey(group: string, resource: string): string {
  return `${group || 'core'}/${resource}`
}

export function recordCases(kind: { group: string; resource: string }, invalid: number, valid: number): void {
  const key = kindKey(kind.group, kind.resource)
  const entry = cases.get(key) ?? { invalid: 0, valid: 0 }
  entry.invalid += invalid
  entry.valid += valid
  cases.set(key, entry)
}

export function recordedCases(): ReadonlyMap<string, KindCases> {
  return cases
}
