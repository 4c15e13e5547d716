/**
 * The "compare with" view (docs/policy-preview.md): a second policy, and who gains and who
 * loses which access if it replaced the one in the main editor, over the facts in the facts
 * editor. Answered by the library's evaluator preview (src/preview/evaluated.ts), which gives
 * the same triples as the service's `POST /api/policy/preview`.
 */
import type { Program } from "../../src/check/program.js";
import type { GroundFact } from "../../src/core/value.js";
import { type EvaluatedPreview, previewByEvaluation } from "../../src/preview/evaluated.js";
import type { PreviewTriple } from "../../src/preview/reply.js";
import { checkPolicySource } from "./engine.js";

export interface CompareInputs {
  /** The main editor's text, to start the second policy from. */
  readonly policyText: () => string;
  /** The main editor's checked policy, null while it has errors. */
  readonly program: () => Program | null;
  readonly facts: () => readonly GroundFact[];
}

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found as T;
}

/** Wires the view's elements (playground/static/index.html, `compare-*` test ids). */
export function setupCompare(inputs: CompareInputs): void {
  const details = element<HTMLDetailsElement>("compare-details");
  const editor = element<HTMLTextAreaElement>("compare-editor");
  const button = element<HTMLButtonElement>("compare");
  const summary = element<HTMLElement>("compare-summary");
  const results = element<HTMLUListElement>("compare-results");
  details.addEventListener("toggle", () => {
    if (details.open && editor.value === "") editor.value = inputs.policyText();
  });
  button.addEventListener("click", () => {
    results.replaceChildren();
    const active = inputs.program();
    if (!active) {
      summary.textContent = "the policy has errors; fix them to compare";
      return;
    }
    const candidate = checkPolicySource(editor.value);
    const firstError = candidate.problems.find((problem) => problem.severity === "error");
    if (!candidate.program || firstError) {
      summary.textContent = firstError
        ? `the second policy has errors: line ${firstError.line}:${firstError.column} ${firstError.message}`
        : "the second policy has errors";
      return;
    }
    const preview = previewByEvaluation(active, candidate.program, inputs.facts());
    summary.textContent = summaryText(preview);
    results.replaceChildren(...resultItems(preview));
  });
}

function summaryText(preview: EvaluatedPreview): string {
  const { gained, lost, tests } = preview;
  const failing = tests.candidate.failed.length;
  const testsText = failing === 0 ? "" : `; ${failing} test${failing === 1 ? "" : "s"} fail`;
  return `${gained.length} gained, ${lost.length} lost${testsText}`;
}

/** One heading item per resource type and permission that changes, then its triples. */
function resultItems(preview: EvaluatedPreview): HTMLLIElement[] {
  const items: HTMLLIElement[] = [];
  for (const [resourceType, actions] of Object.entries(preview.counts)) {
    for (const [action, count] of Object.entries(actions)) {
      if (count.gained + count.lost === 0) continue;
      const heading = document.createElement("li");
      heading.className = "group";
      heading.textContent = `${resourceType} "${action}": ${count.gained} gained, ${count.lost} lost`;
      items.push(heading);
      const matches = (t: PreviewTriple) => t.resource.type === resourceType && t.action === action;
      for (const t of preview.gained.filter(matches)) items.push(tripleItem(t, "gained"));
      for (const t of preview.lost.filter(matches)) items.push(tripleItem(t, "lost"));
    }
  }
  return items;
}

function tripleItem(triple: PreviewTriple, change: "gained" | "lost"): HTMLLIElement {
  const item = document.createElement("li");
  item.className = change;
  item.dataset.change = change;
  const text = `${triple.actor.type}:${triple.actor.id} ${triple.action} ${triple.resource.type}:${triple.resource.id}`;
  item.dataset.triple = text;
  item.textContent = `${change === "gained" ? "+" : "−"} ${text}`;
  return item;
}
