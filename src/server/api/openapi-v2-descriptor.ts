/**
 * The messages of gnostic's `openapi.v2.Document` (openapiv2/OpenAPIv2.proto) that a Kubernetes
 * OpenAPI v2 document uses, transcribed by hand as a protobufjs JSON descriptor: the wire form
 * kubectl 1.27/1.28 ask `/openapi/v2` for. Field numbers are the proto's; messages the served
 * document never fills (Xml, Tag, FileSchema, Headers, Examples, OAuth2 securities) are left out.
 */

type Field = [id: number, type: string, rule?: 'repeated']

function message(fields: Record<string, Field>, oneof?: string[]): { fields: Record<string, { id: number; type: string; rule?: string }>; oneofs?: Record<string, { oneof: string[] }> } {
  const out: Record<string, { id: number; type: string; rule?: string }> = {}
  for (const [name, [id, type, rule]] of Object.entries(fields)) out[name] = rule ? { id, type, rule } : { id, type }
  return oneof ? { fields: out, oneofs: { oneof: { oneof } } } : { fields: out }
}

const ext = (id: number): Field => [id, 'NamedAny', 'repeated']

/** The validation keywords shared by the non-body parameters and PrimitivesItems, from a first field number. */
function primitiveKeywords(first: number): Record<string, Field> {
  const names: [string, string, 'repeated'?][] = [
    ['type', 'string'], ['format', 'string'], ['items', 'PrimitivesItems'], ['collection_format', 'string'], ['default', 'Any'],
    ['maximum', 'double'], ['exclusive_maximum', 'bool'], ['minimum', 'double'], ['exclusive_minimum', 'bool'],
    ['max_length', 'int64'], ['min_length', 'int64'], ['pattern', 'string'], ['max_items', 'int64'], ['min_items', 'int64'],
    ['unique_items', 'bool'], ['enum', 'Any', 'repeated'], ['multiple_of', 'double'],
  ]
  return Object.fromEntries(names.map(([name, type, rule], i) => [name, [first + i, type, rule] as Field]))
}

/** Header and path sub-schemas: required, in, description, name, then the keywords from 5. */
const locatedParameter = (): ReturnType<typeof message> =>
  message({ required: [1, 'bool'], in: [2, 'string'], description: [3, 'string'], name: [4, 'string'], ...primitiveKeywords(5), vendor_extension: ext(22) })
/** Query and form-data sub-schemas have allow_empty_value at 5, so the keywords start at 6. */
const emptyValueParameter = (): ReturnType<typeof message> =>
  message({ required: [1, 'bool'], in: [2, 'string'], description: [3, 'string'], name: [4, 'string'], allow_empty_value: [5, 'bool'], ...primitiveKeywords(6), vendor_extension: ext(23) })

