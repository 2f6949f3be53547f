/**
 * The path from an object's root to one of its fields, as the reference's
 * `k8s.io/apimachinery/pkg/util/validation/field/path.go`: `spec.containers[0].ports[1]`,
 * `metadata.labels[app]`. Immutable: child, index and key return other paths.
 *
 * Validation asks for a path for nearly every field it visits, and needs one only when it
 * reports an error, which a valid object never does: building them was ~10 % of what a
 * validation of a full Pod allocates. As paths are immutable, the roots (`of`), the named
 * children (`child`) and the small subscripts (`index`) are made once and kept: after the first
 * object of a kind, a validation builds no path. Map keys (`key`) are data (label names,
 * resource names), so they are never kept, and the whole store is bounded (CACHE_LIMIT nodes):
 * names from data that reach `of` or `child` cannot make it grow without bound.
 */
export class Path {
  /** The kept named children of this path, by name (made on the first `child`). */
  private children: Map<string, Path> | undefined = undefined
  /** The kept `index(i)` children of this path, for i < INDEX_LIMIT. */
  private indexes: Path[] | undefined = undefined
  /**
   * Whether this path is kept. Only a kept path keeps children: those of a path made per use
   * (a map key's, a long list's) would die with it, and counting them would spend the bound.
   */
  private kept = false

  private constructor(
    /** The field's name, or '' when this element is a subscript. */
    private readonly name: string,
    /** The subscript (index or map key) of the previous element when name is ''. */
    private readonly subscript: string,
    private readonly parent: Path | undefined,
  ) {}

  /** Whether one more path may be kept (then marks and counts it). */
  private static keep(p: Path): boolean {
    if (keptCount >= CACHE_LIMIT) return false
    keptCount++
    p.kept = true
    return true
  }

  /** A root path (`field.NewPath("spec", "template")` is `spec.template`). */
  static of(name: string, ...more: string[]): Path {
    let p = ROOTS.get(name)
    if (p === undefined) {
      p = new Path(name, '', undefined)
      if (Path.keep(p)) ROOTS.set(name, p)
    }
    for (const n of more) p = p.child(n)
    return p
  }

  /**
   * `child("a", "b")` is `.a.b`. Up to three names, as fixed parameters: a rest parameter is a
   * new array on every call.
   */
  child(name: string, second?: string, third?: string): Path {
    const p = this.namedChild(name)
    if (second === undefined) return p
    const q = p.namedChild(second)
    return third === undefined ? q : q.namedChild(third)
  }

  private namedChild(name: string): Path {
    let p = this.children?.get(name)
    if (p === undefined) {
      p = new Path(name, '', this)
      if (this.kept && Path.keep(p)) (this.children ??= new Map()).set(name, p)
    }
    return p
  }

  index(i: number): Path {
    if (i >= INDEX_LIMIT || !Number.isInteger(i) || i < 0) return new Path('', String(i), this)
    let p = this.indexes?.[i]
    if (p === undefined) {
      p = new Path('', String(i), this)
      if (this.kept && Path.keep(p)) (this.indexes ??= [])[i] = p
    }
    return p
  }

  key(k: string): Path {
    return new Path('', k, this)
  }

  /** Path.String(): names joined by dots, subscripts in brackets. */
  toString(): string {
    const elems: Path[] = []
    for (let p: Path | undefined = this; p; p = p.parent) elems.push(p)
    let out = ''
    for (let i = elems.length - 1; i >= 0; i--) {
      const p = elems[i]!
      if (p.parent && p.name.length > 0) out += '.'
      out += p.name.length > 0 ? p.name : `[${p.subscript}]`
    }
    return out
  }
}

/** Subscripts kept per path: lists longer than this are rare, their paths made on each use. */
const INDEX_LIMIT = 64
/** Paths kept in all (roots and children): far more than the built-in kinds' fields need. */
const CACHE_LIMIT = 20_000
let keptCount = 0
const ROOTS = new Map<string, Path>()

/** A path given as a Path or as its already-rendered text; undefined is Go's nil path. */
export type PathLike = Path | string | undefined

/** The field text of an error: a nil path is `<nil>`, as the reference's (*Path)(nil).String(). */
export function pathString(p: PathLike): string {
  if (p === undefined) return '<nil>'
  return typeof p === 'string' ? p : p.toString()
}
