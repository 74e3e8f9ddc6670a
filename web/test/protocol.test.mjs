// The browser's protocol logic (web/js/protocol.js), with no DOM, socket or clock.
import { test } from "node:test";
import assert from "node:assert/strict";
import { RoomModel, AWAY_GRACE_MS } from "../js/protocol.js";

const controls = [
  { id: "size", type: "snap", label: "Circle size", values: [20, 40, 60, 80, 100], layout: "ordinal", unit: "pt", state: { index: 2, value: 60 }, rev: 0 },
  { id: "blanks", type: "range", label: "Blank cells", scale: [0, 9], operable: [0, 3], minGap: 1, state: { lower: 0, upper: 1 }, rev: 0 },
  { id: "gain", type: "slider", label: "Gain", min: 0, max: 1, step: 0.01, state: { value: 0.5 }, rev: 0 },
];
const ann = { client: "c1", name: "Ann", color: "#E91E63" };
const ben = { client: "c2", name: "Ben", color: "#2196F3" };

function welcomed(extra = {}) {
  const model = new RoomModel();
  model.applyWelcome({ type: "welcome", protocol: 1, client: "c1", room: "demo", title: "Demo", rev: 0,
    controls: structuredClone(controls), peers: [ann, ben], gestures: [], ...extra }, 0);
  return model;
}

test("a welcome gives the controls, the peers and my id", () => {
  const model = welcomed();
  assert.equal(model.client, "c1");
  assert.deepEqual(model.committed("gain"), { value: 0.5 });
  assert.deepEqual(model.peerList().map((p) => [p.name, p.me]), [["Ann", true], ["Ben", false]]);
});

test("a commit from someone else moves the committed and shown state", () => {
  const model = welcomed();
  model.applyUpdate({ type: "update", rev: 1, ack: 0, changes: [{ control: "gain", state: { value: 0.7 }, rev: 1, by: "c2" }] }, 10);
  assert.deepEqual(model.shown("gain"), { value: 0.7 });
  assert.equal(model.rev, 1);
});

test("while my operation awaits its ack, echoes do not move the control; the ack lets the server win", () => {
  const model = welcomed();
  const seq = model.nextSeq();
  model.noteSent("gain", seq, { value: 0.51 });
  assert.deepEqual(model.shown("gain"), { value: 0.51 });
  // Someone else's commit lands before mine is acked: what I show holds still.
  model.applyUpdate({ type: "update", rev: 1, ack: 0, changes: [{ control: "gain", state: { value: 0.9 }, rev: 1, by: "c2" }] }, 10);
  assert.deepEqual(model.shown("gain"), { value: 0.51 });
  // My step is acked; the server's value (theirs, committed after mine) wins.
  model.applyUpdate({ type: "update", rev: 2, ack: seq, changes: [{ control: "gain", state: { value: 0.9 }, rev: 2, by: "c2" }] }, 20);
  assert.equal(model.isPending("gain"), false);
  assert.deepEqual(model.shown("gain"), { value: 0.9 });
});

test("seq numbers strictly increase, across a reconnect too", () => {
  const model = welcomed();
  const a = model.nextSeq();
  const b = model.nextSeq();
  model.applyWelcome({ client: "c9", room: "demo", rev: 0, controls: structuredClone(controls), peers: [], gestures: [] }, 100);
  assert.ok(b > a && model.nextSeq() > b);
});

test("others' gesture entries show as ghosts and move the displayed thumb; end and cancel remove them", () => {
  const model = welcomed();
  model.applyUpdate({ type: "update", rev: 0, ack: 0, gestures: [
    { control: "blanks", thumb: "upper", by: "c2", phase: "move", state: { lower: 0, upper: 3 } }] }, 5);
  assert.deepEqual(model.ghostsOf("blanks").map((g) => [g.thumb, g.by, g.name]), [["upper", "c2", "Ben"]]);
  assert.deepEqual(model.shown("blanks"), { lower: 0, upper: 3 });
  assert.equal(model.heldBy("blanks", "upper").name, "Ben");
  model.applyUpdate({ type: "update", rev: 0, ack: 0, gestures: [
    { control: "blanks", thumb: "upper", by: "c2", phase: "cancel", state: { lower: 0, upper: 1 } }] }, 6);
  assert.deepEqual(model.ghostsOf("blanks"), []);
  assert.deepEqual(model.shown("blanks"), { lower: 0, upper: 1 });
});

