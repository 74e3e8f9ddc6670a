// The room's own actions in the header, after Share: the layout switch
// (cards, or compact: one line per control) and the room's menu ("More for
// this room": Copy values as JSON, Reset all to defaults, which asks first).
// Reset is hidden for viewers; both writes are disabled while the page
// cannot send.

import { h, setAttr, svg } from "./dom.js";
import { makeMenu, menuItem } from "./menu.js";

function rowsIcon() {
  return svg("svg", { viewBox: "0 0 20 20", width: "16", height: "16", "aria-hidden": "true", class: "layout-icon" },
    svg("path", { d: "M3 5h14M3 10h14M3 15h14" }));
}

/**
 * @param {{anchor: Element, model, onLayout: () => void, isCompact: () => boolean,
 *          copyValues: () => void, resetAll: () => void, canAct: () => boolean}} options
 */
export function setupRoomTools({ anchor, model, onLayout, isCompact, copyValues, resetAll, canAct }) {
  const layout = h("button", {
    type: "button",
    id: "layout-toggle",
    class: "header-button layout-toggle",
    "aria-pressed": "false",
    title: "One line per control (remembered for this room)",
    onclick: () => onLayout(),
  }, rowsIcon(), h("span", { class: "header-button-text" }, "Compact"));

  const copy = menuItem("Copy values as JSON", () => {
    menu.close();
    copyValues();
  }, { "data-item": "copy-values" });
  const reset = menuItem("Reset all to defaults…", () => confirm(), { "data-item": "reset-all" });
  const question = h("p", { class: "menu-about menu-confirm-text" });
  const yes = menuItem("Reset all", () => {
    menu.close();
    resetAll();
  }, { "data-item": "confirm-reset-all", class: "menu-item menu-danger" });
  const keep = menuItem("Keep", () => {
    unconfirm();
    reset.focus();
  }, { "data-item": "keep" });
  const confirmBox = h("div", { class: "menu-confirm", role: "group", "aria-label": "Reset all to defaults?", hidden: true },
    question, h("div", { class: "menu-confirm-actions" }, yes, keep));

  const menu = makeMenu({
    label: "More for this room",
    content: [h("span", { class: "menu-dots", "aria-hidden": "true" }, "⋯")],
    className: "header-button room-menu-button",
    panelClass: "room-menu",
    onOpen: () => {
      unconfirm();
      update();
    },
  });
  menu.panel.append(copy, reset, confirmBox);

  function confirm() {
    // The server leaves gauges (a program publishes them) and buttons (presses are events) alone.
    const kinds = [...model.controls.values()].map((c) => c.schema.type);
    const n = kinds.filter((type) => type !== "gauge" && type !== "button").length;
    const kept = n < kinds.length ? " (gauges and buttons keep theirs)" : "";
    question.textContent = `Reset ${n === 1 ? "the control" : `all ${n} controls`} to the room's defaults, for everyone${kept}? Undo takes it back.`;
    confirmBox.hidden = false;
    reset.hidden = true;
    keep.focus();
  }
  function unconfirm() {
    confirmBox.hidden = true;
    reset.hidden = model.readOnly;
  }
  function update() {
    setAttr(layout, "aria-pressed", isCompact() ? "true" : "false");
    if (confirmBox.hidden) reset.hidden = model.readOnly;
    reset.disabled = !canAct();
    yes.disabled = !canAct();
  }

  anchor.after(layout, menu.root);
  return { layout, menu, update };
}
