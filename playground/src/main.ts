/**
 * The playground page (docs/playground.md): wires the editors, the question, the SQL panel and
 * the tests to the engine, and keeps the state in the URL fragment. Every element the tests use
 * has a `data-testid` (see playground/static/index.html).
 */
import type { EditorView } from "@codemirror/view";
import { setupCompare } from "./compare.js";
import { moveCursor, policyEditor, setEditorText } from "./editor.js";
import {
  type Answer,
  answer,
  type BindingsState,
  checkBindingsSource,
  checkPolicySource,
  DIALECT_NAMES,
  type FactsState,
  NO_BINDINGS,
  type PolicyState,
  type Problem,
  policyTests,
  type Question,
  questionSql,
  readFacts,
  readQuestion,
  rowsText,
  type SqlText,
} from "./engine.js";
import { DEFAULT_STATE, EXAMPLES, type PlaygroundState } from "./examples.js";
import { decodeState, encodeState } from "./state.js";

function byId<T extends HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
}

const ui = {
  example: byId<HTMLSelectElement>("example-select"),
  copyLink: byId<HTMLButtonElement>("copy-link"),
  status: byId<HTMLElement>("status"),
  policy: byId<HTMLElement>("policy-editor"),
  diagnostics: byId<HTMLUListElement>("diagnostics"),
  runTests: byId<HTMLButtonElement>("run-tests"),
  testResults: byId<HTMLUListElement>("test-results"),
  facts: byId<HTMLTextAreaElement>("facts-editor"),
  factsDiagnostics: byId<HTMLUListElement>("facts-diagnostics"),
  actor: byId<HTMLInputElement>("question-actor"),
  action: byId<HTMLInputElement>("question-action"),
  resource: byId<HTMLInputElement>("question-resource"),
  ask: byId<HTMLButtonElement>("ask"),
  questionError: byId<HTMLElement>("question-error"),
  answer: byId<HTMLElement>("answer"),
  explain: byId<HTMLElement>("explain"),
  dialect: byId<HTMLSelectElement>("dialect-select"),
  runSql: byId<HTMLButtonElement>("run-sql"),
  sql: byId<HTMLElement>("sql-output"),
  agreement: byId<HTMLElement>("sql-agreement"),
  rows: byId<HTMLTableElement>("sql-rows"),
  bindings: byId<HTMLTextAreaElement>("bindings-editor"),
  bindingsDetails: byId<HTMLDetailsElement>("bindings-details"),
  bindingsDiagnostics: byId<HTMLUListElement>("bindings-diagnostics"),
  schema: byId<HTMLTextAreaElement>("schema-editor"),
};

let editor: EditorView;
let policy: PolicyState = { program: null, problems: [] };
let facts: FactsState = { facts: [], problems: [] };
let bindings: BindingsState = { bindings: NO_BINDINGS, hasErrors: false, problems: [] };
let last: { question: Question; answer: Answer | null; sql: SqlText | null } | null = null;

function currentState(): PlaygroundState {
  return {
    policy: editor.state.doc.toString(),
    facts: ui.facts.value,
    bindings: ui.bindings.value,
    schema: ui.schema.value,
    actor: ui.actor.value,
    action: ui.action.value,
    resource: ui.resource.value,
    dialect: ui.dialect.value,
  };
}

function showState(state: PlaygroundState): void {
  setEditorText(editor, state.policy);
  ui.facts.value = state.facts;
  ui.bindings.value = state.bindings;
  ui.schema.value = state.schema;
  ui.actor.value = state.actor;
  ui.action.value = state.action;
  ui.resource.value = state.resource;
  ui.dialect.value = (DIALECT_NAMES as readonly string[]).includes(state.dialect)
    ? state.dialect
    : DIALECT_NAMES[0]!;
  recheck();
}

function say(text: string): void {
  ui.status.textContent = text;
}

// ---------------------------------------------------------------- diagnostics

function problemItem(problem: Problem, onClick: () => void): HTMLLIElement {
  const item = document.createElement("li");
  item.className = problem.severity;
  item.dataset.code = problem.code;
  item.dataset.line = String(problem.line);
  const button = document.createElement("button");
  button.type = "button";
  const code = document.createElement("span");
  code.className = "code";
  code.textContent = problem.code;
  const message = document.createElement("span");
  message.className = "message";
  message.textContent = problem.message;
  const line = document.createElement("span");
  line.className = "line";
  line.textContent = `line ${problem.line}:${problem.column}`;
  button.append(code, message, line);
  button.addEventListener("click", onClick);
  item.append(button);
  return item;
}

let recheckTimer: ReturnType<typeof setTimeout> | undefined;

/** Checks now an edit whose check is still waiting (asking right after typing sees the edit). */
function flushRecheck(): void {
  if (recheckTimer === undefined) return;
  clearTimeout(recheckTimer);
  recheck();
}

