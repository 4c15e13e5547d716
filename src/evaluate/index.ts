/**
 * The reference evaluator (the semantic oracle) and the policy test runner.
 */
export { EvaluationError, type EvaluationErrorCode } from "./errors.js";
export {
  abstractDenial,
  type ExplainOptions,
  type ExplainQuestion,
  explain,
  explainAllow,
  explainCall,
} from "./explain.js";
export {
  DEFAULT_LIMITS,
  type ExplainLimits,
  type FactLayer,
} from "./explain-context.js";
export { type ExplainFormatOptions, formatExplanation } from "./explain-format.js";
export {
  type ExplanationBudget,
  ExplanationTooLarge,
  explanationJson,
} from "./explain-json.js";
export type {
  ExplainFact,
  ExplainNode,
  ExplainRule,
  Explanation,
  FactSource,
} from "./explain-node.js";
export { type FactIndex, type FactInput, indexFacts, toFactIndex } from "./facts.js";
export {
  actions,
  authorize,
  authorizeResources,
  type EvaluateOptions,
  list,
  type Query,
  type QueryConstraint,
  type QueryRow,
  query,
} from "./query.js";
export { formatTestReport, type ReportFormatOptions, testReportJson } from "./report.js";
export { ANY, isWildcard, type Slot, type Wildcard } from "./slot.js";
export {
  type AssertionFailure,
  formatSlot,
  INLINE_QUERIES_TEST,
  runTestCase,
  runTests,
  type TestReport,
  type TestResult,
  type TestRunOptions,
} from "./test-runner.js";
