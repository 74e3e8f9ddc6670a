// Keyboard on a focused thumb: arrows step by 1, Page keys by 10, Home and
// End `set` the thumb to its ends; Escape cancels a drag in progress.

import { cancelDrags, isDragging } from "./drag.js";

const STEPS = {
  ArrowRight: 1,
  ArrowUp: 1,
  ArrowLeft: -1,
  ArrowDown: -1,
  PageUp: 10,
  PageDown: -10,
};

/**
 * @param {HTMLElement} thumbEl
 * @param {{controlId: string, thumb: string, actions: import("../actions.js").Actions,
 *          ends: () => [number, number]}} options  ends: the values Home and End set
 */
export function bindThumbKeys(thumbEl, { controlId, thumb, actions, ends }) {
  thumbEl.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    // Read only: the keys keep their usual job (scrolling) instead of sending what would be refused.
    if (actions.readOnly) return;
    if (event.key === "Escape") {
      if (cancelDrags(controlId)) event.preventDefault();
      return;
    }
    const by = STEPS[event.key];
    const isEnd = event.key === "Home" || event.key === "End";
    if (by === undefined && !isEnd) return;
    event.preventDefault();
    if (isDragging(controlId)) return; // the drag owns the thumb until released
    if (isEnd) {
      const [lo, hi] = ends();
      actions.set(controlId, thumb, event.key === "Home" ? lo : hi);
    } else {
      actions.step(controlId, thumb, by);
    }
  });
}