function recheck(): void {
  clearTimeout(recheckTimer);
  recheckTimer = undefined;
  policy = checkPolicySource(editor.state.doc.toString());
  ui.diagnostics.replaceChildren(
    ...policy.problems.map((p) => problemItem(p, () => moveCursor(editor, p.offset))),
  );
  recheckFacts();
}

/** Moves the cursor of a plain text editor to `offset`. */
function moveTextCursor(field: HTMLTextAreaElement, offset: number): void {
  field.focus();
  field.setSelectionRange(offset, offset);
}

function recheckFacts(): void {
  facts = readFacts(ui.facts.value, policy.program);
  ui.factsDiagnostics.replaceChildren(
    ...facts.problems.map((p) => problemItem(p, () => moveTextCursor(ui.facts, p.offset))),
  );
  recheckBindings();
}

function recheckBindings(): void {
  bindings = checkBindingsSource(policy.program, ui.bindings.value, facts.facts);
  ui.bindingsDiagnostics.replaceChildren(
    ...bindings.problems.map((p) => problemItem(p, () => moveTextCursor(ui.bindings, p.offset))),
  );
  if (bindings.problems.some((p) => p.severity === "error")) ui.bindingsDetails.open = true;
}

// ---------------------------------------------------------------- questions

function ask(): void {
  flushRecheck();
  ui.questionError.textContent = "";
  ui.rows.replaceChildren();
  ui.rows.removeAttribute("data-answer");
  ui.agreement.textContent = "";
  ui.agreement.className = "";
  last = null;
  const fail = (message: string) => {
    ui.questionError.textContent = message;
    ui.answer.textContent = "";
    ui.explain.textContent = "";
    ui.sql.textContent = "";
  };
  const program = policy.program;
  if (!program) {
    fail("the policy has errors; fix them to ask (see the diagnostics)");
    return;
  }
  let question: Question;
  try {
    question = readQuestion(ui.actor.value, ui.action.value, ui.resource.value);
  } catch (error) {
    fail((error as Error).message);
    return;
  }
  let answered: Answer | null = null;
  try {
    answered = answer(program, facts.facts, question);
    ui.answer.textContent = answered.text;
    ui.explain.textContent = answered.explanation;
  } catch (error) {
    ui.answer.textContent = "";
    ui.explain.textContent = "";
    ui.questionError.textContent = (error as Error).message;
  }
  let sql: SqlText | null = null;
  try {
    sql = questionSql(program, bindings.bindings, facts.facts, question, ui.dialect.value);
    ui.sql.textContent = `${bindingsNote()}${sql.sql}`;
  } catch (error) {
    ui.sql.textContent = `-- no SQL: ${(error as Error).message}`;
  }
  last = { question, answer: answered, sql };
  if (!document.body.dataset.firstAnswerMs && answered) {
    document.body.dataset.firstAnswerMs = String(Math.round(performance.now()));
  }
}

/** Why the SQL reads the facts editor's facts rather than tables, as a first SQL comment. */
function bindingsNote(): string {
  if (bindings.hasErrors) {
    return "-- the data bindings have errors (see Data bindings): this SQL reads the facts editor's facts\n";
  }
  if (bindings.bindings.bindings.length === 0) {
    return "-- no data binding is usable by this policy: this SQL reads the facts editor's facts\n";
  }
  return "";
}

/** PGlite runs PostgreSQL: for another dialect it runs the question's PostgreSQL statement. */
const RUNNABLE_DIALECT = "postgres";

async function runSql(): Promise<void> {
  ask();
  const asked = last;
  if (!asked?.sql || !policy.program) {
    ui.agreement.textContent = "there is no SQL to run";
    return;
  }
  let sql = asked.sql;
  const note =
    ui.dialect.value === RUNNABLE_DIALECT
      ? ""
      : ` (PGlite ran the ${RUNNABLE_DIALECT} statement, not the ${ui.dialect.value} one)`;
  if (note) {
    try {
      sql = questionSql(
        policy.program,
        bindings.bindings,
        facts.facts,
        asked.question,
        RUNNABLE_DIALECT,
      );
    } catch (error) {
      ui.agreement.textContent = `no ${RUNNABLE_DIALECT} SQL to run: ${(error as Error).message}`;
      return;
    }
  }
  ui.runSql.disabled = true;
  say("running the SQL on PGlite…");
  try {
    const { runSql: run } = await import("./sql-runner.js");
    const rows = await run(ui.schema.value, sql.sql);
    showRows(rows);
    const text = rowsText(sql.column, rows);
    ui.rows.dataset.answer = text;
    const expected = last?.answer?.text;
    const agrees = expected === text;
    ui.agreement.className = agrees ? "agrees" : "differs";
    ui.agreement.textContent =
      (agrees
        ? "the rows agree with the answer"
        : "the rows differ from the answer: the tables hold other facts than the facts list") +
      note;
    say("");
  } catch (error) {
    ui.agreement.className = "differs";
    ui.agreement.textContent = `the database refused: ${(error as Error).message}`;
    say("");
  } finally {
    ui.runSql.disabled = false;
  }
}

