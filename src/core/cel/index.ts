/** The project's CEL engine: one environment, the Kubernetes libraries, compile once and evaluate. */
export { celEnvironment, type CelVariableType } from './environment.js'
export { compileCel, CelCompileError, CelEvaluationError, CelCostLimitError, type CelCompileOptions, type CelCostedResult, type CelProgram } from './compile.js'
export * from './cost/index.js'
export { fromJson, toJson } from './values.js'
export { compileConstructing } from './compile-constructions.js'
export { CelJsonPatchValue, CelObjectValue, mutationValueToJson, typeNameMismatches } from './libraries/mutation.js'