export const OPENAPI_V2_DESCRIPTOR = {
  nested: {
    google: { nested: { protobuf: { nested: { Any: message({ type_url: [1, 'string'], value: [2, 'bytes'] }) } } } },
    openapi: {
      nested: {
        v2: {
          nested: {
            Document: message({
              swagger: [1, 'string'], info: [2, 'Info'], host: [3, 'string'], base_path: [4, 'string'],
              schemes: [5, 'string', 'repeated'], consumes: [6, 'string', 'repeated'], produces: [7, 'string', 'repeated'],
              paths: [8, 'Paths'], definitions: [9, 'Definitions'], parameters: [10, 'ParameterDefinitions'],
              security: [12, 'SecurityRequirement', 'repeated'], security_definitions: [13, 'SecurityDefinitions'],
              external_docs: [15, 'ExternalDocs'], vendor_extension: ext(16),
            }),
            Info: message({
              title: [1, 'string'], version: [2, 'string'], description: [3, 'string'], terms_of_service: [4, 'string'],
              contact: [5, 'Contact'], license: [6, 'License'], vendor_extension: ext(7),
            }),
            Contact: message({ name: [1, 'string'], url: [2, 'string'], email: [3, 'string'], vendor_extension: ext(4) }),
            License: message({ name: [1, 'string'], url: [2, 'string'], vendor_extension: ext(3) }),
            ExternalDocs: message({ description: [1, 'string'], url: [2, 'string'], vendor_extension: ext(3) }),
            Any: message({ value: [1, 'google.protobuf.Any'], yaml: [2, 'string'] }),
            NamedAny: message({ name: [1, 'string'], value: [2, 'Any'] }),
            Paths: message({ vendor_extension: ext(1), path: [2, 'NamedPathItem', 'repeated'] }),
            NamedPathItem: message({ name: [1, 'string'], value: [2, 'PathItem'] }),
            PathItem: message({
              _ref: [1, 'string'], get: [2, 'Operation'], put: [3, 'Operation'], post: [4, 'Operation'], delete: [5, 'Operation'],
              options: [6, 'Operation'], head: [7, 'Operation'], patch: [8, 'Operation'],
              parameters: [9, 'ParametersItem', 'repeated'], vendor_extension: ext(10),
            }),
            Operation: message({
              tags: [1, 'string', 'repeated'], summary: [2, 'string'], description: [3, 'string'], external_docs: [4, 'ExternalDocs'],
              operation_id: [5, 'string'], produces: [6, 'string', 'repeated'], consumes: [7, 'string', 'repeated'],
              parameters: [8, 'ParametersItem', 'repeated'], responses: [9, 'Responses'], schemes: [10, 'string', 'repeated'],
              deprecated: [11, 'bool'], security: [12, 'SecurityRequirement', 'repeated'], vendor_extension: ext(13),
            }),
            ParametersItem: message({ parameter: [1, 'Parameter'], json_reference: [2, 'JsonReference'] }, ['parameter', 'json_reference']),
            JsonReference: message({ _ref: [1, 'string'], description: [2, 'string'] }),
            Parameter: message({ body_parameter: [1, 'BodyParameter'], non_body_parameter: [2, 'NonBodyParameter'] }, ['body_parameter', 'non_body_parameter']),
            BodyParameter: message({
              description: [1, 'string'], name: [2, 'string'], in: [3, 'string'], required: [4, 'bool'], schema: [5, 'Schema'], vendor_extension: ext(6),
            }),
            NonBodyParameter: message(
              {
                header_parameter_sub_schema: [1, 'HeaderParameterSubSchema'], form_data_parameter_sub_schema: [2, 'FormDataParameterSubSchema'],
                query_parameter_sub_schema: [3, 'QueryParameterSubSchema'], path_parameter_sub_schema: [4, 'PathParameterSubSchema'],
              },
              ['header_parameter_sub_schema', 'form_data_parameter_sub_schema', 'query_parameter_sub_schema', 'path_parameter_sub_schema'],
            ),
            HeaderParameterSubSchema: locatedParameter(),
            PathParameterSubSchema: locatedParameter(),
            QueryParameterSubSchema: emptyValueParameter(),
            FormDataParameterSubSchema: emptyValueParameter(),
            PrimitivesItems: message({ ...primitiveKeywords(1), vendor_extension: ext(18) }),
            Responses: message({ response_code: [1, 'NamedResponseValue', 'repeated'], vendor_extension: ext(2) }),
            NamedResponseValue: message({ name: [1, 'string'], value: [2, 'ResponseValue'] }),
            ResponseValue: message({ response: [1, 'Response'], json_reference: [2, 'JsonReference'] }, ['response', 'json_reference']),
            Response: message({ description: [1, 'string'], schema: [2, 'SchemaItem'], vendor_extension: ext(5) }),
            SchemaItem: message({ schema: [1, 'Schema'] }, ['schema']),
            Schema: message({
              _ref: [1, 'string'], format: [2, 'string'], title: [3, 'string'], description: [4, 'string'], default: [5, 'Any'],
              multiple_of: [6, 'double'], maximum: [7, 'double'], exclusive_maximum: [8, 'bool'], minimum: [9, 'double'],
              exclusive_minimum: [10, 'bool'], max_length: [11, 'int64'], min_length: [12, 'int64'], pattern: [13, 'string'],
              max_items: [14, 'int64'], min_items: [15, 'int64'], unique_items: [16, 'bool'], max_properties: [17, 'int64'],
              min_properties: [18, 'int64'], required: [19, 'string', 'repeated'], enum: [20, 'Any', 'repeated'],
              additional_properties: [21, 'AdditionalPropertiesItem'], type: [22, 'TypeItem'], items: [23, 'ItemsItem'],
              all_of: [24, 'Schema', 'repeated'], properties: [25, 'Properties'], discriminator: [26, 'string'], read_only: [27, 'bool'],
              external_docs: [29, 'ExternalDocs'], example: [30, 'Any'], vendor_extension: ext(31),
            }),
            TypeItem: message({ value: [1, 'string', 'repeated'] }),
            ItemsItem: message({ schema: [1, 'Schema', 'repeated'] }),
            AdditionalPropertiesItem: message({ schema: [1, 'Schema'], boolean: [2, 'bool'] }, ['schema', 'boolean']),
            Properties: message({ additional_properties: [1, 'NamedSchema', 'repeated'] }),
            NamedSchema: message({ name: [1, 'string'], value: [2, 'Schema'] }),
            Definitions: message({ additional_properties: [1, 'NamedSchema', 'repeated'] }),
            ParameterDefinitions: message({ additional_properties: [1, 'NamedParameter', 'repeated'] }),
            NamedParameter: message({ name: [1, 'string'], value: [2, 'Parameter'] }),
            SecurityRequirement: message({ additional_properties: [1, 'NamedStringArray', 'repeated'] }),
            NamedStringArray: message({ name: [1, 'string'], value: [2, 'StringArray'] }),
            StringArray: message({ value: [1, 'string', 'repeated'] }),
            SecurityDefinitions: message({ additional_properties: [1, 'NamedSecurityDefinitionsItem', 'repeated'] }),
            NamedSecurityDefinitionsItem: message({ name: [1, 'string'], value: [2, 'SecurityDefinitionsItem'] }),
            SecurityDefinitionsItem: message(
              { basic_authentication_security: [1, 'BasicAuthenticationSecurity'], api_key_security: [2, 'ApiKeySecurity'] },
              ['basic_authentication_security', 'api_key_security'],
            ),
            BasicAuthenticationSecurity: message({ type: [1, 'string'], description: [2, 'string'], vendor_extension: ext(3) }),
            ApiKeySecurity: message({ type: [1, 'string'], name: [2, 'string'], in: [3, 'string'], description: [4, 'string'], vendor_extension: ext(5) }),
          },
        },
      },
    },
  },
}
