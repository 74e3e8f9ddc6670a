// A two-axis pad (`xy`): a square area with one knob. Dragging anywhere moves
// it (a press away from the knob jumps there: `at: [fx, fy]`; moves carry
// `dx` and `dy`, +dy up the y axis). For assistive technology and the
// keyboard the knob holds two sliders, one per axis; on either, the arrows
// move each axis (left/right x, up/down y: `step by [nx, ny]`; keys.js has
// Shift, Alt, Page keys, Home/End and Enter). Each axis' value is an editable
// field in the header. Others' live drags show as ghosts in their colour, as
// on every control.

import { h, setAttr, setVar } from "../dom.js";
import { axisMath, position } from "../math.js";
import { makeCard } from "./card.js";
import { attachDrag } from "./drag.js";
import { bindThumbKeys } from "./keys.js";
import { GhostLayer } from "./track.js";
import { makeValueField } from "./valuefield.js";
import { axisText, formatAxisValue, logTicks } from "./values.js";

/** Places a pad element at [fx, fy] (CSS --fx, --fy; fy = 0 at the bottom). */
function placeXY(el, f) {
  const [fx, fy] = Array.isArray(f) ? f : [0, 0];
  const c = (v) => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0).toFixed(5);
  setVar(el, "--fx", c(fx));
  setVar(el, "--fy", c(fy));
}

/** Grid lines of an axis: its decades on a log axis, quarters on a linear one. */
function gridOf(axis) {
  if (axisMath.isLog(axis)) return logTicks(axis.min, axis.max).filter((t) => t.label && t.f > 0 && t.f < 1).map((t) => t.f);
  return [0.25, 0.5, 0.75];
}

export function createXY(control, { model, actions }) {
  const label = control.label ?? control.id;
  const axes = { x: control.x ?? { min: 0, max: 1 }, y: control.y ?? { min: 0, max: 1 } };
  const axisName = (a) => axes[a].label ?? a;
  const sliders = Object.fromEntries(["x", "y"].map((a) => [a, h("span", {
    class: "xy-slider",
    role: "slider",
    tabindex: "0",
    "data-thumb": "xy",
    "data-axis": a,
    "aria-label": `${label} ${a}: ${axisName(a)}`,
    "aria-orientation": a === "x" ? "horizontal" : "vertical",
  })]));
  const fieldKeys = {};
  const fields = Object.fromEntries(["x", "y"].map((a) => [a, makeValueField(control, a, {
    model, actions, label: `${label} ${axisName(a)} value`, thumb: sliders[a], keys: (event) => fieldKeys[a]?.(event),
  })]));
  const card = makeCard(control, h("span", { class: "xy-value" },
    fields.x.input, h("span", { class: "value-sep", "aria-hidden": "true" }, "·"), fields.y.input));
  card.addNotes(fields.x.note, fields.y.note);
  const knob = h("div", { class: "xy-knob", "data-thumb": "xy" }, sliders.x, sliders.y);
  const cross = h("div", { class: "xy-cross", "aria-hidden": "true" });
  const lines = [
    ...gridOf(axes.x).map((f) => h("div", { class: "xy-grid xy-grid-x", "aria-hidden": "true", style: { "--f": f.toFixed(5) } })),
    ...gridOf(axes.y).map((f) => h("div", { class: "xy-grid xy-grid-y", "aria-hidden": "true", style: { "--f": f.toFixed(5) } })),
  ];
  const pad = h("div", { class: "xy-pad" }, ...lines, cross, knob);
  const end = (a, v) => formatAxisValue(v, axes[a]);
  card.add(
    h("div", { class: "xy-body" },
      h("div", { class: "xy-y-axis", "aria-hidden": "true" },
        h("span", { class: "xy-end" }, end("y", axes.y.max)),
        h("span", { class: "xy-axis-name" }, axisName("y") + (axes.y.unit ? ` (${axes.y.unit})` : "")),
        h("span", { class: "xy-end" }, end("y", axes.y.min))),
      pad,
      h("div", { class: "xy-x-axis", "aria-hidden": "true" },
        h("span", { class: "xy-end" }, end("x", axes.x.min)),
        h("span", { class: "xy-axis-name" }, axisName("x") + (axes.x.unit ? ` (${axes.x.unit})` : "")),
        h("span", { class: "xy-end" }, end("x", axes.x.max)))),
  );

  attachDrag(pad, { controlId: control.id, model, actions, pickThumb: () => "xy", pad: true });
  const ghosts = new GhostLayer(() => pad, placeXY);

  for (const a of ["x", "y"]) {
    fieldKeys[a] = bindThumbKeys(sliders[a], {
      controlId: control.id, thumb: "xy", model, actions, axis: a,
      ends: (along) => [axes[along].min, axes[along].max],
      edit: () => fields[a].edit(),
    });
  }
  let text = "";

  return {
    section: card.section,
    card,
    fields,
    valueText: () => text,
    update(state, others) {
      const f = position(control, state, "xy");
      placeXY(knob, f);
      placeXY(cross, f);
      for (const a of ["x", "y"]) {
        setAttr(sliders[a], "aria-valuemin", axes[a].min);
        setAttr(sliders[a], "aria-valuemax", axes[a].max);
        setAttr(sliders[a], "aria-valuenow", state[a]);
        setAttr(sliders[a], "aria-valuetext", axisText(state[a], axes[a]));
      }
      for (const a of ["x", "y"]) fields[a].update(state);
      text = `${axisText(state.x, axes.x)} · ${axisText(state.y, axes.y)}`;
      ghosts.update(others, (g) => position(control, g.state, "xy"));
    },
  };
}
