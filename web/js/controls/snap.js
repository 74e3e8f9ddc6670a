// A snap slider: a thumb that lands on one of `values`, a tick at each
// value's position (ordinal or proportional), Smaller/Larger buttons and the
// selected value with its unit, in its editable value field (a value typed
// there goes to the nearest of `values`). With `labels` (a waveform: sine,
// square, …) the labels are shown in place of the values, the field takes a
// label too, and the buttons are Previous/Next.

import { h } from "../dom.js";
import { formatPlain, withUnit } from "../format.js";
import { position, snapPosition } from "../math.js";
import { makeCard } from "./card.js";
import { attachDrag } from "./drag.js";
import { bindThumbKeys } from "./keys.js";
import { GhostLayer, makeThumb, makeTick, makeTrack, updateThumb } from "./track.js";
import { makeValueField } from "./valuefield.js";
import { snapText } from "./values.js";

/** Whether every value gets a label under its tick (too many would overlap; words take more room). */
function labelled(values, i, words = false) {
  if (values.length <= (words ? 6 : 12)) return true;
  return i === 0 || i === values.length - 1;
}

export function createSnap(control, { model, actions }) {
  const values = control.values ?? [];
  const layout = control.layout ?? "ordinal";
  const unit = control.unit ?? "";
  const label = control.label ?? control.id;
  const last = values.length - 1;

  const thumb = makeThumb("index", label);
  let fieldKeys = null;
  const field = makeValueField(control, "index", {
    model, actions, label: `${label} value`, thumb, keys: (event) => fieldKeys?.(event),
  });
  field.input.classList.add("snap-value");
  const card = makeCard(control, field.input);
  card.addNotes(field.note);
  const labels = Array.isArray(control.labels) && control.labels.length === values.length ? control.labels : null;
  const ticks = values.map((v, i) =>
    makeTick(snapPosition(i, values, layout), labelled(values, i, labels != null) ? (labels ? labels[i] : formatPlain(v)) : null));
  const track = makeTrack({ class: "track-ticked" }, ...ticks, thumb);

  const stepButton = (by, text) => h("button", {
    type: "button",
    class: "step-button",
    "data-step": String(by),
    title: `${text} ${label.toLowerCase()}`,
    onclick: () => actions.step(control.id, "index", by),
  }, text);
  const smaller = stepButton(-1, labels ? "Previous" : "Smaller");
  const larger = stepButton(1, labels ? "Next" : "Larger");
  if (labels) card.section.dataset.labelled = "true";

  card.add(
    h("div", { class: "track-row" }, track),
    h("div", { class: "button-row" }, smaller, larger),
  );

  attachDrag(track, { controlId: control.id, model, actions, pickThumb: () => "index" });
  fieldKeys = bindThumbKeys(thumb, {
    controlId: control.id, thumb: "index", model, actions,
    ends: () => [values[0], values[last]],
    edit: () => field.edit(),
  });
  const ghosts = new GhostLayer(() => track);
  let text = "";

  return {
    section: card.section,
    card,
    fields: { index: field },
    valueText: () => text,
    update(state, others) {
      text = labels ? snapText(control, state.index, "") : withUnit(formatPlain(state.value), unit);
      updateThumb(thumb, {
        f: position(control, state, "index"),
        now: String(state.value),
        text,
        min: values[0],
        max: values[last],
      });
      field.update(state);
      ticks.forEach((tick, i) => tick.classList.toggle("selected", i === state.index));
      smaller.disabled = actions.readOnly || state.index <= 0;
      larger.disabled = actions.readOnly || state.index >= last;
      ghosts.update(others, (g) => position(control, g.state, "index"));
    },
  };
}
