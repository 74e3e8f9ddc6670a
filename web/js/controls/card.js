// The card every control sits in:
// <section class="control" data-control="ID" data-type="TYPE"> with its
// heading (h2, or h3 inside a group's heading), a "stale" badge (shown by CSS
// while the connection is down), the `.control-status` line for short notices
// such as "held by Ben", the control's `description` when it has one, and the
// `.control-changed` line: who last changed it and when ("Ann, 2 min ago").

import { h, setText } from "../dom.js";

const STATUS_MS = 3000;

export function makeCard(control, ...headerExtras) {
  const status = h("p", { class: "control-status", role: "status", "aria-live": "polite" });
  const description = typeof control.description === "string" && control.description
    ? h("p", { class: "control-description", id: `desc-${control.id}` }, control.description)
    : null;
  const changed = h("p", { class: "control-changed", "data-empty": "true" });
  const section = h("section", {
    class: "control",
    "data-control": control.id,
    "data-type": control.type,
    "data-group": typeof control.group === "string" && control.group ? control.group : null,
    "aria-labelledby": `label-${control.id}`,
    "aria-describedby": description ? `desc-${control.id}` : null,
  },
  h("header", { class: "control-head" },
    h(control.group ? "h3" : "h2", { id: `label-${control.id}` }, control.label ?? control.id),
    h("span", { class: "badge badge-stale", title: "Reconnecting: this value may be out of date" }, "stale"),
    h("span", { class: "badge badge-readonly", title: "Your link lets you watch this control, not change it" }, "read only"),
    ...headerExtras),
  description,
  status);
  let timer = 0;
  return {
    section,
    /** Appends the control's body after the status line (the "last changed" line stays last). */
    add(...children) {
      section.append(...children.filter((child) => child != null), changed);
    },
    /** Shows a notice for ~3 s. */
    notice(text) {
      setText(status, text);
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
    },
  };
}
