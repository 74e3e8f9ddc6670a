import assert from "node:assert/strict";
import { test } from "node:test";

import { UndoTracker, describeState, doneText } from "../js/undo.js";

const SCHEMAS = {
  cutoff: { id: "cutoff", type: "slider", label: "Cutoff", min: 20, max: 20000, step: 1, unit: "Hz" },
  size: { id: "size", type: "snap", label: "Circle size", values: [20, 40, 60], unit: "pt" },
  go: { id: "go", type: "button", label: "Go" },
  gain: { id: "gain", type: "slider", label: "Gain", min: 0, max: 1 },
};
const schemaOf = (id) => SCHEMAS[id];
const committed = { cutoff: { value: 440 }, size: { index: 1, value: 40 }, gain: { value: 0.5 } };
const before = (id) => committed[id];

function frame(ack, changes = []) {
  return { type: "update", ack, changes };
}

test("nothing to undo or redo at first and after a new connection", () => {
  const t = new UndoTracker();
  assert.equal(t.canUndo, false);
  assert.equal(t.canRedo, false);
  t.noteSent(1, { type: "set", control: "cutoff" });
  t.update(frame(1, [{ control: "cutoff", state: { value: 320 }, by: "c1" }]), "c1", schemaOf, before);
  assert.equal(t.canUndo, true);
  t.reset();
  assert.equal(t.canUndo, false);
});

test("an acked set that changed something is an edit; a no-op or someone else's change is not", () => {
  const t = new UndoTracker();
  t.noteSent(1, { type: "set", control: "cutoff" });
  t.update(frame(1), "c1", schemaOf, before);
  assert.equal(t.canUndo, false, "a no-op set is not recorded");
  t.update(frame(1, [{ control: "cutoff", state: { value: 300 }, by: "c2" }]), "c1", schemaOf, before);
  assert.equal(t.canUndo, false, "another person's change is not my edit");
  t.noteSent(2, { type: "step", control: "size" });
  t.update(frame(2, [{ control: "size", state: { index: 2, value: 60 }, by: "c1" }]), "c1", schemaOf, before);
  assert.equal(t.next("undo"), "Circle size");
});

test("a rejected message changes neither stack", () => {
  const t = new UndoTracker();
  t.noteSent(1, { type: "set", control: "cutoff" });
  t.update(frame(1, [{ control: "cutoff", state: { value: 320 }, by: "c1" }]), "c1", schemaOf, before);
  t.noteSent(2, { type: "undo" });
  t.rejected(2); // busy
  t.update(frame(2), "c1", schemaOf, before);
  assert.equal(t.canUndo, true);
  assert.equal(t.canRedo, false);
});

test("undo moves the edit to redo and says what changed; redo moves it back; a new edit clears redo", () => {
  const t = new UndoTracker();
  t.noteSent(1, { type: "set", control: "cutoff" });
  t.update(frame(1, [{ control: "cutoff", state: { value: 440 }, by: "c1" }]), "c1", schemaOf, () => ({ value: 320 }));
  t.noteSent(2, { type: "undo" });
  const done = t.update(frame(2, [{ control: "cutoff", state: { value: 320 }, by: "c1" }]), "c1", schemaOf, before);
  assert.equal(doneText(done[0]), "Undid Cutoff: 440 Hz → 320 Hz");
  assert.equal(t.canUndo, false);
  assert.equal(t.canRedo, true);
  t.noteSent(3, { type: "redo" });
  const redone = t.update(frame(3, [{ control: "cutoff", state: { value: 440 }, by: "c1" }]), "c1", schemaOf, () => ({ value: 320 }));
  assert.equal(doneText(redone[0]), "Redid Cutoff: 320 Hz → 440 Hz");
  assert.equal(t.canUndo, true);
  t.noteSent(4, { type: "undo" });
  t.update(frame(4, [{ control: "cutoff", state: { value: 320 }, by: "c1" }]), "c1", schemaOf, before);
  t.noteSent(5, { type: "set", control: "gain" });
  t.update(frame(5, [{ control: "gain", state: { value: 0.7 }, by: "c1" }]), "c1", schemaOf, before);
  assert.equal(t.canRedo, false, "a new edit clears redo");
  assert.equal(t.next("undo"), "Gain");
});

