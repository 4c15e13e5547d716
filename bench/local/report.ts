/**
 * Turns per-question timings into the Markdown summary: one row per question category with
 * p50 round trips, the emitted/hand-written ratio and whether the answers agreed.
 *
 *   console.log(summaryTable(results, true));
 */
import { median, percentile } from "./measure.js";

export interface QuestionResult {
  readonly category: string;
  /** Round trips in µs. */
  readonly hand: readonly number[];
  readonly emitted?: readonly number[];
  readonly agree?: boolean;
  /** Rows (list) or the answer (authorize) of the hand-written query. */
  readonly answer: string;
}

export interface RatioSummary {
  readonly questions: number;
  readonly medianRatio: number;
  readonly worstRatio: number;
  readonly pooledRatio: number;
  readonly withinTarget: number;
}

export function ratioOf(result: QuestionResult): number {
  return result.emitted ? median(result.emitted) / median(result.hand) : Number.NaN;
}

/** Ratios over the questions that have emitted timings (the others did not compile). */
export function summarize(all: readonly QuestionResult[], target: number): RatioSummary {
  const results = all.filter((r) => r.emitted !== undefined);
  const ratios = results.map(ratioOf);
  return {
    questions: results.length,
    medianRatio: median(ratios),
    worstRatio: Math.max(...ratios),
    pooledRatio:
      median(results.flatMap((r) => r.emitted ?? [])) / median(results.flatMap((r) => r.hand)),
    withinTarget: ratios.filter((ratio) => ratio <= target).length,
  };
}

const us = (n: number) => (Number.isNaN(n) ? "–" : Math.round(n).toLocaleString("en-US"));
const times = (n: number) => (Number.isNaN(n) ? "–" : `${n.toFixed(2)}×`);

/** One row per category (in first-seen order); values are medians over its questions. */
export function summaryTable(results: readonly QuestionResult[], withEmitted: boolean): string {
  const categories = [...new Set(results.map((r) => r.category))];
  const header = withEmitted
    ? "| question | n | answers (hand) | hand-written p50 µs | emitted p50 µs | emitted p99 µs | ratio p50 | agree |\n|---|---:|---|---:|---:|---:|---:|---|"
    : "| question | n | answers | hand-written p50 µs | hand-written p99 µs |\n|---|---:|---|---:|---:|";
  const rows = categories.map((category) => {
    const group = results.filter((r) => r.category === category);
    const answers = group.map((r) => r.answer).join(", ");
    const handP50 = median(group.map((r) => median(r.hand)));
    if (!withEmitted) {
      const handP99 = median(group.map((r) => percentile(r.hand, 0.99)));
      return `| ${category} | ${group.length} | ${answers} | ${us(handP50)} | ${us(handP99)} |`;
    }
    const emittedP50 = median(group.map((r) => median(r.emitted ?? [])));
    const emittedP99 = median(group.map((r) => percentile(r.emitted ?? [], 0.99)));
    const compiled = group.filter((r) => r.emitted !== undefined).length;
    const agree =
      compiled === 0 ? "not compiled" : `${group.filter((r) => r.agree).length}/${compiled}`;
    return `| ${category} | ${group.length} | ${answers} | ${us(handP50)} | ${us(emittedP50)} | ${us(emittedP99)} | ${times(median(group.map(ratioOf)))} | ${agree} |`;
  });
  return [header, ...rows].join("\n");
}

export function ratioLine(label: string, summary: RatioSummary, target: number): string {
  const verdict = summary.medianRatio <= target ? "PASS" : "FAIL";
  return (
    `${verdict} ${label}: median per-question ratio ${times(summary.medianRatio)} (target ≤ ${target}×), ` +
    `pooled p50 ratio ${times(summary.pooledRatio)}, worst ${times(summary.worstRatio)}, ` +
    `${summary.withinTarget}/${summary.questions} questions within target`
  );
}

export function formatMicros(values: readonly number[]): string {
  return `p50 ${us(percentile(values, 0.5))} µs, p99 ${us(percentile(values, 0.99))} µs`;
}
