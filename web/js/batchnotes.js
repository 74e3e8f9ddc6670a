// Batch notes: what the page says when someone else's preset recall, restore
// or reset moves the controls (the update's `batch`, docs/protocol.md "Batch
// notes"), and whether "Undo" can take it back. Pure: no DOM, so node tests it.

/** "Cutoff", "Cutoff and Gain", "Cutoff, Gain and Q", "Cutoff, Gain and 3 more". */
export function listText(labels, shown = 3) {
  if (labels.length === 0) return "";
  if (labels.length === 1) return labels[0];
  if (labels.length <= shown) return `${labels.slice(0, -1).join(", ")} and ${labels[labels.length - 1]}`;
  return `${labels.slice(0, shown - 1).join(", ")} and ${labels.length - shown + 1} more`;
}

/**
 * The toast's sentence for `note` ({rev, by, cause, preset?, from?, control?, controls}).
 * @param {(id: string) => string} labelOf a control's label
 * @param {string} who the author's name
 * @param {(rev: number) => string} [momentOf] how a revision reads ("14:02:31", "the start")
 */
export function batchText(note, labelOf, who, momentOf = (rev) => (rev === 0 ? "the start" : `revision ${rev}`)) {
  const changed = listText((note.controls ?? []).map(labelOf));
  switch (note.cause) {
    case "preset":
      return `${who} recalled “${note.preset}”: ${changed} changed`;
    case "restore":
      return `${who} restored the moment of ${momentOf(note.from)}: ${changed} changed`;
    case "reset":
      if (note.control != null) return `${who} reset ${labelOf(note.control)} to its default`;
      return `${who} reset the room to its defaults: ${changed} changed`;
    default:
      return `${who} changed ${changed}`;
  }
}

/** Whether `note` is one to tell this person about: someone else's, well formed. */
export function isOthersNote(note, me) {
  return note != null && typeof note === "object" && typeof note.rev === "number" && note.by !== me
    && Array.isArray(note.controls) && note.controls.length > 0;
}

/**
 * Whether "Undo" can take `note` back now, and how: restoring the moment just
 * before it (`rev - 1`) is the exact inverse only while nothing else has been
 * committed since, on a server that keeps a timeline, for someone who may write.
 * @returns {number|null} the revision to restore, or null
 */
export function undoTarget(note, { rev, timeline, canWrite }) {
  if (!timeline || !canWrite || note.rev !== rev || note.rev < 1) return null;
  return note.rev - 1;
}
