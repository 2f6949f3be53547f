/**
 * The descriptor's message types, made into protobufjs types only when a codec plan first needs
 * them. Building all of them (Root.fromJSON of about 1,500 messages) cost a quarter of a second,
 * on the server's start-up path (the store's objects are protobuf), where a start reads a few
 * dozen kinds. A type is added with every message type its fields refer to, so that protobufjs
 * resolves its fields exactly as it would in the whole root.
 */
import type { INamespace, IType, Namespace, Root, Type } from 'protobufjs'

type Protobuf = typeof import('protobufjs/light.js')

// Field types that are not message types (the descriptor has no enums: Go strings instead).
const SCALARS = new Set(['double', 'float', 'int32', 'uint32', 'sint32', 'fixed32', 'sfixed32', 'int64', 'uint64', 'sint64', 'fixed64', 'sfixed64', 'bool', 'string', 'bytes'])

export class LazyRoot {
  private readonly root: Root
  private readonly added = new Set<string>()

  constructor(
    private readonly protobuf: Protobuf,
    private readonly json: INamespace,
  ) {
    this.root = new protobuf.Root()
  }

  /** The message type of a full name (`k8s.io.api.core.v1.Pod`), with its fields resolved. */
  lookupType(fullName: string): Type {
    const fresh: Type[] = []
    this.add(fullName.replace(/^\./, ''), fresh)
    for (const type of fresh) type.resolveAll()
    return this.root.lookupType(fullName)
  }

  private add(fullName: string, fresh: Type[]): void {
    if (this.added.has(fullName)) return
    const scope = fullName.split('.')
    const name = scope.pop() as string
    const json = this.node(fullName) as IType | undefined
    // An unknown name is left to protobufjs, which reports it as it would.
    if (!json?.fields) return
    this.added.add(fullName)
    const type = this.protobuf.Type.fromJSON(name, json)
    // define() consumes the array it is given.
    ;(this.root.define([...scope]) as Namespace).add(type)
    fresh.push(type)
    for (const field of Object.values(json.fields)) {
      const target = this.resolveName(field.type, scope)
      if (target) this.add(target, fresh)
    }
  }

  /** The JSON of a full name, undefined when there is none. */
  private node(fullName: string): (INamespace & Partial<IType>) | undefined {
    let node: INamespace | undefined = this.json
    for (const part of fullName.split('.')) {
      node = node?.nested?.[part] as INamespace | undefined
      if (!node) return undefined
    }
    return node
  }

  /** A field's type name as protobuf scoping reads it: absolute, or from the innermost scope out. */
  private resolveName(typeName: string, scope: string[]): string | undefined {
    if (SCALARS.has(typeName)) return undefined
    if (typeName.startsWith('.')) return typeName.slice(1)
    for (let depth = scope.length; depth >= 0; depth--) {
      const candidate = [...scope.slice(0, depth), typeName].join('.')
      if (this.node(candidate)) return candidate
    }
    return undefined
  }
}
