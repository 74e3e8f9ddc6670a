// What the plots keep from the frames (web/js/plots.js), with no page: the
// series' committed values at their arrival, and the other controls' commits
// as the chart's live markers (who, before → after), claims left out.
import assert from "node:assert/strict";
import { test } from "node:test";
import { markerText } from "../js/chart-math.js";
import { Plots } from "../js/plots.js";
import { RoomModel } from "../js/protocol.js";

const T0 = new Date(2026, 10, 30, 14, 2, 31).getTime();
const controls = [
  { id: "lr", type: "slider", label: "Learning rate", min: 0.0001, max: 0.1, scale: "log", digits: 3, state: { value: 0.01 }, rev: 0 },
  { id: "loss", type: "gauge", label: "Loss", min: 0, max: 5, state: { value: 2, fraction: 0.4 }, rev: 0 },
  { id: "quiet", type: "gauge", label: "Quiet", min: 0, max: 1, series: false, state: { value: 0, fraction: 0 }, rev: 0 },
];

/** A model after a welcome, and Plots fed each frame before the model applies it, as the page does. */
function room() {
  const model = new RoomModel();
  const plots = new Plots({ room: "train", model, timeline: null, fetch: async () => ({ status: 501, json: async () => ({}) }), base: "http://x/" });
  const feed = (msg, now) => {
    plots.message(msg, now);
    if (msg.type === "welcome") model.applyWelcome(msg, now);
    else model.applyUpdate(msg, now);
  };
  feed({ type: "welcome", protocol: 1, client: "c1", room: "train", rev: 0, controls: structuredClone(controls),
    peers: [{ client: "c1", name: "Me", color: "#000" }, { client: "c3", name: "Ann", color: "#111" }], gestures: [] }, T0);
  return { model, plots, feed };
}

test("a series' committed values are kept at their arrival; other controls' commits become markers", () => {
  const { plots, feed } = room();
  feed({ type: "update", rev: 1, changes: [{ control: "loss", state: { value: 1.5, fraction: 0.3 }, rev: 1, by: "api" }] }, T0 + 100);
  feed({ type: "update", rev: 2, changes: [
    { control: "loss", state: { value: 1.2, fraction: 0.24 }, rev: 2, by: "api" },
    { control: "lr", state: { value: 0.003 }, rev: 2, by: "c3" },
  ] }, T0 + 200);
  assert.deepEqual(plots.liveOf("loss").live, [[T0 + 100, 1.5], [T0 + 200, 1.2]]);
  assert.deepEqual(plots.sparkOf("loss").points(), [[T0 + 100, 1.5, 1.5, 1.5], [T0 + 200, 1.2, 1.2, 1.2]]);
  assert.equal(plots.markers.length, 1, "the gauge's own commits are its curve");
  assert.equal(markerText(plots.markers[0]), "Ann · Learning rate 0.01 → 0.003 · 14:02:31");
  assert.equal(plots.markers[0].key, "2:lr");
});

test("a newcomer's commit in the frame that announces them is named; a claim is no commit", () => {
  const { plots, feed } = room();
  feed({ type: "update", rev: 3, joined: [{ client: "c9", name: "Ben", color: "#222" }],
    changes: [{ control: "lr", state: { value: 0.02 }, rev: 3, by: "c9" }] }, T0 + 1000);
  assert.equal(markerText(plots.markers[0]), "Ben · Learning rate 0.01 → 0.02 · 14:02:32");
  // Ann claims it: a change at the same revision and state.
  feed({ type: "update", rev: 3, changes: [{ control: "lr", state: { value: 0.02 }, rev: 3, by: "c3", claim: "c3" }] }, T0 + 2000);
  assert.equal(plots.markers.length, 1, "no marker for a claim");
  // A gauge that keeps no series is a control like any other: its commits are marked.
  feed({ type: "update", rev: 4, changes: [{ control: "quiet", state: { value: 1, fraction: 1 }, rev: 4, by: "api" }] }, T0 + 3000);
  assert.equal(markerText(plots.markers[1]), "API · Quiet 0 → 1 · 14:02:34");
  assert.equal(plots.live.has("quiet"), false);
});
