// What the page says of someone else's recall, restore or reset (web/js/batchnotes.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { batchText, isOthersNote, listText, undoTarget } from "../js/batchnotes.js";

const labels = { cutoff: "Cutoff", gain: "Gain", q: "Resonance", mix: "Mix", size: "Size" };
const labelOf = (id) => labels[id] ?? id;

test("lists read as a sentence and stop after three", () => {
  assert.equal(listText([]), "");
  assert.equal(listText(["Cutoff"]), "Cutoff");
  assert.equal(listText(["Cutoff", "Gain"]), "Cutoff and Gain");
  assert.equal(listText(["Cutoff", "Gain", "Q"]), "Cutoff, Gain and Q");
  assert.equal(listText(["Cutoff", "Gain", "Q", "Mix", "Size"]), "Cutoff, Gain and 3 more");
});

test("each cause says who did what and what changed", () => {
  const note = { rev: 12, by: "c3", controls: ["cutoff", "gain"] };
  assert.equal(batchText({ ...note, cause: "preset", preset: "Warm" }, labelOf, "Ann"), "Ann recalled “Warm”: Cutoff and Gain changed");
  assert.equal(batchText({ ...note, cause: "restore", from: 9 }, labelOf, "Ann", (rev) => `#${rev}`),
    "Ann restored the moment of #9: Cutoff and Gain changed");
  assert.equal(batchText({ ...note, cause: "restore", from: 0 }, labelOf, "Ann"), "Ann restored the moment of the start: Cutoff and Gain changed");
  assert.equal(batchText({ ...note, cause: "reset" }, labelOf, "Ann"), "Ann reset the room to its defaults: Cutoff and Gain changed");
  assert.equal(batchText({ ...note, cause: "reset", control: "cutoff", controls: ["cutoff"] }, labelOf, "Ann"), "Ann reset Cutoff to its default");
  assert.equal(batchText({ ...note, cause: "later" }, labelOf, "Ann"), "Ann changed Cutoff and Gain", "a cause this page does not know");
});

test("only someone else's well-formed note is told", () => {
  const note = { rev: 3, by: "c3", cause: "preset", preset: "Warm", controls: ["gain"] };
  assert.equal(isOthersNote(note, "c1"), true);
  assert.equal(isOthersNote(note, "c3"), false, "my own recall has its own answer");
  assert.equal(isOthersNote(undefined, "c1"), false);
  assert.equal(isOthersNote({ ...note, controls: [] }, "c1"), false);
  assert.equal(isOthersNote({ ...note, rev: "3" }, "c1"), false);
});

test("Undo restores the moment before, only while nothing else was committed, with a timeline, for a writer", () => {
  const note = { rev: 8, by: "c3", cause: "preset", preset: "Warm", controls: ["gain"] };
  assert.equal(undoTarget(note, { rev: 8, timeline: true, canWrite: true }), 7);
  assert.equal(undoTarget(note, { rev: 9, timeline: true, canWrite: true }), null, "the room moved on");
  assert.equal(undoTarget(note, { rev: 8, timeline: false, canWrite: true }), null, "no history kept (:memory:)");
  assert.equal(undoTarget(note, { rev: 8, timeline: true, canWrite: false }), null, "a viewer, or looking at the past");
  assert.equal(undoTarget({ ...note, rev: 1 }, { rev: 1, timeline: true, canWrite: true }), 0, "back to the start");
});
