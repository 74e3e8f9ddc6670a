// A control's value field: the value as the card shows it, which the person
// may click (or reach with Enter on the thumb) and type over. Enter or
// leaving the field sends a `set` of what was typed (entry.js says what it
// takes); the field shows at once what the server will commit, and beside
// it why that differs from what was typed, if it does.

import { axisOf, entryFor, exactText, fieldText } from "../entry.js";
import { editableField, noteFor, valueInput } from "./field.js";

/** The thumb a field's `set` names: an xy pad's axes share the thumb `xy`. */
const thumbOf = (control, which) => (control.type === "xy" ? "xy" : which);

/**
 * @param {object} control  the schema
 * @param {string} which    "value", "index", "lower"/"upper", "x"/"y", "red"/"green"/"blue"
 * @param {{model, actions, label: string, thumb: HTMLElement|null, keys?: (event) => boolean}} options
 */
export function makeValueField(control, which, { model, actions, label, thumb = null, keys = null }) {
  const labelled = control.type === "snap" && Array.isArray(control.labels);
  const input = valueInput({ label, which, numeric: !labelled, negative: axisOf(control, which).min < 0 });
  const note = noteFor(input);
  const field = editableField(input, note, (text) => {
    const entry = entryFor(control, which, text, model.shown(control.id));
    if (entry.error) return { error: entry.error }; // nothing is sent
    const value = control.type === "xy" ? { [which]: entry.value } : entry.value;
    if (actions.set(control.id, thumbOf(control, which), value) == null) {
      return { error: "Not sent: the room is not connected (press Enter again once it is)" };
    }
    return { text: entry.text, exact: exactText(control, which, entry.state), reason: entry.reason };
  }, { thumb, keys, autosize: true });
  return {
    ...field,
    /** Draws the shown state. */
    update(state) {
      field.show(fieldText(control, which, state), exactText(control, which, state));
    },
  };
}