test("an edit and its undo acked in one frame leave it on the redo stack", () => {
  const t = new UndoTracker();
  t.noteSent(1, { type: "set", control: "cutoff" });
  t.noteSent(2, { type: "undo" });
  t.update(frame(2, [{ control: "cutoff", state: { value: 440 }, by: "c1" }]), "c1", schemaOf, before);
  assert.equal(t.canUndo, false);
  assert.equal(t.canRedo, true);
});

test("a drag is one edit when it ends, release or live mode; a drag that committed nothing is none", () => {
  const t = new UndoTracker();
  t.noteSent(1, { type: "drag", control: "gain", phase: "begin" });
  t.noteSent(2, { type: "drag", control: "gain", phase: "move" });
  t.update(frame(2, [{ control: "gain", state: { value: 0.6 }, by: "c1" }]), "c1", schemaOf, before); // live commit
  assert.equal(t.canUndo, false, "not an edit until the gesture ends");
  t.noteSent(3, { type: "drag", control: "gain", phase: "end" });
  t.update(frame(3), "c1", schemaOf, before);
  assert.equal(t.undoStack.length, 1);
  t.noteSent(4, { type: "drag", control: "cutoff", phase: "begin" });
  t.noteSent(5, { type: "drag", control: "cutoff", phase: "end" });
  t.update(frame(5), "c1", schemaOf, before);
  assert.equal(t.undoStack.length, 1, "a drag released where it began is not an edit");
  t.noteSent(6, { type: "drag", control: "cutoff", phase: "begin" });
  t.noteSent(7, { type: "drag", control: "cutoff", phase: "end" });
  t.update(frame(7, [{ control: "cutoff", state: { value: 1000 }, by: "c1" }]), "c1", schemaOf, before);
  assert.equal(t.undoStack.length, 2);
});

test("button presses are never edits; my batch sent some other way (a preset recall) is one", () => {
  const t = new UndoTracker();
  t.noteSent(1, { type: "step", control: "go" });
  t.update(frame(1, [{ control: "go", state: { presses: 1 }, by: "c1" }]), "c1", schemaOf, before);
  assert.equal(t.canUndo, false);
  t.update(frame(2, [
    { control: "cutoff", state: { value: 900 }, by: "c1" },
    { control: "gain", state: { value: 0.1 }, by: "c1" },
  ]), "c1", schemaOf, before);
  assert.equal(t.undoStack.length, 1);
  assert.deepEqual(t.undoStack[0].controls, ["cutoff", "gain"]);
});

test("each stack keeps the newest 50", () => {
  const t = new UndoTracker();
  for (let seq = 1; seq <= 60; seq++) {
    t.noteSent(seq, { type: "set", control: "gain" });
    t.update(frame(seq, [{ control: "gain", state: { value: seq / 100 }, by: "c1" }]), "c1", schemaOf, before);
  }
  assert.equal(t.undoStack.length, 50);
});

test("states read as people write them", () => {
  assert.equal(describeState(SCHEMAS.cutoff, { value: 440 }), "440 Hz");
  assert.equal(describeState(SCHEMAS.size, { index: 2, value: 60 }), "60 pt");
  assert.equal(describeState({ type: "snap", values: [0, 1], labels: ["sine", "square"] }, { index: 1, value: 1 }), "square");
  assert.equal(describeState({ type: "color" }, { hex: "#FF0000" }), "#FF0000");
  assert.equal(describeState({ type: "toggle" }, { on: true }), "on");
  assert.equal(describeState({ type: "range", unit: "cells" }, { lower: 1, upper: 3 }), "1–3 cells");
});
