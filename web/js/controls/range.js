// A two-thumb range over integers: the whole scale is drawn, the part the
// thumbs may not reach (outside `operable`) is hatched, and "lower – upper"
// sums it up, each an editable value field.

import { h } from "../dom.js";
import { position } from "../math.js";
import { makeCard } from "./card.js";
import { attachDrag } from "./drag.js";
import { bindThumbKeys } from "./keys.js";
import { nearestFreeThumb } from "./pointers.js";
import { GhostLayer, makeThumb, makeTick, makeTrack, placeAt, updateThumb } from "./track.js";
import { makeValueField } from "./valuefield.js";

const THUMBS = ["lower", "upper"];

/**
 * The scale values that get a tick, and which of them get a label: all of
 * them on a short scale, else the ends of the scale and of the operable part.
 */
function scaleTicks([lo, hi], [opLo, opHi]) {
  const span = hi - lo;
  if (span <= 0) return [{ v: lo, label: true }];
  let every = 1;
  for (const step of [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000]) {
    every = step;
    if (span / step <= 20) break;
  }
  if (span / every > 20) every = Math.ceil(span / 20);
  const labelAll = span / every <= 12;
  const byValue = new Map();
  for (let v = lo; v <= hi; v += every) byValue.set(v, labelAll);
  for (const v of [lo, hi]) byValue.set(v, true);
  // The operable limits are labelled when they do not crowd another label.
  for (const v of [opLo, opHi]) {
    const crowded = [...byValue].some(([w, l]) => l && w !== v && Math.abs(w - v) / span < 0.08);
    if (!crowded || byValue.get(v)) byValue.set(v, true);
    else if (!byValue.has(v)) byValue.set(v, false);
  }
  return [...byValue].sort((a, b) => a[0] - b[0]).map(([v, label]) => ({ v, label }));
}

export function createRange(control, { model, actions }) {
  const [scaleLo, scaleHi] = control.scale;
  const [opLo, opHi] = control.operable ?? control.scale;
  const label = control.label ?? control.id;
  const span = scaleHi - scaleLo;
  const fOf = (v) => (span === 0 ? 0 : (v - scaleLo) / span);

  const thumbs = Object.fromEntries(THUMBS.map((t) => [t, makeThumb(t, `${label} ${t}`)]));
  const fieldKeys = {};
  const fields = Object.fromEntries(THUMBS.map((t) => [t, makeValueField(control, t, {
    model, actions, label: `${label} ${t} value`, thumb: thumbs[t], keys: (event) => fieldKeys[t]?.(event),
  })]));
  const card = makeCard(control, h("span", { class: "range-label" },
    fields.lower.input, h("span", { class: "value-sep", "aria-hidden": "true" }, "–"), fields.upper.input));
  card.addNotes(fields.lower.note, fields.upper.note);
  const fill = h("div", { class: "fill fill-between", "aria-hidden": "true" });
  const blocked = [];
  if (opLo > scaleLo) blocked.push(h("div", { class: "unreachable unreachable-low", "aria-hidden": "true", style: { "--to": fOf(opLo) } }));
  if (opHi < scaleHi) blocked.push(h("div", { class: "unreachable unreachable-high", "aria-hidden": "true", style: { "--from": fOf(opHi) } }));
  const ticks = scaleTicks(control.scale, [opLo, opHi]).map(({ v, label: withLabel }) =>
    makeTick(fOf(v), withLabel ? String(v) : null, v < opLo || v > opHi ? "out-of-reach" : ""));
  const track = makeTrack({ class: "track-ticked" }, ...blocked, fill, ...ticks, thumbs.lower, thumbs.upper);

  const note = opLo > scaleLo || opHi < scaleHi
    ? h("p", { class: "control-note" },
      h("span", { class: "legend-hatch", "aria-hidden": "true" }),
      `Only ${opLo} – ${opHi} of ${scaleLo} – ${scaleHi} can be reached`)
    : null;
  card.add(h("div", { class: "track-row" }, track), note);

  // A press on the track moves the nearer thumb (past the upper one: upper) that no other finger drags.
  const pickThumb = (f, taken) => {
    const state = model.shown(control.id);
    return nearestFreeThumb(f, THUMBS.map((t) => [t, fOf(state[t])]), taken);
  };
  attachDrag(track, { controlId: control.id, model, actions, pickThumb });
  for (const t of THUMBS) {
    fieldKeys[t] = bindThumbKeys(thumbs[t], {
      controlId: control.id, thumb: t, model, actions, ends: () => [opLo, opHi], edit: () => fields[t].edit(),
    });
  }
  const ghosts = new GhostLayer(() => track);

  let text = "";

  return {
    section: card.section,
    card,
    fields,
    valueText: () => text,
    update(state, others) {
      for (const t of THUMBS) {
        updateThumb(thumbs[t], {
          f: position(control, state, t),
          now: String(state[t]),
          text: String(state[t]),
          min: opLo,
          max: opHi,
        });
      }
      fill.style.setProperty("--f0", fOf(state.lower).toFixed(5));
      placeAt(fill, fOf(state.upper));
      for (const t of THUMBS) fields[t].update(state);
      text = `${state.lower} – ${state.upper}`;
      ghosts.update(others, (g) => position(control, g.state, g.thumb));
    },
  };
}
