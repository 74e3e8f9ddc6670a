// Keyboard on a focused thumb (steps.js says which key asks for what):
// arrows step by 1, Shift+arrows and Page keys by 10, Alt+arrows fine (a
// `set` a thousandth of the track away where the kind has a finer
// resolution than its step, else one step), Home and End `set` the ends,
// Enter edits the exact value in the card's value field, Escape cancels a
// drag in progress. The same handler serves the value field itself while
// nothing is typed in it: ↑/↓ and the Page keys step there (←/→ move the caret).
//
// On an xy pad each axis has a slider: ←/→ move x and ↑/↓ y on either
// (`step` by [n, 0] or [0, n]); the Page keys, Home, End and, in a field,
// ↑/↓ move the axis of the slider or field that has the focus.

import { fineMessage, keyIntent } from "../steps.js";
import { cancelDrags, isDragging } from "./drag.js";

/**
 * The key handler of a thumb: `(event, {inField}) => handled`.
 * @param {{controlId: string, thumb: string, model: import("../protocol.js").RoomModel,
 *          actions: import("../actions.js").Actions, ends: (axis?: string) => [number, number],
 *          edit?: () => void, axis?: string}} options
 *   ends: the values Home and End set (of `axis` on a pad); edit: focus the value field; axis: a pad's axis
 */
export function thumbKeys({ controlId, thumb, model, actions, ends, edit = null, axis = null }) {
  return (event, { inField = false } = {}) => {
    const intent = keyIntent(event);
    if (!intent) return false;
    if (intent.edit) {
      if (inField || !edit) return false;
      edit();
      return true;
    }
    if (intent.cancel) return !inField && cancelDrags(controlId);
    // Read only: the keys keep their usual job (scrolling) instead of sending what would be refused.
    if (actions.readOnly) return false;
    if (inField && intent.arrow === "x") return false;
    if (isDragging(controlId)) return true; // the drag owns the thumb until released
    const control = model.schema(controlId);
    if (!control) return false;
    const pad = control.type === "xy";
    const along = pad ? (inField || intent.arrow == null || intent.end ? axis : intent.arrow) : null;
    if (intent.end) {
      const [lo, hi] = ends(along);
      const target = intent.end === "min" ? lo : hi;
      actions.set(controlId, thumb, pad ? { [along]: target } : target);
    } else if (intent.fine != null) {
      const message = fineMessage(control, thumb, intent.fine, model.shown(controlId), along);
      if (message?.type === "set") actions.set(controlId, thumb, message.value);
      else if (message?.type === "step") actions.step(controlId, thumb, message.by);
    } else {
      actions.step(controlId, thumb, pad ? (along === "x" ? [intent.by, 0] : [0, intent.by]) : intent.by);
    }
    return true;
  };
}

/** Binds a thumb's keys (see thumbKeys); returns the handler for its value field. */
export function bindThumbKeys(thumbEl, options) {
  const handle = thumbKeys(options);
  thumbEl.addEventListener("keydown", (event) => {
    if (handle(event)) event.preventDefault();
  });
  return (event) => handle(event, { inField: true });
}