test("an ended gesture followed by someone else's on the same thumb leaves only the new ghost", () => {
  const model = welcomed({ peers: [ann, ben, { client: "c3", name: "Cy", color: "#4CAF50" }] });
  model.applyUpdate({ type: "update", rev: 0, ack: 0, gestures: [
    { control: "gain", thumb: "value", by: "c2", phase: "move", state: { value: 0.6 } }] }, 1);
  model.applyUpdate({ type: "update", rev: 1, ack: 0, gestures: [
    { control: "gain", thumb: "value", by: "c2", phase: "end", state: { value: 0.6 } },
    { control: "gain", thumb: "value", by: "c3", phase: "begin", state: { value: 0.6 } }] }, 2);
  assert.deepEqual(model.ghostsOf("gain").map((g) => g.name), ["Cy"]);
});

test("my own gesture entries are echoes, never ghosts", () => {
  const model = welcomed();
  model.applyUpdate({ type: "update", rev: 0, ack: 1, gestures: [
    { control: "gain", thumb: "value", by: "c1", phase: "move", state: { value: 0.6 } }] }, 1);
  assert.deepEqual(model.ghostsOf("gain"), []);
});

test("a newcomer's welcome shows drags already in progress", () => {
  const model = welcomed({ gestures: [{ control: "size", thumb: "index", by: "c2", phase: "move", state: { index: 4, value: 100 } }] });
  assert.equal(model.ghostsOf("size")[0].name, "Ben");
  assert.equal(model.shown("size").value, 100);
});

test("my own drag preview is shown while I drag, and is settled until the ack", () => {
  const model = welcomed();
  model.localPreview("gain", { value: 0.8 }, "value");
  assert.ok(model.isDragging("gain"));
  assert.deepEqual(model.shown("gain"), { value: 0.8 });
  const seq = model.nextSeq();
  model.noteSent("gain", seq);
  model.settle("gain", { value: 0.8 });
  assert.equal(model.isDragging("gain"), false);
  model.applyUpdate({ type: "update", rev: 0, ack: 0, gestures: [] }, 1);
  assert.deepEqual(model.shown("gain"), { value: 0.8 });
  model.applyUpdate({ type: "update", rev: 1, ack: seq, changes: [{ control: "gain", state: { value: 0.8 }, rev: 1, by: "c1" }] }, 2);
  assert.deepEqual(model.shown("gain"), { value: 0.8 });
  assert.equal(model.isPending("gain"), false);
});

test("a busy reject names the holder and undoes the refused operation", () => {
  const model = welcomed();
  const seq = model.nextSeq();
  model.noteSent("gain", seq, { value: 0.9 }, "value");
  const reject = model.applyReject({ type: "reject", seq, code: "busy", message: "held", holder: "c2" });
  assert.equal(reject.controlId, "gain");
  assert.equal(reject.holderName, "Ben");
  model.applyUpdate({ type: "update", rev: 0, ack: seq }, 1);
  assert.deepEqual(model.shown("gain"), { value: 0.5 });
});

test("someone who leaves stays listed as away for the grace period, then goes", () => {
  const model = welcomed();
  model.applyUpdate({ type: "update", rev: 0, ack: 0, left: ["c2"] }, 1000);
  assert.equal(model.peerList().find((p) => p.client === "c2").away, true);
  assert.equal(model.nextExpiry(), 1000 + AWAY_GRACE_MS);
  assert.equal(model.prune(1000 + AWAY_GRACE_MS - 1), false);
  assert.equal(model.prune(1000 + AWAY_GRACE_MS), true);
  assert.equal(model.peerList().some((p) => p.client === "c2"), false);
});

test("a brief disconnect does not flash people out: they come back before the grace ends", () => {
  const model = welcomed();
  model.applyUpdate({ type: "update", rev: 0, ack: 0, left: ["c2"] }, 0);
  model.applyUpdate({ type: "update", rev: 0, ack: 0, joined: [{ client: "c2", name: "Ben", color: "#2196F3" }] }, 2000);
  assert.equal(model.peerList().find((p) => p.client === "c2").away, false);
  model.prune(10_000);
  assert.ok(model.peerList().some((p) => p.client === "c2"));
});

