// Reset requests and their answers, and the room's values as JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ResetTracker, resetRefusal, roomValues, roomValuesText } from "../js/resets.js";
import { RoomModel } from "../js/protocol.js";

test("a reset is done when the ack covers it, refused when a reject names it", () => {
  const t = new ResetTracker();
  t.sent(4, "cutoff", "c1");
  t.sent(5, null, "c1");
  assert.equal(t.rejected({ seq: 9, code: "busy" }), null, "not ours");
  assert.deepEqual(t.rejected({ seq: 5, code: "bad_message" }), { control: null, client: "c1", seq: 5 });
  assert.deepEqual(t.acked(3, "c1"), []);
  assert.deepEqual(t.acked(5, "c1"), [{ control: "cutoff", client: "c1", seq: 4 }]);
  assert.deepEqual(t.acked(9, "c1"), [], "each answered once");
});

test("resets sent on a lost connection are forgotten, not reported done", () => {
  const t = new ResetTracker();
  t.sent(4, "cutoff", "c1");
  assert.deepEqual(t.acked(10, "c2"), []);
  assert.equal(t.pending.size, 0);
});

test("refusals in words", () => {
  assert.equal(resetRefusal({ code: "busy" }, "Ben"), "Not reset: held by Ben");
  assert.equal(resetRefusal({ code: "busy" }), "Not reset: held by someone else");
  assert.equal(resetRefusal({ code: "forbidden" }), "Not reset: your link does not allow changes");
  assert.equal(resetRefusal({ code: "read_only", message: "gauge" }), "Not reset: this control is read only");
  assert.equal(resetRefusal({ code: "bad_message", message: "unknown type reset" }),
    "Not reset: this server does not take resets (unknown type reset)");
  assert.equal(resetRefusal({ code: "rate_limited", message: "slow down" }), "Not reset: slow down");
});

test("the room's values: committed states by control id, in schema order", () => {
  const model = new RoomModel();
  model.applyWelcome({
    type: "welcome", client: "c1", room: "synth", rev: 3,
    controls: [
      { id: "cutoff", type: "slider", min: 20, max: 20000, state: { value: 440 }, rev: 2 },
      { id: "waveform", type: "snap", values: [0, 1], state: { index: 1, value: 1 }, rev: 3 },
    ],
  }, 0);
  // What this page shows optimistically is not committed: it is not copied.
  model.noteSent("cutoff", model.nextSeq(), { value: 999 });
  assert.deepEqual(roomValues(model), { cutoff: { value: 440 }, waveform: { index: 1, value: 1 } });
  assert.deepEqual(Object.keys(roomValues(model)), ["cutoff", "waveform"]);
  assert.equal(roomValuesText(model), '{\n  "cutoff": {\n    "value": 440\n  },\n  "waveform": {\n    "index": 1,\n    "value": 1\n  }\n}');
});
