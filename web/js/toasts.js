// Toasts: short notices at the foot of the page, for what others did to the
// whole room (a recall, a restore, a reset; batchnotes.js says what). Each
// may carry one action ("Undo"); it goes by itself after a while unless the
// pointer or the focus is on it, and at most a few are shown.
import { h } from "./dom.js";

const SHOWN_MS = 10_000;
const MAX_SHOWN = 3;

export class Toasts {
  constructor(parent = document.body) {
    this.el = h("div", { class: "toasts", role: "status", "aria-live": "polite", "aria-label": "What others did" });
    parent.append(this.el);
  }

  /**
   * Shows `text`; `action` ({label, run, ariaLabel?}) adds a button that runs
   * it and closes the toast, `available()` (optional) hides that button once
   * it no longer applies. Returns the toast's element.
   */
  show(text, action = null, available = null) {
    const close = () => this.close(toast);
    const actionButton = action
      ? h("button", { type: "button", class: "toast-action", "aria-label": action.ariaLabel ?? action.label,
          onclick: () => { action.run(); close(); } }, action.label)
      : null;
    const toast = h("div", { class: "toast" },
      h("p", { class: "toast-text" }, text),
      actionButton,
      h("button", { type: "button", class: "toast-close", "aria-label": "Dismiss", onclick: close }, "×"));
    toast.available = available;
    toast.returnTo = document.activeElement;
    toast.actionButton = actionButton;
    let timer = 0;
    const arm = () => { clearTimeout(timer); timer = setTimeout(close, SHOWN_MS); };
    const hold = () => clearTimeout(timer);
    toast.addEventListener("pointerenter", hold);
    toast.addEventListener("pointerleave", () => { if (!toast.contains(document.activeElement)) arm(); });
    toast.addEventListener("focusin", hold);
    toast.addEventListener("focusout", (e) => { if (!toast.contains(e.relatedTarget)) arm(); });
    toast.disarm = hold;
    this.el.append(toast);
    while (this.el.children.length > MAX_SHOWN) this.close(this.el.firstElementChild);
    arm();
    return toast;
  }

  /** Hides every action that no longer applies (after each frame). */
  refresh() {
    for (const toast of this.el.children) {
      if (toast.actionButton && toast.available) toast.actionButton.hidden = !toast.available();
    }
  }

  close(toast) {
    if (!toast?.isConnected) return;
    toast.disarm?.();
    // The focus goes back where it was when the toast came, not to <body>.
    const hadFocus = toast.contains(document.activeElement);
    toast.remove();
    if (hadFocus && toast.returnTo?.isConnected && toast.returnTo !== document.body) toast.returnTo.focus({ preventScroll: true });
  }
}
