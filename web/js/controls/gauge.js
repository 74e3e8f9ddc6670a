// A read-only gauge, drawn twice: a linear bar (the role=meter element) and
// a circular dial (an SVG arc, hidden from assistive technology). Both are
// tinted green → amber → red along the scale and label min, max and now.
// The header shows the value too (not editable: a gauge is set by its source).

import { h, setAttr, setText, svg } from "../dom.js";
import { formatPlain, withUnit } from "../format.js";
import { gaugeFraction } from "../math.js";
import { makeCard } from "./card.js";

const SWEEP = 270; // degrees of the dial
const START = 135; // degrees clockwise from +x (SVG y points down)
const CX = 100;
const CY = 100;
const R = 78;

function pointAt(angle, radius = R) {
  const rad = (angle * Math.PI) / 180;
  return [CX + radius * Math.cos(rad), CY + radius * Math.sin(rad)];
}

function arcPath() {
  const [x0, y0] = pointAt(START);
  const [x1, y1] = pointAt(START + SWEEP);
  return `M ${x0.toFixed(2)} ${y0.toFixed(2)} A ${R} ${R} 0 1 1 ${x1.toFixed(2)} ${y1.toFixed(2)}`;
}

function tintStops(gradient) {
  for (const [offset, colour] of [["0%", "var(--tint-low)"], ["55%", "var(--tint-mid)"], ["100%", "var(--tint-high)"]]) {
    gradient.append(svg("stop", { offset, style: { "stop-color": colour } }));
  }
  return gradient;
}

export function createGauge(control) {
  const label = control.label ?? control.id;
  const min = control.min;
  const max = control.max;
  const now = h("span", { class: "gauge-value value-text", "aria-hidden": "true" });
  const card = makeCard(control, now);

  // Linear bar: the meter.
  const fillMask = h("div", { class: "gauge-rest" });
  const marker = h("div", { class: "gauge-marker" });
  const nowBubble = h("span", { class: "gauge-now" });
  const linear = h("div", {
    class: "gauge-linear",
    role: "meter",
    "aria-label": label,
  },
  h("div", { class: "gauge-now-row", "aria-hidden": "true" }, nowBubble),
  h("div", { class: "gauge-bar" }, fillMask, marker),
  h("div", { class: "gauge-labels", "aria-hidden": "true" },
    h("span", { class: "gauge-min" }, formatPlain(min)),
    h("span", { class: "gauge-max" }, formatPlain(max))));

  // Dial.
  const gradientId = `gauge-tint-${control.id}`;
  const d = arcPath();
  const valueArc = svg("path", { d, class: "dial-value", pathLength: "100", stroke: `url(#${gradientId})` });
  const needle = svg("line", { class: "dial-needle", x1: CX, y1: CY, x2: CX, y2: CY - R + 18 });
  // The unit is drawn smaller beside the number, so "-12 dB" still fits the dial.
  const dialNumber = svg("tspan", {});
  const dialUnit = svg("tspan", { class: "dial-now-unit" });
  const dialNow = svg("text", { class: "dial-now", x: CX, y: CY + 62, "text-anchor": "middle" }, dialNumber, dialUnit);
  const [minX, minY] = pointAt(START, R);
  const [maxX, maxY] = pointAt(START + SWEEP, R);
  const dial = svg("svg", { class: "gauge-dial", viewBox: "0 0 200 182", "aria-hidden": "true", focusable: "false" },
    svg("defs", {}, tintStops(svg("linearGradient", { id: gradientId, x1: "0", y1: "0", x2: "1", y2: "0" }))),
    svg("path", { d, class: "dial-track" }),
    valueArc,
    needle,
    svg("circle", { class: "dial-hub", cx: CX, cy: CY, r: 6 }),
    dialNow,
    svg("text", { class: "dial-end", x: minX.toFixed(1), y: (minY + 22).toFixed(1), "text-anchor": "middle" }, formatPlain(min)),
    svg("text", { class: "dial-end", x: maxX.toFixed(1), y: (maxY + 22).toFixed(1), "text-anchor": "middle" }, formatPlain(max)));

  card.add(h("div", { class: "gauge-body" }, h("div", { class: "gauge-dial-wrap" }, dial), linear));

  return {
    section: card.section,
    card,
    valueText: () => now.textContent,
    update(state) {
      const value = state.value;
      const f = Number.isFinite(state.fraction) ? state.fraction : gaugeFraction(value, min, max);
      const text = withUnit(formatPlain(value), control.unit ?? "");
      setAttr(linear, "aria-valuemin", min);
      setAttr(linear, "aria-valuemax", max);
      setAttr(linear, "aria-valuenow", value);
      setAttr(linear, "aria-valuetext", text);
      linear.style.setProperty("--f", f.toFixed(5));
      setText(nowBubble, text);
      setText(now, text);
      setAttr(valueArc, "stroke-dasharray", `${(f * 100).toFixed(3)} 100`);
      setAttr(needle, "transform", `rotate(${(START + SWEEP * f + 90).toFixed(2)} ${CX} ${CY})`);
      setText(dialNumber, formatPlain(value));
      setText(dialUnit, control.unit ? ` ${control.unit}` : "");
    },
  };
}
