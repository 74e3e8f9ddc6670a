// The pieces every track-based control draws: the track, its thumbs, ticks
// and other people's ghost markers. Positions are track fractions, drawn
// with the CSS custom property --f (see .at in tandem.css), so 0 sits at the
// thumb's centre at the low end and 1 at the high end, as in the protocol.

import { h, inkOn, setAttr, setText, setVar } from "../dom.js";

/** A track: `div.track` holding a rail, and whatever is appended later. */
export function makeTrack(attrs = {}, ...children) {
  const { class: extra, ...rest } = attrs;
  return h("div", { class: `track${extra ? " " + extra : ""}`, ...rest },
    h("div", { class: "rail", "aria-hidden": "true" }),
    ...children);
}

/** A thumb: the focusable element with role=slider. */
export function makeThumb(thumb, label) {
  return h("div", {
    class: "thumb at",
    role: "slider",
    tabindex: "0",
    "data-thumb": thumb,
    "aria-label": label,
    "aria-orientation": "horizontal",
  });
}

/** Places any `.at` element at track fraction f. */
export function placeAt(el, f) {
  setVar(el, "--f", Number.isFinite(f) ? Math.min(1, Math.max(0, f)).toFixed(5) : "0");
}

/** Draws a thumb at f with its ARIA values. */
export function updateThumb(el, { f, now, text, min, max }) {
  placeAt(el, f);
  setAttr(el, "aria-valuemin", min);
  setAttr(el, "aria-valuemax", max);
  setAttr(el, "aria-valuenow", now);
  setAttr(el, "aria-valuetext", text);
}

/** A tick mark (and optional label) at fraction f. */
export function makeTick(f, label = null, extra = "") {
  const tick = h("div", { class: `tick at${extra ? " " + extra : ""}`, "aria-hidden": "true" },
    label == null ? null : h("span", { class: "tick-label" }, label));
  placeAt(tick, f);
  return tick;
}

/**
 * Other people's ghost markers on a control: `.ghost[data-by][data-thumb]`
 * with the person's name, in their colour, at the thumb they hold.
 * `hostOf(thumb)` is the track element the marker goes into; `placeFn(el, f)`
 * puts a marker at what `fOf` gives (an xy pad places at [fx, fy]).
 */
export class GhostLayer {
  constructor(hostOf, placeFn = placeAt) {
    this.hostOf = hostOf;
    this.placeFn = placeFn;
    this.markers = new Map(); // "by thumb" -> element
  }

  /** ghosts: [{thumb, by, name, color, state}]; fOf(ghost) -> fraction. */
  update(ghosts, fOf) {
    const seen = new Set();
    for (const g of ghosts) {
      const host = this.hostOf(g.thumb);
      if (!host) continue;
      const key = `${g.by} ${g.thumb}`;
      seen.add(key);
      let el = this.markers.get(key);
      if (!el) {
        el = h("div", { class: "ghost at", "data-by": g.by, "data-thumb": g.thumb, "aria-hidden": "true" },
          h("span", { class: "ghost-ring" }),
          h("span", { class: "ghost-name" }));
        this.markers.set(key, el);
      }
      if (el.parentNode !== host) host.append(el);
      setText(el.querySelector(".ghost-name"), g.name);
      setVar(el, "--ghost", g.color);
      setVar(el, "--ghost-ink", inkOn(g.color));
      el.title = `${g.name} is dragging`;
      this.placeFn(el, fOf(g));
    }
    for (const [key, el] of this.markers) {
      if (!seen.has(key)) {
        el.remove();
        this.markers.delete(key);
      }
    }
  }
}
