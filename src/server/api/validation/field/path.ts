/**
 * The path from an object's root to one of its fields, as the reference's
 * `k8s.io/apimachinery/pkg/util/validation/field/path.go`: `spec.containers[0].ports[1]`,
 * `metadata.labels[app]`. Immutable: child, index and key return new paths.
 */
export class Path {
  private constructor(
    /** The field's name, or '' when this element is a subscript. */
    private readonly name: string,
    /** The subscript (index or map key) of the previous element when name is ''. */
    private readonly subscript: string,
    private readonly parent: Path | undefined,
  ) {}

  /** A root path (`field.NewPath("spec", "template")` is `spec.template`). */
  static of(name: string, ...more: string[]): Path {
    let p = new Path(name, '', undefined)
    for (const n of more) p = new Path(n, '', p)
    return p
  }

  /**
   * `child("a", "b")` is `.a.b`. Up to three names, as fixed parameters: a rest parameter is a
   * new array on every call, and validation makes a child path for nearly every field it visits.
   */
  child(name: string, second?: string, third?: string): Path {
    const p = new Path(name, '', this)
    if (second === undefined) return p
    const q = new Path(second, '', p)
    return third === undefined ? q : new Path(third, '', q)
  }

  index(i: number): Path {
    return new Path('', String(i), this)
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

/** A path given as a Path or as its already-rendered text; undefined is Go's nil path. */
export type PathLike = Path | string | undefined

/** The field text of an error: a nil path is `<nil>`, as the reference's (*Path)(nil).String(). */
export function pathString(p: PathLike): string {
  if (p === undefined) return '<nil>'
  return typeof p === 'string' ? p : p.toString()
}
