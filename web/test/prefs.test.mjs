// What a person picked, per room: the layout and the collapsed groups.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chooseLayout, collapsedGroups, groupsKey, layoutKey, storeCollapsed, storeLayout, storedLayout } from "../js/prefs.js";

/** A localStorage stand-in. */
function memory() {
  const map = new Map();
  return {
    map,
    getItem: (k) => (map.has(k) ? map.get(k) : null),
    setItem: (k, v) => map.set(k, String(v)),
    removeItem: (k) => map.delete(k),
  };
}

/** A browser that keeps nothing (Safari's private windows threw on setItem). */
const refusing = {
  getItem() { throw new Error("SecurityError"); },
  setItem() { throw new Error("QuotaExceededError"); },
  removeItem() { throw new Error("SecurityError"); },
};

test("the layout: the person's pick wins, else the room's default, else cards", () => {
  assert.equal(chooseLayout(null, undefined), "cards");
  assert.equal(chooseLayout(null, "compact"), "compact");
  assert.equal(chooseLayout(null, "cards"), "cards");
  assert.equal(chooseLayout(null, "sideways"), "cards"); // a future layout this page does not know
  assert.equal(chooseLayout("cards", "compact"), "cards");
  assert.equal(chooseLayout("compact", undefined), "compact");
});

test("the layout is kept per room", () => {
  const storage = memory();
  assert.equal(storedLayout(storage, "synth"), null);
  assert.equal(storeLayout(storage, "synth", "compact"), true);
  assert.equal(storedLayout(storage, "synth"), "compact");
  assert.equal(storedLayout(storage, "demo"), null);
  assert.equal(storage.map.get(layoutKey("synth")), "compact");
  assert.equal(storeLayout(storage, "synth", "cards"), true);
  assert.equal(storedLayout(storage, "synth"), "cards");
  assert.equal(storeLayout(storage, "synth", "grid"), false);
  storage.setItem(layoutKey("demo"), "junk");
  assert.equal(storedLayout(storage, "demo"), null);
});

test("collapsed groups are kept per room and group", () => {
  const storage = memory();
  assert.deepEqual([...collapsedGroups(storage, "synth")], []);
  storeCollapsed(storage, "synth", "Filter", true);
  storeCollapsed(storage, "synth", "Output", true);
  assert.deepEqual([...collapsedGroups(storage, "synth")].sort(), ["Filter", "Output"]);
  assert.deepEqual([...collapsedGroups(storage, "demo")], []);
  storeCollapsed(storage, "synth", "Filter", false);
  assert.deepEqual([...collapsedGroups(storage, "synth")], ["Output"]);
  storeCollapsed(storage, "synth", "Output", false);
  assert.equal(storage.map.has(groupsKey("synth")), false, "nothing collapsed: nothing kept");
  storage.setItem(groupsKey("demo"), "{not json");
  assert.deepEqual([...collapsedGroups(storage, "demo")], []);
  storage.setItem(groupsKey("demo"), JSON.stringify(["A", 3, null]));
  assert.deepEqual([...collapsedGroups(storage, "demo")], ["A"]);
});

test("a browser that keeps nothing: nothing breaks, nothing is remembered", () => {
  assert.equal(storedLayout(refusing, "synth"), null);
  assert.equal(storeLayout(refusing, "synth", "compact"), false);
  assert.deepEqual([...collapsedGroups(refusing, "synth")], []);
  assert.deepEqual([...storeCollapsed(refusing, "synth", "Filter", true)], ["Filter"]);
  assert.equal(storedLayout(null, "synth"), null);
});
