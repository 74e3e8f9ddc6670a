// The card every control sits in:
// <section class="control" data-control="ID" data-type="TYPE"> with an <h2>,
// a "stale" badge (shown by CSS while the connection is down) and the
// `.control-status` line for short notices such as "held by Ben".

import { h, setText } from "../dom.js";

const STATUS_MS = 3000;

export function makeCard(control, ...headerExtras) {
  const status = h("p", { class: "control-status", role: "status", "aria-live": "polite" });
  const section = h("section", {
    class: "control",
    "data-control": control.id,
    "data-type": control.type,
    "aria-labelledby": `label-${control.id}`,
  },
  h("header", { class: "control-head" },
    h("h2", { id: `label-${control.id}` }, control.label ?? control.id),
    h("span", { class: "badge badge-stale", title: "Reconnecting: this value may be out of date" }, "stale"),
    h("span", { class: "badge badge-readonly", title: "Your link lets you watch this control, not change it" }, "read only"),
    ...headerExtras),
  status);
  let timer = 0;
  return {
    section,
    /** Appends the control's body after the status line. */
    add(...children) {
      section.append(...children);
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
  };
}
