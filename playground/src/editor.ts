/**
 * The policy editor: CodeMirror 6 with a small stream highlighter for Polar (keywords, strings,
 * comments, numbers, type names), the default keymap and tab indentation.
 */
import { indentWithTab } from "@codemirror/commands";
import { HighlightStyle, StreamLanguage, syntaxHighlighting } from "@codemirror/language";
import { Prec } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import { tags } from "@lezer/highlight";
import { basicSetup } from "codemirror";

const KEYWORDS = new Set([
  "actor",
  "resource",
  "global",
  "if",
  "and",
  "or",
  "not",
  "in",
  "matches",
  "on",
  "test",
  "setup",
  "assert",
  "assert_not",
  "iff",
  "fixture",
  "type",
  "extends",
  "roles",
  "permissions",
  "relations",
  "forall",
]);

interface PolarState {
  inString: boolean;
}

const polar = StreamLanguage.define<PolarState>({
  name: "polar",
  startState: () => ({ inString: false }),
  token(stream, state) {
    if (state.inString) {
      while (!stream.eol()) {
        const next = stream.next();
        if (next === "\\") stream.next();
        else if (next === '"') {
          state.inString = false;
          break;
        }
      }
      return "string";
    }
    if (stream.eatSpace()) return null;
    if (stream.match("#")) {
      stream.skipToEnd();
      return "comment";
    }
    if (stream.match('"')) {
      state.inString = true;
      return "string";
    }
    if (stream.match(/^-?\d+/)) return "number";
    if (stream.match(/^(true|false)\b/)) return "atom";
    if (stream.match(/^@[a-z_]+/)) return "atom";
    const word = stream.match(/^[A-Za-z_][A-Za-z0-9_]*/) as RegExpMatchArray | null;
    if (word) {
      const text = word[0];
      if (KEYWORDS.has(text)) return "keyword";
      if (/^[A-Z]/.test(text)) return "typeName";
      return stream.peek() === "(" ? "function" : "variableName";
    }
    stream.next();
    return "operator";
  },
  languageData: { commentTokens: { line: "#" } },
});

const polarStyle = HighlightStyle.define([
  { tag: tags.keyword, color: "#7a3e9d", fontWeight: "600" },
  { tag: tags.string, color: "#2e7d32" },
  { tag: tags.comment, color: "#6a737d", fontStyle: "italic" },
  { tag: tags.number, color: "#b35c00" },
  { tag: tags.atom, color: "#b35c00" },
  { tag: tags.typeName, color: "#0b5cad" },
  { tag: tags.function(tags.variableName), color: "#8a4b00" },
]);

/** A Polar editor in `parent`; `onChange` gets the text after every edit. */
export function policyEditor(
  parent: HTMLElement,
  text: string,
  onChange: (text: string) => void,
  label: string,
  onSubmit: () => void,
): EditorView {
  return new EditorView({
    parent,
    doc: text,
    extensions: [
      basicSetup,
      Prec.highest(
        keymap.of([
          {
            key: "Mod-Enter",
            run: () => {
              onSubmit();
              return true;
            },
          },
        ]),
      ),
      keymap.of([indentWithTab]),
      polar,
      syntaxHighlighting(polarStyle),
      EditorView.contentAttributes.of({ "aria-label": label }),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) onChange(update.state.doc.toString());
      }),
    ],
  });
}

/** Replaces the editor's whole text. */
export function setEditorText(view: EditorView, text: string): void {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}

/** Moves the cursor to `offset`, scrolls it into view and focuses the editor. */
export function moveCursor(view: EditorView, offset: number): void {
  const at = Math.min(offset, view.state.doc.length);
  view.dispatch({ selection: { anchor: at }, scrollIntoView: true });
  view.focus();
}
