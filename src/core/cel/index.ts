/** The project's CEL engine: one environment, the Kubernetes libraries, compile once and evaluate. */
export { celEnvironment, type CelVariableType } from './environment.js'
export { compileCel, CelCompileError, CelEvaluationError, CelCostLimitError, type CelCompileOptions, type CelCostedResult, type CelProgram } from './compile.js'
export * from './cost/index.js'
export { toJson } from './values.js'
