// Undo and redo from the keyboard: Ctrl+Z / Cmd+Z undoes, Ctrl+Shift+Z /
// Cmd+Shift+Z and Ctrl+Y redo. Not while typing in a field: the field's own
// undo applies there.

/** True when `target` takes typed text, so Ctrl+Z belongs to it. */
export function isTextEntry(target) {
  if (!target) return false;
  if (target.isContentEditable) return true;
  const tag = (target.tagName || "").toUpperCase();
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag !== "INPUT") return false;
  const type = (target.type || "text").toLowerCase();
  return !["button", "checkbox", "radio", "range", "color", "submit", "reset", "image", "file"].includes(type);
}

/**
 * What a keydown asks for: "undo", "redo" or null.
 * @param {{key: string, ctrlKey?: boolean, metaKey?: boolean, shiftKey?: boolean, altKey?: boolean,
 *          target?: object}} event
 */
export function historyShortcut(event) {
  if (!event || event.altKey) return null;
  if (!event.ctrlKey && !event.metaKey) return null;
  if (isTextEntry(event.target)) return null;
  const key = (event.key || "").toLowerCase();
  if (key === "z") return event.shiftKey ? "redo" : "undo";
  if (key === "y" && event.ctrlKey && !event.metaKey && !event.shiftKey) return "redo";
  return null;
}
