// Reset to default and copying values: the `reset` messages this page sent
// and what their answers mean, and the room's values as text. Pure, tested
// under Node (web/test/resets.test.mjs).
//
// `{"type":"reset","seq":n,"control":"cutoff"}` resets one control, and
// `{"type":"reset","seq":n}` the whole room, to the schema's initial states,
// as one ordinary edit of the sender's (undo takes it back). Nothing is
// predicted: the page does not know the initial states (the welcome carries
// the current ones), so the commit arrives as a change like anyone's. A
// server that does not know `reset` answers `bad_message`, shown like any
// refusal.

import { PendingRequests } from "./requests.js";

/** Reset messages sent and not yet answered: seq -> {control (null: the room), client}. */
export class ResetTracker extends PendingRequests {
  sent(seq, control, client) {
    this.track(seq, { control: control ?? null, client });
  }
}

/** What a refused reset says ("Reset: held by Ben"). */
export function resetRefusal(msg, holderName = null) {
  switch (msg.code) {
    case "busy": return `Not reset: held by ${holderName ?? "someone else"}`;
    case "claimed": return `Not reset: ${holderName ?? "someone else"} has claimed it`;
    case "forbidden": return "Not reset: your link does not allow changes";
    case "read_only": return "Not reset: this control is read only";
    case "bad_message": return `Not reset: this server does not take resets (${msg.message || msg.code})`;
    default: return `Not reset: ${msg.message || msg.code}`;
  }
}

/** The room's committed values: {control id: state} in schema order, as the welcome's `state` fields. */
export function roomValues(model) {
  const values = {};
  for (const [id, c] of model.controls) values[id] = { ...c.state };
  return values;
}

/** The room's committed values as JSON text (two-space indented), for the clipboard. */
export function roomValuesText(model) {
  return JSON.stringify(roomValues(model), null, 2);
}
