/**
 * Go's text/tabwriter with padchar ' ' and no flags: a cell is text ended by a tab; the cells
 * of one column in consecutive lines form a block padded to its widest cell plus the padding
 * (at least the minimum width); the last cell of a line (after its last tab) is not part of
 * any column and is written as it is.
 */
export interface TabwriterSettings {
  minWidth: number
  padding: number
}

/** kubectl's printers.GetNewTabWriter: minwidth 6, padding 3. */
export const KUBECTL_TABWRITER: TabwriterSettings = { minWidth: 6, padding: 3 }

/** Width as Go counts it: runes. */
const width = (text: string) => [...text].length

/** The text written out in columns. */
export function tabwrite(text: string, settings: TabwriterSettings): string {
  const lines = text.split('\n')
  const last = lines.pop() // after the final newline: '' (or an unterminated line, written as it is)
  const cells = lines.map((line) => line.split('\t'))
  const widths = cells.map((line) => new Array<number>(Math.max(0, line.length - 1)).fill(0))
  // tabwriter's format(): a column's block is the run of lines that have a cell in it.
  const format = (from: number, to: number, column: number): void => {
    let i = from
    while (i < to) {
      if (column >= cells[i]!.length - 1) {
        i++
        continue
      }
      let end = i
      let w = settings.minWidth
      while (end < to && column < cells[end]!.length - 1) {
        w = Math.max(w, width(cells[end]![column]!) + settings.padding)
        end++
      }
      for (let j = i; j < end; j++) widths[j]![column] = w
      format(i, end, column + 1)
      i = end
    }
  }
  format(0, cells.length, 0)
  const out = cells.map((line, i) => line.map((cell, j) => (j < line.length - 1 ? cell + ' '.repeat(widths[i]![j]! - width(cell)) : cell)).join(''))
  return out.map((l) => `${l}\n`).join('') + (last ?? '')
}
