// Undo and redo keys (web/js/shortcuts.js), with no DOM.
import { test } from "node:test";
import assert from "node:assert/strict";
import { historyShortcut, isTextEntry } from "../js/shortcuts.js";

const thumb = { tagName: "DIV" };

test("Ctrl+Z and Cmd+Z undo", () => {
  assert.equal(historyShortcut({ key: "z", ctrlKey: true, target: thumb }), "undo");
  assert.equal(historyShortcut({ key: "z", metaKey: true, target: document() }), "undo");
});

test("Ctrl+Shift+Z, Cmd+Shift+Z and Ctrl+Y redo", () => {
  assert.equal(historyShortcut({ key: "Z", ctrlKey: true, shiftKey: true, target: thumb }), "redo");
  assert.equal(historyShortcut({ key: "z", metaKey: true, shiftKey: true, target: thumb }), "redo");
  assert.equal(historyShortcut({ key: "y", ctrlKey: true, target: thumb }), "redo");
});

test("other keys and modifiers ask for nothing", () => {
  assert.equal(historyShortcut({ key: "z", target: thumb }), null);
  assert.equal(historyShortcut({ key: "z", shiftKey: true, target: thumb }), null);
  assert.equal(historyShortcut({ key: "z", ctrlKey: true, altKey: true, target: thumb }), null);
  assert.equal(historyShortcut({ key: "x", ctrlKey: true, target: thumb }), null);
  assert.equal(historyShortcut({ key: "y", metaKey: true, target: thumb }), null);
  assert.equal(historyShortcut({ key: "y", ctrlKey: true, shiftKey: true, target: thumb }), null);
});

test("typing in a text field keeps the field's own undo", () => {
  const hex = { tagName: "INPUT", type: "text" };
  assert.equal(isTextEntry(hex), true);
  assert.equal(historyShortcut({ key: "z", ctrlKey: true, target: hex }), null);
  assert.equal(historyShortcut({ key: "z", ctrlKey: true, shiftKey: true, target: { tagName: "TEXTAREA" } }), null);
  assert.equal(historyShortcut({ key: "z", ctrlKey: true, target: { tagName: "SPAN", isContentEditable: true } }), null);
  // A button or a slider input is not a text field.
  assert.equal(historyShortcut({ key: "z", ctrlKey: true, target: { tagName: "BUTTON" } }), "undo");
  assert.equal(historyShortcut({ key: "z", ctrlKey: true, target: { tagName: "INPUT", type: "range" } }), "undo");
});

function document() {
  return { tagName: "BODY" };
}
