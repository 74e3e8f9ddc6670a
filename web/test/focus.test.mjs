import { test } from "node:test";
import assert from "node:assert/strict";
import { focusedBy, hereText, setupFocus } from "../js/focus.js";

test("focus: the cards name the others on them, never me nor who is away", () => {
  const peers = [
    { client: "c1", name: "Me", color: "#000", focus: "gain", me: true },
    { client: "c2", name: "Ann", color: "#E91E63", focus: "gain" },
    { client: "c3", name: "Ben", color: "#2196F3", focus: "gain" },
    { client: "c4", name: "Cat", color: "#4CAF50", focus: "size", away: true },
    { client: "c5", name: "Dan", color: "#FF9800", focus: null },
  ];
  const here = focusedBy(peers);
  assert.deepEqual([...here.keys()], ["gain"]);
  assert.equal(hereText(here.get("gain")), "Ann and Ben are here");
  assert.equal(hereText([{ name: "Ann" }]), "Ann is here");
  assert.equal(hereText([{ name: "A" }, { name: "B" }, { name: "C" }, { name: "D" }]), "A, B and 2 more are here");
  assert.equal(hereText([]), "");
});

test("focus: the page sends its focus once it settles, only when it changed, and again after a welcome", async () => {
  const listeners = {};
  const doc = { addEventListener: (type, fn) => { listeners[type] = fn; }, activeElement: null };
  const sent = [];
  const focus = setupFocus({ send: (c) => { sent.push(c); return true; }, doc, settle: 5 });
  const inside = (id) => ({ closest: () => ({ dataset: { control: id } }) });
  listeners.focusin({ target: inside("gain") });
  listeners.focusin({ target: inside("size") });
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(sent, ["size"]); // the first settled
  listeners.focusin({ target: inside("size") });
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(sent, ["size"]); // unchanged: nothing
  listeners.focusout({ relatedTarget: null });
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(sent, ["size", null]);
  doc.activeElement = inside("gain");
  focus.welcome();
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(sent, ["size", null, "gain"]);
});
