// Each card's "last changed" line: "Ann, 2 min ago" (or "you, just now").
// Live changes are recorded by the RoomModel from the commit entries' `by`;
// after a welcome the history API (GET /api/rooms/ROOM/history) tells who made
// each control's last revision and when (a server with --data :memory: keeps
// no history: those cards show nothing until the next change). The lines are
// redrawn as time passes.

import { withToken } from "../auth.js";
import { changedText } from "./values.js";

/** How often the "N min ago" words are redrawn. */
export const CHANGED_TICK_MS = 15000;

/** The words for a change: a person's name, "you", or "API" for an HTTP write. */
export function changerName(last) {
  if (last.me) return "you";
  if (last.by === "api") return "API";
  return last.name ?? last.by;
}

/** Draws every card's line. views: id -> {card}. */
export function renderChanged(views, model, now) {
  for (const [id, view] of views) {
    const last = model.lastChange(id);
    if (!last || typeof view.card?.changed !== "function") {
      view.card?.changed?.(null);
      continue;
    }
    view.card.changed(changedText(changerName(last), last.at, now), `Last changed ${new Date(last.at).toLocaleString()}`);
  }
}

/** Redraws the lines every CHANGED_TICK_MS (calls `redraw`); returns the timer. */
export function tickChanged(redraw) {
  return setInterval(redraw, CHANGED_TICK_MS);
}

/**
 * After a welcome: asks the history for each control's last revision (the
 * control's `rev`), and records who made it and when. Failures (no history
 * kept, no access) leave the lines empty.
 */
export async function loadLastChanges(model, room, token, redraw, fetchImpl = fetch) {
  // Controls by their last revision: one request answers every control changed in it.
  const byRev = new Map();
  for (const [id, c] of model.controls) {
    if (c.rev > 0 && !model.lastChanges.has(id)) byRev.set(c.rev, [...(byRev.get(c.rev) ?? []), id]);
  }
  // Newest first: the revisions people are likeliest to look at; one refusal (no history kept) ends it.
  for (const [rev, ids] of [...byRev].sort((a, b) => b[0] - a[0])) {
    const url = withToken(`/api/rooms/${encodeURIComponent(room)}/history?since=${rev - 1}&limit=50`, token);
    let body;
    try {
      const answer = await fetchImpl(url, { cache: "no-store" });
      if (!answer.ok) break;
      body = await answer.json();
    } catch {
      break;
    }
    for (const entry of body.history ?? []) {
      const at = Date.parse(entry.time);
      if (entry.rev !== rev || !ids.includes(entry.control) || !Number.isFinite(at)) continue;
      if (model.controls.get(entry.control)?.rev === rev) {
        model.noteChange(entry.control, { rev, by: entry.by, name: entry.name ?? null, at });
      }
    }
    redraw();
  }
}
