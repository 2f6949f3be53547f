/**
 * The requests a level or queue is executing, in the order they started (the debug dump lists
 * them so). A doubly linked list through the entries themselves: a `Set` of entries grew,
 * shrank and rehashed its table on nearly every request as the count went up and down, and
 * adding and removing a linked entry allocates nothing.
 */
export interface Linked<T> {
  prev?: T
  next?: T
  /** Whether the entry is in a list (an entry is in one list at most). */
  listed?: boolean
}

export class EntryList<T extends Linked<T>> implements Iterable<T> {
  private head: T | undefined = undefined
  private tail: T | undefined = undefined
  size = 0

  add(entry: T): void {
    if (entry.listed) return
    entry.listed = true
    entry.prev = this.tail
    entry.next = undefined
    if (this.tail) this.tail.next = entry
    else this.head = entry
    this.tail = entry
    this.size++
  }

  delete(entry: T): boolean {
    if (!entry.listed) return false
    entry.listed = false
    if (entry.prev) entry.prev.next = entry.next
    else this.head = entry.next
    if (entry.next) entry.next.prev = entry.prev
    else this.tail = entry.prev
    entry.prev = entry.next = undefined
    this.size--
    return true
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let e = this.head; e; e = e.next) yield e
  }
}
