// The tools on every card: a menu button ("More for Cutoff") with Reset to
// default and Copy value, the control's description and its last change in
// words (the compact layout hides both from the card: the menu still has
// them), and a double-click on the label that resets the control. Reset is
// left out for viewers (read only) and for gauges and momentary buttons,
// whose values are not settings: a gauge is set by its source, a button
// counts presses.

import { h, setText } from "../dom.js";
import { makeMenu, menuItem } from "../menu.js";

/** Kinds a person may reset. */
export function resettable(control) {
  return control.type !== "gauge" && control.type !== "button";
}

/**
 * @param {{section, card, valueText: () => string}} view
 * @param {object} control  the schema
 * @param {{reset: (id: string) => void, copy: (view, control) => void, canAct: () => boolean,
 *          readOnly: () => boolean, locked?: (id: string) => boolean}} ctx
 */
export function attachTools(view, control, ctx) {
  const label = control.label ?? control.id;
  const card = view.card;
  const about = control.description ? h("p", { class: "menu-about" }, control.description) : null;
  const changed = h("p", { class: "menu-changed" });
  const reset = menuItem("Reset to default", () => {
    menu.close();
    ctx.reset(control.id);
  }, { "data-item": "reset" });
  const copy = menuItem("Copy value", () => {
    menu.close();
    ctx.copy(view, control);
  }, { "data-item": "copy" });
  const menu = makeMenu({
    label: `More for ${label}`,
    content: [h("span", { class: "menu-dots", "aria-hidden": "true" }, "⋯")],
    className: "card-menu-button",
    panelClass: "card-menu",
    onOpen: () => tools.update(),
  });
  menu.panel.append(...[about, changed, resettable(control) ? reset : null, copy].filter(Boolean));
  card.head.append(menu.root);

  if (resettable(control)) {
    // A double-click on the label resets; the second press would select the word, so it does not.
    card.title.addEventListener("mousedown", (event) => {
      if (event.detail > 1) event.preventDefault();
    });
    card.title.addEventListener("dblclick", () => {
      if (ctx.canAct()) ctx.reset(control.id);
    });
  }

  const tools = {
    menu,
    /** Redraws what depends on the role and the connection. */
    update() {
      const readOnly = ctx.readOnly();
      reset.hidden = readOnly || !resettable(control);
      // Someone else's claim: a reset would be refused `claimed` (claim.js says who has it).
      reset.disabled = !ctx.canAct() || ctx.locked?.(control.id) === true;
      const last = card.lastChanged;
      setText(changed, last ? `Last changed: ${last}` : "");
      changed.hidden = !last;
      const hints = [control.description, last ? `Last changed: ${last}` : null,
        !readOnly && resettable(control) ? "Double-click to reset to its default" : null].filter(Boolean);
      const title = hints.join("\n");
      if (card.title.title !== title) card.title.title = title;
      card.title.classList.toggle("resettable", !readOnly && resettable(control));
    },
  };
  return tools;
}
