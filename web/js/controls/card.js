// The card every control sits in:
// <section class="control" role="group" data-control="ID" data-type="TYPE"> with its
// header — the title (h2, or h3 inside a group's heading, with a "stale"
// badge shown by CSS while the connection is down, a "read only" one for
// viewers and a lock naming who claims the control, claim.js), the value (its editable fields, `.control-value`) and, added by
// tools.js, the card's menu — then the value fields' notes (errors and
// reasons), the control's `description` when it has one, the
// `.control-status` line for short notices such as "held by Ben", the body
// (`.control-body`: the track, pad, switch…) and the `.control-changed`
// line: who last changed it and when ("Ann, 2 min ago").
//
// In the compact layout (body.layout-compact) the same card is one line:
// title · body · value · menu (css/compact.css).

import { h, setText, svg } from "../dom.js";

/** A small padlock (the claim badge, the presence list). */
export function lockIcon(className = "lock-icon") {
  return svg("svg", { class: className, viewBox: "0 0 16 16", width: "12", height: "12", "aria-hidden": "true" },
    svg("rect", { x: "3", y: "7", width: "10", height: "7.5", rx: "1.8" }),
    svg("path", { d: "M5.5 7V5a2.5 2.5 0 0 1 5 0v2" }));
}

const STATUS_MS = 3000;

export function makeCard(control, ...valueParts) {
  const status = h("p", { class: "control-status", role: "status", "aria-live": "polite" });
  const description = typeof control.description === "string" && control.description
    ? h("p", { class: "control-description", id: `desc-${control.id}` }, control.description)
    : null;
  const changed = h("p", { class: "control-changed", "data-empty": "true" });
  const notes = h("div", { class: "value-notes", "aria-live": "polite" });
  const title = h(control.group ? "h3" : "h2", { id: `label-${control.id}`, class: "control-label" }, control.label ?? control.id);
  const value = h("div", { class: "control-value" }, ...valueParts);
  // Who claims the control: "Ann has this" (the compact layout shows the lock and "Ann").
  const claim = h("span", { class: "badge badge-claim", id: `claim-${control.id}`, hidden: true },
    lockIcon(), h("span", { class: "claim-text" }, h("span", { class: "claim-who" }), h("span", { class: "claim-rest" })));
  // A div, not a <header>: outside a <main> (a card in an embedding page's shadow root, web/embed.js) a header is a banner landmark.
  const head = h("div", { class: "control-head" },
    h("div", { class: "control-title" },
      title,
      h("span", { class: "badge badge-stale", title: "Reconnecting: this value may be out of date" }, "stale"),
      h("span", { class: "badge badge-readonly", title: "Your link lets you watch this control, not change it" }, "read only"),
      claim),
    value);
  // A named group, not a region: a room of forty controls is not forty landmarks, and a
  // control may share its label with its group's heading (the synth's Filter switch in Filter).
  const section = h("section", {
    class: "control",
    role: "group",
    "data-control": control.id,
    "data-type": control.type,
    "data-group": typeof control.group === "string" && control.group ? control.group : null,
    "aria-labelledby": `label-${control.id}`,
    "aria-describedby": description ? `desc-${control.id}` : null,
  },
  head,
  notes,
  description,
  status);
  let timer = 0;
  return {
    section,
    head,
    title,
    value,
    description,
    claim,
    /** Appends the control's body (`.control-body`) after the status line; the "last changed" line stays last. */
    add(...children) {
      const parts = children.filter((child) => child != null);
      section.append(h("div", { class: "control-body" }, ...parts), changed);
    },
    /** Puts the value fields' notes under the header. */
    addNotes(...list) {
      notes.append(...list);
    },
    /** Shows a notice for ~3 s; `tone` "ok" for good news ("Copied"), else a warning. */
    notice(text, tone = "warn") {
      setText(status, text);
      status.dataset.tone = tone;
      status.classList.add("visible");
      clearTimeout(timer);
      timer = setTimeout(() => {
        status.classList.remove("visible");
        setText(status, "");
      }, STATUS_MS);
    },
    /** The "last changed" line ("Ann, 2 min ago"); null or "" hides it. `title` is the exact time. */
    changed(text, title = "") {
      setText(changed, text ?? "");
      changed.dataset.empty = text ? "false" : "true";
      if (changed.title !== title) changed.title = title;
      this.lastChanged = text ?? "";
    },
    lastChanged: "",
  };
}
