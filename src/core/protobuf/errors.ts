/** Malformed protobuf input, or an object the codec has no message for: the message says which. */
export class ProtobufError extends Error {
  override name = 'ProtobufError'
}
