// An on/off switch (`toggle`): one button with role=switch. A tap, Space or
// Enter commits `step by 1` (the server flips it); what is shown flips at once
// and the server's commit confirms it.

import { h, setAttr, setText } from "../dom.js";
import { makeCard } from "./card.js";

export function createToggle(control, { actions }) {
  const word = h("span", { class: "toggle-word value-text", "aria-hidden": "true" });
  const card = makeCard(control, word);
  const sw = h("button", {
    type: "button",
    class: "toggle-switch",
    role: "switch",
    "data-thumb": "on",
    "aria-checked": "false",
    "aria-labelledby": `label-${control.id}`,
    onclick: () => actions.step(control.id, "on", 1),
  },
  h("span", { class: "toggle-track", "aria-hidden": "true" }, h("span", { class: "toggle-knob" })),
  h("span", { class: "toggle-state", "aria-hidden": "true" }));
  card.add(h("div", { class: "toggle-row" }, sw));

  return {
    section: card.section,
    card,
    valueText: () => word.textContent,
    update(state) {
      const on = state.on === true;
      setAttr(sw, "aria-checked", on ? "true" : "false");
      setText(word, on ? "On" : "Off");
      setText(sw.querySelector(".toggle-state"), on ? "on" : "off");
      card.section.classList.toggle("is-on", on);
      sw.disabled = actions.readOnly;
    },
  };
}
