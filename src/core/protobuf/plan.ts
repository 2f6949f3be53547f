/**
 * Per-message tables the decoder and encoder use, worked out once per message from the protobufjs
 * reflection and the descriptor's JSON-name and omitempty tables, so the hot loops only index
 * arrays: fields in declaration order (the Go struct's, hence the JSON key order), a field-number
 * index, each field's JSON name, wire type and omit/null rule, and what the message stands for
 * when its JSON form is not an object (times, quantities, raw JSON, named slices...).
 */
import type { Field, MapField, Type } from 'protobufjs'
import type { K8sDescriptor } from './descriptor.js'
import { NULL_WHEN_EMPTY, POINTER_STRINGS, VALUE_OMITEMPTY } from './omitempty.js'
import { WIRE_LENGTH, WIRE_VARINT } from './wire.js'

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1.'

/** What a message's JSON form is. */
export const enum Special {
  None,
  Time,
  MicroTime,
  Duration,
  Quantity,
  IntOrString,
  /** runtime.RawExtension and metav1.FieldsV1: the JSON value their bytes hold. */
  RawJson,
  /** A Go named slice type: the JSON array of its items. */
  ListWrapper,
}

const SPECIALS: Record<string, Special> = {
  [META + 'Time']: Special.Time,
  [META + 'MicroTime']: Special.MicroTime,
  [META + 'Duration']: Special.Duration,
  [META + 'FieldsV1']: Special.RawJson,
  'k8s.io.apimachinery.pkg.api.resource.Quantity': Special.Quantity,
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': Special.IntOrString,
  'k8s.io.apimachinery.pkg.runtime.RawExtension': Special.RawJson,
}

export const enum Scalar {
  String,
  Bool,
  Bytes,
  Int32,
  Int64,
  Unsupported,
}

const SCALARS: Record<string, Scalar> = {
  string: Scalar.String,
  bool: Scalar.Bool,
  bytes: Scalar.Bytes,
  int32: Scalar.Int32,
  int64: Scalar.Int64,
}

export const enum Shape {
  Scalar,
  Message,
  /** A message field whose fields are the parent's own (`json:",inline"`). */
  Inline,
  RepeatedScalar,
  RepeatedMessage,
  /** map<string, scalar or message>. */
  Map,
}

export interface FieldPlan {
  /** The protobufjs field name, for error messages only. */
  readonly name: string
  readonly json: string
  readonly id: number
  readonly shape: Shape
  /** The scalar type of the field, its elements or its map values. */
  readonly scalar: Scalar
  readonly scalarName: string
  /** Wire type of one value (of an element or map value for lists and maps). */
  readonly wire: number
  /** tag = id << 3 | wire of what is written for the field (length-delimited for messages, lists of messages and maps). */
  readonly tag: number
  /** Go has no omitempty for this list or map: an absent one is JSON null. */
  readonly nullWhenEmpty: boolean
  /** A zero scalar is left out of the JSON form (omitempty.ts). */
  readonly omitZero: boolean
  /** The message type's plan, resolved on first use (messages refer to themselves). */
  message: MessagePlan | undefined
  readonly messageType: Type | undefined
}

export interface MessagePlan {
  readonly name: string
  readonly type: Type
  readonly special: Special
  readonly fields: FieldPlan[]
  /** Field number -> index in fields, -1 for none. */
  readonly byId: Int16Array
  /** Field indexes in field-number order, where that differs from the declaration order. */
  readonly idOrder: number[] | undefined
}

export class Plans {
  private readonly plans = new Map<Type, MessagePlan>()
  private readonly optional = new Map<string, Set<string>>()
  private readonly wrappers: Set<string>

  constructor(private readonly descriptor: K8sDescriptor) {
    for (const [message, fields] of Object.entries(descriptor.optional)) this.optional.set(message, new Set(fields))
    this.wrappers = new Set(descriptor.listWrappers)
  }

  of(type: Type): MessagePlan {
    let plan = this.plans.get(type)
    if (!plan) {
      plan = this.build(type)
      this.plans.set(type, plan)
    }
    return plan
  }

  /** The plan of a field's message type. */
  sub(field: FieldPlan): MessagePlan {
    return (field.message ??= this.of(field.messageType as Type))
  }

  private build(type: Type): MessagePlan {
    const name = type.fullName.replace(/^\./, '')
    const short = type.name
    const renames = this.descriptor.json[name] ?? {}
    const optional = this.optional.get(name)
    const special = SPECIALS[name] ?? (this.wrappers.has(name) ? Special.ListWrapper : Special.None)
    const fields: FieldPlan[] = type.fieldsArray.map((field: Field) => {
      const json = renames[field.name] ?? field.name
      const resolved = field.resolvedType as Type | null
      const isMap = (field as unknown as MapField).map === true
      const scalar = resolved ? Scalar.Unsupported : (SCALARS[field.type] ?? Scalar.Unsupported)
      const wire = resolved || scalar === Scalar.String || scalar === Scalar.Bytes ? WIRE_LENGTH : WIRE_VARINT
      const shape = isMap
        ? Shape.Map
        : field.repeated
          ? resolved ? Shape.RepeatedMessage : Shape.RepeatedScalar
          : resolved ? (json === '' ? Shape.Inline : Shape.Message) : Shape.Scalar
      const tagWire = shape === Shape.Map || shape === Shape.RepeatedMessage || shape === Shape.Message || shape === Shape.Inline ? WIRE_LENGTH : wire
      const key = `${short}.${field.name}`
      const isWrapper = resolved !== null && this.wrappers.has(resolved.fullName.replace(/^\./, ''))
      const nullWhenEmpty = NULL_WHEN_EMPTY.has(key) && (isMap || field.repeated || isWrapper)
      const omitZero = shape === Shape.Scalar && (field.type === 'string' ? optional?.has(field.name) === true && !POINTER_STRINGS.has(key) : VALUE_OMITEMPTY.has(key))
      return {
        name: field.name,
        json,
        id: field.id,
        shape,
        scalar,
        scalarName: field.type,
        wire,
        tag: ((field.id << 3) | tagWire) >>> 0,
        nullWhenEmpty,
        omitZero,
        message: undefined,
        messageType: resolved ?? undefined,
      }
    })
    checkSpecialLayout(name, special, fields)
    const byId = new Int16Array(Math.max(0, ...fields.map((f) => f.id)) + 1).fill(-1)
    fields.forEach((field, index) => (byId[field.id] = index))
    const sorted = fields.map((_, index) => index).sort((a, b) => fields[a].id - fields[b].id)
    const idOrder = sorted.some((index, position) => index !== position) ? sorted : undefined
    return { name, type, special, fields, byId, idOrder }
  }
}

/** The decoder reads special messages' fields by position: field number n at index n - 1. */
const SPECIAL_FIELDS: Partial<Record<Special, string[]>> = {
  [Special.Time]: ['seconds', 'nanos'],
  [Special.MicroTime]: ['seconds', 'nanos'],
  [Special.Duration]: ['duration'],
  [Special.Quantity]: ['string'],
  [Special.IntOrString]: ['type', 'intVal', 'strVal'],
  [Special.ListWrapper]: ['items'],
}

function checkSpecialLayout(name: string, special: Special, fields: FieldPlan[]): void {
  const expected = SPECIAL_FIELDS[special]
  if (!expected) return
  const actual = fields.map((field) => `${field.id}:${field.name}`).join(',')
  if (actual !== expected.map((field, index) => `${index + 1}:${field}`).join(',')) {
    throw new Error(`${name} has fields ${actual}, not the layout the protobuf codec reads: regenerate the descriptor or update plan.ts`)
  }
}
