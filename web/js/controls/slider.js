// A continuous slider: track, fill, one thumb, the value and the ends.

import { h, setText } from "../dom.js";
import { formatPlain, formatSliderValue } from "../format.js";
import { position } from "../math.js";
import { makeCard } from "./card.js";
import { attachDrag } from "./drag.js";
import { bindThumbKeys } from "./keys.js";
import { GhostLayer, makeThumb, makeTrack, placeAt, updateThumb } from "./track.js";

export function createSlider(control, { model, actions }) {
  const value = h("span", { class: "slider-value value-display" });
  const card = makeCard(control, value);
  const thumb = makeThumb("value", control.label ?? control.id);
  const fill = h("div", { class: "fill", "aria-hidden": "true" });
  const track = makeTrack({}, fill, thumb);
  const fmt = (v) => formatSliderValue(v, control);
  card.add(
    h("div", { class: "track-row" }, track),
    h("div", { class: "scale-ends", "aria-hidden": "true" },
      h("span", {}, formatPlain(control.min)), h("span", {}, formatPlain(control.max))),
  );

  attachDrag(track, { controlId: control.id, model, actions, pickThumb: () => "value" });
  bindThumbKeys(thumb, { controlId: control.id, thumb: "value", actions, ends: () => [control.min, control.max] });
  const ghosts = new GhostLayer(() => track);

  return {
    section: card.section,
    card,
    update(state, others) {
      const f = position(control, state, "value");
      const text = fmt(state.value);
      updateThumb(thumb, { f, now: String(state.value), text, min: control.min, max: control.max });
      placeAt(fill, f);
      setText(value, text);
      ghosts.update(others, (g) => position(control, g.state, "value"));
    },
  };
}
