// A continuous slider: track, fill, one thumb, the value (with its `unit`,
// in its editable value field) and the ends. A log slider (`scale: "log"`)
// has ticks at its decades, and shows its value to its `digits` significant
// digits.

import { h } from "../dom.js";
import { formatPlain } from "../format.js";
import { axisMath, position } from "../math.js";
import { makeCard } from "./card.js";
import { attachDrag } from "./drag.js";
import { bindThumbKeys } from "./keys.js";
import { GhostLayer, makeThumb, makeTick, makeTrack, placeAt, updateThumb } from "./track.js";
import { makeValueField } from "./valuefield.js";
import { axisText, formatAxisValue, logTicks } from "./values.js";

export function createSlider(control, { model, actions }) {
  const label = control.label ?? control.id;
  const log = axisMath.isLog(control);
  const thumb = makeThumb("value", label);
  let fieldKeys = null;
  const field = makeValueField(control, "value", {
    model, actions, label: `${label} value`, thumb, keys: (event) => fieldKeys?.(event),
  });
  field.input.classList.add("slider-value");
  const card = makeCard(control, field.input);
  card.addNotes(field.note);
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
  fieldKeys = bindThumbKeys(thumb, {
    controlId: control.id, thumb: "value", model, actions, ends: () => [control.min, control.max], edit: () => field.edit(),
  });
  const ghosts = new GhostLayer(() => track);
  let text = "";

  return {
    section: card.section,
    card,
    fields: { value: field },
    valueText: () => text,
    update(state, others) {
      const f = position(control, state, "value");
      text = axisText(state.value, control);
      updateThumb(thumb, { f, now: String(state.value), text, min: control.min, max: control.max });
      placeAt(fill, f);
      field.update(state);
      ghosts.update(others, (g) => position(control, g.state, "value"));
    },
  };
}
