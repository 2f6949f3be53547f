/**
 * Sets of completion indexes as the reference's job controller keeps them (orderedIntervals in
 * indexed_job_utils.go): written as `status.completedIndexes` / `failedIndexes` in the
 * compressed form `1,3-5,7`, and read back the same way, ignoring indexes at or beyond the
 * completions.
 */
export type Interval = readonly [first: number, last: number]

/** parseIndexesFromString: the valid intervals of `text` below `completions`. */
export function parseIndexes(text: string | undefined, completions: number): Interval[] {
  const out: Interval[] = []
  if (!text) return out
  for (const part of text.split(',')) {
    const [a, b] = part.split('-')
    const first = Number(a)
    const last = b === undefined ? first : Number(b)
    if (!Number.isInteger(first) || !Number.isInteger(last) || first < 0 || first > last || first >= completions) continue
    out.push([first, Math.min(last, completions - 1)])
  }
  return out
}

export function toSet(intervals: readonly Interval[]): Set<number> {
  const set = new Set<number>()
  for (const [first, last] of intervals) for (let i = first; i <= last; i++) set.add(i)
  return set
}

/** The compressed text of a set of indexes (`0-2,4`); empty for none. */
export function formatIndexes(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b)
  const parts: string[] = []
  for (let i = 0; i < sorted.length; ) {
    let j = i
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`)
    i = j + 1
  }
  return parts.join(',')
}
