/** polar-sql: the public API. Re-exports only; see each module for documentation. */

export * from "./api/local.js";
export {
  actionsQuestion,
  authorizeQuestion,
  evaluateQuestion,
  type LocalQuestion,
  listQuestion,
  localStatement,
} from "./api/questions.js";
export { ApiError, type PolarService, type Reply } from "./api/service.js";
export * from "./api/wire.js";
// Data bindings tooling: static and database checks, drafts from the catalog
export {
  type BindingsCheck,
  type CheckBindingsOptions,
  checkBindings,
} from "./bindings/check.js";
export { type DraftOptions, draftBindings } from "./bindings/draft.js";
// Local check: data bindings and SQL
export {
  DataBindingsError,
  parseDataBindings,
  safeParseDataBindings,
} from "./bindings/parse.js";
export { type BindingsProblem, describeBindingsProblem } from "./bindings/problems.js";
export type { DataBindings } from "./bindings/types.js";
export { checkBindingsWithDatabase } from "./bindings/verify.js";
export {
  type CheckResult,
  checkPolicy,
  checkPolicyInSlices,
  checkPolicyOrThrow,
  checkPolicyText,
  PolicyError,
} from "./check/check.js";
export { checkFact } from "./check/facts.js";
export { type CheckProblem, describeCheckProblem } from "./check/problems.js";
export type { Program } from "./check/program.js";
export {
  ClientError,
  type ClientOptions,
  createClient,
  type PolarClient,
  type WireFact,
} from "./client/http.js";
export { formatValue, parsePattern, parseValue, type TypedValue } from "./client/values.js";
export type { GroundFact, Value } from "./core/value.js";
export { dialectOfUrl, type OpenDatabaseOptions, openDatabase } from "./database/open.js";
export type {
  Catalog,
  CatalogColumn,
  CatalogForeignKey,
  CatalogTable,
  ColumnFamily,
  DatabaseSession,
  Described,
} from "./database/types.js";
export {
  type MysqlPreparer,
  type MysqlRunner,
  type MysqlSessionOptions,
  mysqlSession,
} from "./dialects/mysql/catalog.js";
export {
  type PgRunner,
  type PostgresSessionOptions,
  postgresSession,
} from "./dialects/postgres/catalog.js";
export { DIALECT_NAMES, type DialectName } from "./dialects/registry.js";
export { sqliteSession } from "./dialects/sqlite/catalog.js";
// Reference evaluator and test runner
export * from "./evaluate/index.js";
export {
  type AppOptions,
  createApp,
  type ScopedEnvironments,
  type SingleEnvironment,
  serviceOpenApiDocument,
} from "./http/app.js";
export { type Access, type ApiKey, keySha256 } from "./http/auth.js";
export { KeysFileError, loadKeysFile, parseKeysFile } from "./http/keys-file.js";
export { createHttpMetrics, type HttpMetrics } from "./http/metrics.js";
export { startServer } from "./http/server.js";
export {
  type CentralFacts,
  inMemoryCentralFacts,
  NO_CENTRAL_FACTS,
} from "./plan/resolve/central-facts.js";
export type { PolicyFile } from "./polar/ast.js";
export { type ParseResult, parsePolicy } from "./polar/parse.js";
export { describeParseProblem, type ParseProblem } from "./polar/problems.js";
export { PreviewError, type PreviewErrorCode } from "./preview/errors.js";
export { type EvaluatedPreview, previewByEvaluation } from "./preview/evaluated.js";
export {
  DEFAULT_PREVIEW_LIMITS,
  type PreviewCounts,
  type PreviewLimits,
  type PreviewPage,
  type PreviewRequest,
  type PreviewStore,
  type PreviewTriple,
  previewPolicyChange,
  type TestSummary,
} from "./preview/preview.js";
export { previewStoreOf } from "./preview/store-view.js";
export { compiledQuery } from "./print/compose.js";
// Central engine and service
export {
  type Environments,
  type EnvironmentsOptions,
  openEnvironments,
} from "./service/environments.js";
export { createService, type ServiceOptions } from "./service/service.js";
// Front end
export type { Diagnostic, DiagnosticCode, Severity } from "./source/diagnostic.js";
export { formatDiagnostic, formatDiagnosticLine } from "./source/format.js";
export { describeProblem, type Problem } from "./source/problems.js";
export type { SourceFile, Span } from "./source/source.js";
export { type Located, StageError } from "./source/stage-error.js";
export { checkEnvironmentName, DEFAULT_ENVIRONMENT } from "./store/environment.js";
export { type FactStore, openStore, StoreError, type StoreOptions } from "./store/store.js";
// Fact sync (`polar-sql facts sync`)
export { parseSyncConfig, type SyncConfig, SyncConfigError } from "./sync/config.js";
export { openSources, type SourceConnections } from "./sync/source.js";
export { applySync, planSync, type SyncStep, selectSignatures } from "./sync/sync.js";
export { type FactTarget, httpTarget, storeTarget } from "./sync/target.js";