function showRows(rows: readonly Record<string, unknown>[]): void {
  const columns = rows.length ? Object.keys(rows[0]!) : [last?.sql?.column ?? "id"];
  const head = document.createElement("tr");
  for (const column of columns) {
    const cell = document.createElement("th");
    cell.textContent = column;
    head.append(cell);
  }
  const body = rows.map((row) => {
    const line = document.createElement("tr");
    for (const column of columns) {
      const cell = document.createElement("td");
      cell.textContent = String(row[column]);
      line.append(cell);
    }
    return line;
  });
  ui.rows.replaceChildren(head, ...body);
}

// ---------------------------------------------------------------- tests

function runTests(): void {
  flushRecheck();
  if (!policy.program) {
    const item = document.createElement("li");
    item.className = "fail";
    item.textContent = "the policy has errors; fix them to run its tests";
    ui.testResults.replaceChildren(item);
    return;
  }
  const outcomes = policyTests(policy.program);
  const items = outcomes.map((outcome) => {
    const item = document.createElement("li");
    item.className = outcome.passed ? "pass" : "fail";
    item.dataset.passed = String(outcome.passed);
    const verdict = document.createElement("span");
    verdict.className = "verdict";
    verdict.textContent = outcome.passed ? "pass" : "fail";
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = outcome.name;
    const summary = document.createElement("span");
    summary.className = "summary";
    summary.textContent = ` (${outcome.summary})`;
    item.append(verdict, name, summary);
    for (const reason of outcome.reasons) {
      const why = document.createElement("pre");
      why.className = "reason";
      why.textContent = reason;
      item.append(why);
    }
    return item;
  });
  if (items.length === 0) {
    const item = document.createElement("li");
    item.textContent = "the policy has no test blocks";
    items.push(item);
  }
  ui.testResults.replaceChildren(...items);
}

// ---------------------------------------------------------------- state in the URL

let saveTimer: ReturnType<typeof setTimeout> | undefined;

function saveSoon(): void {
  clearTimeout(saveTimer);
  saveTimer = setTimeout(() => {
    encodeState(currentState())
      .then((fragment) => history.replaceState(null, "", `#${fragment}`))
      .catch((error: unknown) => say(`cannot keep the state in the link: ${String(error)}`));
  }, 250);
}

async function stateFromUrl(): Promise<PlaygroundState> {
  try {
    return (await decodeState(location.hash, DEFAULT_STATE)) ?? DEFAULT_STATE;
  } catch {
    say("the link's state cannot be read (is it complete?); showing the quickstart");
    return DEFAULT_STATE;
  }
}

// ---------------------------------------------------------------- wiring

function askOnModEnter(event: KeyboardEvent): void {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    ask();
  }
}

async function start(): Promise<void> {
  for (const name of DIALECT_NAMES) ui.dialect.add(new Option(name, name));
  ui.example.add(new Option("Load an example…", ""));
  for (const example of EXAMPLES) ui.example.add(new Option(example.title, example.name));

  const initial = await stateFromUrl();
  editor = policyEditor(
    ui.policy,
    initial.policy,
    () => {
      clearTimeout(recheckTimer);
      recheckTimer = setTimeout(recheck, 120);
      saveSoon();
    },
    "Policy (Polar)",
    ask,
  );
  showState(initial);
  ask();

  ui.facts.addEventListener("input", () => {
    recheckFacts();
    saveSoon();
  });
  ui.bindings.addEventListener("input", recheckBindings);
  for (const field of [ui.bindings, ui.schema, ui.actor, ui.action, ui.resource]) {
    field.addEventListener("input", saveSoon);
  }
  for (const field of [
    ui.actor,
    ui.action,
    ui.resource,
    ui.facts,
    ui.bindings,
    ui.schema,
  ] as HTMLElement[]) {
    field.addEventListener("keydown", askOnModEnter);
  }
  ui.ask.addEventListener("click", ask);
  ui.dialect.addEventListener("change", () => {
    saveSoon();
    ask();
  });
  ui.runSql.addEventListener("click", () => void runSql());
  ui.runTests.addEventListener("click", runTests);
  setupCompare({
    policyText: () => editor.state.doc.toString(),
    program: () => {
      flushRecheck();
      return policy.program;
    },
    facts: () => facts.facts,
  });
  ui.example.addEventListener("change", () => {
    const example = EXAMPLES.find((e) => e.name === ui.example.value);
    if (!example) return;
    showState(example.state);
    ui.testResults.replaceChildren();
    ask();
    saveSoon();
  });
  ui.copyLink.addEventListener("click", () => {
    encodeState(currentState())
      .then(async (fragment) => {
        history.replaceState(null, "", `#${fragment}`);
        await navigator.clipboard.writeText(location.href);
        say("link copied");
      })
      .catch(() => say("the link is in the address bar"));
  });
  window.addEventListener("hashchange", () => {
    void stateFromUrl().then((state) => {
      showState(state);
      ask();
    });
  });
  document.body.dataset.ready = "true";
}

void start();