test("a reconnect's welcome resyncs: new committed values, no stale ghosts or pending operations", () => {
  const model = welcomed();
  model.applyUpdate({ type: "update", rev: 0, ack: 0, gestures: [
    { control: "gain", thumb: "value", by: "c2", phase: "move", state: { value: 0.6 } }] }, 1);
  model.noteSent("size", model.nextSeq(), { index: 3, value: 80 });
  const fresh = structuredClone(controls);
  fresh[2].state = { value: 0.25 };
  model.applyWelcome({ client: "c7", room: "demo", rev: 4, controls: fresh, peers: [{ client: "c7", name: "Ann", color: "#E91E63" }], gestures: [] }, 50);
  assert.deepEqual(model.shown("gain"), { value: 0.25 });
  assert.deepEqual(model.ghostsOf("gain"), []);
  assert.equal(model.isPending("size"), false);
  assert.deepEqual(model.shown("size"), { index: 2, value: 60 });
  assert.equal(model.peerList().find((p) => p.client === "c2").away, true, "Ben is away, not gone at once");
  assert.equal(model.peerList().some((p) => p.client === "c1"), false, "my old id is dropped");
});

test("past the presence limit the count comes from `present`, on the welcome and on updates", async () => {
  const { unlistedCount } = await import("../js/presence.js");
  const model = welcomed({ present: 40 });
  assert.equal(model.present, 40);
  // Ann (me) and Ben are listed: 38 more are watching unlisted.
  assert.equal(unlistedCount(model.peerList(), model.present), 38);
  model.applyUpdate({ type: "update", rev: 0, ack: 0, present: 12 }, 5);
  assert.equal(model.present, 12);
  assert.equal(unlistedCount(model.peerList(), model.present), 10);
  // An update without `present` leaves the count alone.
  model.applyUpdate({ type: "update", rev: 0, ack: 0, joined: [{ client: "c9", name: "Cy", color: "#000000" }] }, 6);
  assert.equal(model.present, 12);
  assert.equal(unlistedCount(model.peerList(), model.present), 9);
  // When I am not listed myself (a quiet newcomer), I am one of the unlisted.
  const quiet = new RoomModel();
  quiet.applyWelcome({ type: "welcome", protocol: 1, client: "c77", room: "demo", title: "Demo", rev: 0,
    controls: structuredClone(controls), peers: [ann, ben], gestures: [], present: 77 }, 0);
  assert.equal(unlistedCount(quiet.peerList(), quiet.present), 75);
  // A server without the field: nothing unlisted.
  assert.equal(unlistedCount(welcomed().peerList(), welcomed().present), 0);
});

test("a welcome answering ?since= replaces only the controls it lists and keeps the others in schema order", () => {
  const model = welcomed();
  model.applyWelcome({ type: "welcome", protocol: 1, client: "c7", room: "demo", rev: 5, since: 0,
    controls: [{ ...structuredClone(controls[2]), state: { value: 0.9 }, rev: 5, by: "c2" }], peers: [ben], gestures: [] }, 100);
  assert.deepEqual([...model.controls.keys()], ["size", "blanks", "gain"]);
  assert.deepEqual(model.committed("gain"), { value: 0.9 });
  assert.deepEqual(model.committed("size"), { index: 2, value: 60 });
  assert.equal(model.controls.get("gain").rev, 5);
  assert.equal(model.schema("gain").by, undefined, "by is not part of the schema");
  // A full welcome (no since) replaces everything.
  model.applyWelcome({ type: "welcome", protocol: 1, client: "c8", room: "demo", rev: 6,
    controls: [structuredClone(controls[0])], peers: [ben], gestures: [] }, 200);
  assert.deepEqual([...model.controls.keys()], ["size"]);
});

test("a welcome's layout is the room's default layout; a welcome without one has none", () => {
  assert.equal(welcomed().layout, null);
  const model = welcomed({ layout: "compact" });
  assert.equal(model.layout, "compact");
  // The next welcome (a reconnect, a schema change) says it again, or not.
  model.applyWelcome({ type: "welcome", protocol: 1, client: "c3", room: "demo", rev: 0, controls: structuredClone(controls) }, 0);
  assert.equal(model.layout, null);
});

