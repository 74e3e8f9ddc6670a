// A small menu: a button that shows a panel of actions under it (the
// disclosure pattern: `aria-expanded`, `aria-controls`). The panel opens with
// its first action focused; ↑/↓ move between its actions, Escape closes it
// and returns to the button, and a click or the focus going elsewhere
// closes it. One menu is open at a time.

import { h } from "./dom.js";

let menus = 0;
let openMenu = null;

/**
 * @param {{label: string, content: (string|Node)[], className?: string, panelClass?: string,
 *          onOpen?: () => void, title?: string}} options
 *   label: the button's accessible name ("More for Cutoff"); content: what the button shows
 * @returns {{root: HTMLElement, button: HTMLButtonElement, panel: HTMLElement, open(), close(focusButton?), isOpen: boolean}}
 */
export function makeMenu({ label, content, className = "", panelClass = "", onOpen = () => {}, title = label }) {
  menus += 1;
  const id = `menu-${menus}`;
  const button = h("button", {
    type: "button",
    class: `menu-button${className ? " " + className : ""}`,
    "aria-label": label,
    "aria-expanded": "false",
    "aria-controls": id,
    title,
  }, ...content);
  const panel = h("div", { class: `menu-panel${panelClass ? " " + panelClass : ""}`, id, role: "group", "aria-label": label, hidden: true });
  const root = h("div", { class: "menu" }, button, panel);

  const items = () => [...panel.querySelectorAll("button, [href], input")].filter((el) => !el.disabled && !el.hidden && el.offsetParent !== null);
  const menu = {
    root,
    button,
    panel,
    get isOpen() {
      return !panel.hidden;
    },
    open() {
      if (openMenu && openMenu !== menu) openMenu.close(false);
      openMenu = menu;
      onOpen();
      panel.hidden = false;
      // Right-aligned under its button, unless that would run off the left edge (a header that wrapped).
      panel.classList.remove("menu-panel-start");
      if (panel.getBoundingClientRect().left < 8) panel.classList.add("menu-panel-start");
      button.setAttribute("aria-expanded", "true");
      root.classList.add("open");
      items()[0]?.focus();
    },
    close(focusButton = true) {
      if (panel.hidden) return;
      panel.hidden = true;
      button.setAttribute("aria-expanded", "false");
      root.classList.remove("open");
      if (openMenu === menu) openMenu = null;
      if (focusButton) button.focus();
    },
  };
  button.addEventListener("click", () => (menu.isOpen ? menu.close() : menu.open()));
  root.addEventListener("keydown", (event) => {
    if (!menu.isOpen) return;
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      menu.close();
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      const list = items();
      if (!list.length || !panel.contains(event.target) && event.target !== button) return;
      event.preventDefault();
      const at = list.indexOf(event.target);
      const next = event.key === "ArrowDown" ? (at + 1) % list.length : (at - 1 + list.length) % list.length;
      list[at < 0 ? 0 : next].focus();
    }
  });
  root.addEventListener("focusout", (event) => {
    if (menu.isOpen && event.relatedTarget && !root.contains(event.relatedTarget)) menu.close(false);
  });
  return menu;
}

// A press anywhere outside the open menu closes it (the composed path: a menu in a shadow root, web/embed.js,
// sees presses inside it retargeted to its host).
if (typeof document !== "undefined") {
  document.addEventListener("pointerdown", (event) => {
    if (openMenu && !event.composedPath().includes(openMenu.root)) openMenu.close(false);
  }, true);
}

/** An action in a menu panel. */
export function menuItem(text, onclick, attrs = {}) {
  return h("button", { type: "button", class: "menu-item", onclick, ...attrs }, text);
}
