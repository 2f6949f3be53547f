/** The project's CEL engine: one environment, the Kubernetes libraries, compile once and evaluate. */
export { celEnvironment, type CelVariableType } from './environment.js'
export { compileCel, CelCompileError, CelEvaluationError, type CelProgram } from './compile.js'
export { fromJson, toJson } from './values.js'
export { compileConstructing } from './compile-constructions.js'
export { CelJsonPatchValue, CelObjectValue, mutationValueToJson, typeNameMismatches } from './libraries/mutation.js'
