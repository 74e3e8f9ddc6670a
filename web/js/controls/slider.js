// A continuous slider: track, fill, one thumb, the value (with its `unit`)
// and the ends. A log slider (`scale: "log"`) has ticks at its decades, and
// shows its value to its `digits` significant digits.

import { h, setText } from "../dom.js";
import { formatPlain } from "../format.js";
import { axisMath, position } from "../math.js";
import { makeCard } from "./card.js";
import { attachDrag } from "./drag.js";
import { bindThumbKeys } from "./keys.js";
import { GhostLayer, makeThumb, makeTick, makeTrack, placeAt, updateThumb } from "./track.js";
import { axisText, formatAxisValue, logTicks } from "./values.js";

export function createSlider(control, { model, actions }) {
  const log = axisMath.isLog(control);
  const value = h("span", { class: "slider-value value-display" });
  const card = makeCard(control, value);
  const thumb = makeThumb("value", control.label ?? control.id);
  const fill = h("div", { class: "fill", "aria-hidden": "true" });
  const ticks = log ? logTicks(control.min, control.max).map((t) => makeTick(t.f, t.label)) : [];
  const track = makeTrack(log ? { class: "track-ticked track-log" } : {}, fill, ...ticks, thumb);
  const endText = (v) => (control.digits != null || log ? formatAxisValue(v, control) : formatPlain(v));
  const unit = control.unit ? ` ${control.unit}` : "";
  card.add(
    h("div", { class: "track-row" }, track),
    // A log slider's ends are labelled by its ticks (the value beside the label carries the unit).
    log ? null : h("div", { class: "scale-ends", "aria-hidden": "true" },
      h("span", {}, endText(control.min) + unit), h("span", {}, endText(control.max) + unit)),
  );

  attachDrag(track, { controlId: control.id, model, actions, pickThumb: () => "value" });
  bindThumbKeys(thumb, { controlId: control.id, thumb: "value", actions, ends: () => [control.min, control.max] });
  const ghosts = new GhostLayer(() => track);

  return {
    section: card.section,
    card,
    update(state, others) {
      const f = position(control, state, "value");
      const text = axisText(state.value, control);
      updateThumb(thumb, { f, now: String(state.value), text, min: control.min, max: control.max });
      placeAt(fill, f);
      setText(value, text);
      ghosts.update(others, (g) => position(control, g.state, "value"));
    },
  };
}
