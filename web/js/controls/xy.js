// A two-axis pad (`xy`): a square area with one knob. Dragging anywhere moves
// it (a press away from the knob jumps there: `at: [fx, fy]`; moves carry
// `dx` and `dy`, +dy up the y axis). For assistive technology and the
// keyboard the knob holds two sliders, one per axis; on either, the arrows
// move each axis (left/right x, up/down y: `step by [nx, ny]`), Page keys move
// that slider's axis by 10, Home/End set it to its ends. Others' live drags
// show as ghosts in their colour, as on every control.

import { h, setAttr, setText, setVar } from "../dom.js";
import { axisMath, position } from "../math.js";
import { makeCard } from "./card.js";
import { attachDrag, cancelDrags, isDragging } from "./drag.js";
import { GhostLayer } from "./track.js";
import { axisText, formatAxisValue, logTicks } from "./values.js";

/** Places a pad element at [fx, fy] (CSS --fx, --fy; fy = 0 at the bottom). */
function placeXY(el, f) {
  const [fx, fy] = Array.isArray(f) ? f : [0, 0];
  const c = (v) => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0).toFixed(5);
  setVar(el, "--fx", c(fx));
  setVar(el, "--fy", c(fy));
}

const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowDown: [0, -1], ArrowUp: [0, 1] };

/** Grid lines of an axis: its decades on a log axis, quarters on a linear one. */
function gridOf(axis) {
  if (axisMath.isLog(axis)) return logTicks(axis.min, axis.max).filter((t) => t.label && t.f > 0 && t.f < 1).map((t) => t.f);
  return [0.25, 0.5, 0.75];
}

export function createXY(control, { model, actions }) {
  const label = control.label ?? control.id;
  const axes = { x: control.x ?? { min: 0, max: 1 }, y: control.y ?? { min: 0, max: 1 } };
  const axisName = (a) => axes[a].label ?? a;
  const value = h("span", { class: "xy-value value-display" });
  const card = makeCard(control, value);

  const sliders = Object.fromEntries(["x", "y"].map((a) => [a, h("span", {
    class: "xy-slider",
    role: "slider",
    tabindex: "0",
    "data-thumb": "xy",
    "data-axis": a,
    "aria-label": `${label} ${a}: ${axisName(a)}`,
    "aria-orientation": a === "x" ? "horizontal" : "vertical",
  })]));
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
    sliders[a].addEventListener("keydown", (event) => {
      if (event.altKey || event.ctrlKey || event.metaKey || actions.readOnly) return;
      if (event.key === "Escape") {
        if (cancelDrags(control.id)) event.preventDefault();
        return;
      }
      const arrow = ARROWS[event.key];
      const page = event.key === "PageUp" ? 10 : event.key === "PageDown" ? -10 : 0;
      const isEnd = event.key === "Home" || event.key === "End";
      if (!arrow && !page && !isEnd) return;
      event.preventDefault();
      if (isDragging(control.id)) return; // the drag owns the knob until released
      if (isEnd) {
        const target = event.key === "Home" ? axes[a].min : axes[a].max;
        const shown = model.shown(control.id);
        const expected = model.heldBy(control.id, "xy") || !shown ? undefined : { ...shown, [a]: target };
        actions.send(control.id, "xy", { type: "set", value: { [a]: target } }, expected);
        return;
      }
      const by = arrow ?? (a === "x" ? [page, 0] : [0, page]);
      actions.step(control.id, "xy", by);
    });
  }

  return {
    section: card.section,
    card,
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
      setText(value, `${axisText(state.x, axes.x)} · ${axisText(state.y, axes.y)}`);
      ghosts.update(others, (g) => position(control, g.state, "xy"));
    },
  };
}