test("two fingers on a range: each thumb has its own preview, and shown() has both", () => {
  const model = welcomed({ controls: [{ ...controls[1], state: { lower: 0, upper: 3 } }] });
  model.localPreview("blanks", { lower: 1, upper: 3 }, "lower");
  const begin1 = model.nextSeq();
  model.noteSent("blanks", begin1, undefined, "lower");
  // The second finger previews against the first one's preview.
  assert.deepEqual(model.baseFor("blanks", "upper"), { lower: 1, upper: 3 });
  assert.deepEqual(model.baseFor("blanks", "lower"), { lower: 0, upper: 3 });
  model.localPreview("blanks", { lower: 1, upper: 2 }, "upper");
  const begin2 = model.nextSeq();
  model.noteSent("blanks", begin2, undefined, "upper");
  assert.deepEqual(model.shown("blanks"), { lower: 1, upper: 2 });
  assert.ok(model.isDragging("blanks", "lower") && model.isDragging("blanks", "upper"));
  // The first finger moves on: the other thumb keeps its own preview.
  model.localPreview("blanks", { lower: 0, upper: 3 }, "lower");
  assert.deepEqual(model.shown("blanks"), { lower: 0, upper: 2 });
  assert.equal(model.previewOf("blanks", "upper").sinceSeq, begin2);
  assert.equal(model.previewOf("blanks", "lower").sinceSeq, begin1);

  // The upper finger lifts: its result is shown until the ack while the lower one still drags.
  const end2 = model.nextSeq();
  model.noteSent("blanks", end2, { lower: 0, upper: 2 }, "upper");
  model.localPreview("blanks", null, "upper");
  assert.equal(model.isDragging("blanks", "upper"), false);
  assert.ok(model.isDragging("blanks", "lower"));
  model.localPreview("blanks", { lower: 1, upper: 3 }, "lower");
  assert.deepEqual(model.shown("blanks"), { lower: 1, upper: 2 });
  model.applyUpdate({ type: "update", rev: 1, ack: end2, changes: [{ control: "blanks", state: { lower: 0, upper: 2 }, rev: 1, by: "c1" }] }, 1);
  assert.deepEqual(model.shown("blanks"), { lower: 1, upper: 2 });
});

test("a refusal of one finger's gesture ends that thumb's preview, not the other's", () => {
  const model = welcomed();
  model.localPreview("blanks", { lower: 1, upper: 2 }, "upper");
  const up = model.nextSeq();
  model.noteSent("blanks", up, undefined, "upper");
  model.localPreview("blanks", { lower: 0, upper: 3 }, "lower");
  const low = model.nextSeq();
  model.noteSent("blanks", low, undefined, "lower");
  const reject = model.applyReject({ type: "reject", seq: low, code: "busy", holder: "c2" });
  assert.equal(reject.endsGesture, true);
  assert.equal(reject.thumb, "lower");
  assert.equal(model.isDragging("blanks", "lower"), false);
  assert.ok(model.isDragging("blanks", "upper"));
  assert.equal(model.shown("blanks").upper, 2);
});

test("a preview set and cleared without naming a thumb still works (one drag at a time)", () => {
  const model = welcomed();
  model.localPreview("gain", { value: 0.8 });
  model.localPreview("gain", { value: 0.9 });
  assert.deepEqual(model.shown("gain"), { value: 0.9 });
  model.localPreview("gain", null);
  assert.equal(model.isDragging("gain"), false);
  assert.deepEqual(model.shown("gain"), { value: 0.5 });
});

test("claims: a welcome and every change say who claims a control; a claim change is not a commit", () => {
  const model = welcomed({ controls: [{ ...controls[2], claim: "c2" }, controls[1]] });
  assert.equal(model.claimOf("gain"), "c2");
  assert.equal(model.claimedByOther("gain"), "c2");
  assert.equal(model.claimOf("blanks"), null);
  // Ben lets go: an entry at the same revision and state.
  model.applyUpdate({ type: "update", rev: 0, changes: [{ control: "gain", state: { value: 0.5 }, rev: 0 }] }, 5);
  assert.equal(model.claimOf("gain"), null);
  assert.equal(model.lastChange("gain"), null, "a claim change is nobody's commit");
  // I claim it: mine, not someone else's.
  model.applyUpdate({ type: "update", rev: 0, changes: [{ control: "gain", state: { value: 0.5 }, rev: 0, claim: "c1" }] }, 6);
  assert.equal(model.claimOf("gain"), "c1");
  assert.equal(model.claimedByOther("gain"), null);
  // My commit while I claim it still carries the claim.
  model.applyUpdate({ type: "update", rev: 1, changes: [{ control: "gain", state: { value: 0.6 }, rev: 1, by: "c1", claim: "c1" }] }, 7);
  assert.equal(model.claimOf("gain"), "c1");
  assert.deepEqual(model.committed("gain"), { value: 0.6 });
  assert.equal(model.lastChange("gain").me, true);
});

test("a claimed reject ends the refused drag and names the holder", () => {
  const model = welcomed({ controls: [{ ...controls[2], claim: "c2" }] });
  model.localPreview("gain", { value: 0.5 }, "value");
  const seq = model.nextSeq();
  model.noteSent("gain", seq, undefined, "value");
  const r = model.applyReject({ type: "reject", seq, code: "claimed", message: "'gain' is claimed by c2", holder: "c2" });
  assert.equal(r.endsGesture, true);
  assert.equal(r.holderName, "Ben");
  assert.equal(model.isDragging("gain"), false);
});
