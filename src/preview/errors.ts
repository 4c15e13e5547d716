/** The refusals of a preview: a code, an HTTP status and a one-line message. */

export type PreviewErrorCode =
  | "invalid-page-token"
  | "foreign-page-token"
  | "invalid-page-size"
  | "time-limit"
  | "rows-limit";

export class PreviewError extends Error {
  override readonly name = "PreviewError";
  constructor(
    readonly code: PreviewErrorCode,
    message: string,
  ) {
    super(message);
  }

  /** 422 for a spent budget (like the service's other budgets), 400 for a bad request. */
  get status(): 400 | 422 {
    return this.code === "time-limit" || this.code === "rows-limit" ? 422 : 400;
  }
}
