// The share button: copies this room's link. The link carries no token
// unless the person ticks "include my access" (then whoever opens it acts
// with their role, until the token expires), and never a name.

import { h, setText } from "./dom.js";

/** The room's link on this page's origin, with `token` only when given. */
export function shareLink(location, room, token = null) {
  const url = new URL("/", location.href);
  url.searchParams.set("room", room);
  if (token) url.searchParams.set("token", token);
  return url.href;
}

async function copy(text, field) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API (a page over plain http off this machine): select it for Ctrl+C.
    field.focus();
    field.select();
    try {
      return document.execCommand("copy");
    } catch {
      return false;
    }
  }
}

/**
 * Puts a Share button after `anchor` in the header.
 * @param {{room: string, token: () => string|null, anchor: Element}} options
 */
export function setupShare({ room, token, anchor }) {
  const field = h("input", { id: "share-link", class: "share-link", readonly: true, "aria-label": "Room link" });
  const withAccess = h("input", { type: "checkbox", id: "share-access" });
  const accessRow = h("label", { class: "share-access", for: "share-access" }, withAccess,
    h("span", {}, "Include my access (whoever opens the link can do what I can, until it expires)"));
  const done = h("p", { class: "share-done", role: "status", "aria-live": "polite" });
  const copyButton = h("button", { type: "button", class: "button-primary" }, "Copy link");
  const dialog = h("dialog", { class: "share-dialog sheet", "aria-labelledby": "share-title" },
    h("div", { class: "sheet-head" },
      h("h2", { id: "share-title" }, "Invite others to this room"),
      h("button", { type: "button", class: "sheet-close", "aria-label": "Close", onclick: () => dialog.close() }, "×")),
    field, accessRow,
    h("div", { class: "dialog-actions" }, done, copyButton));
  const draw = () => {
    const t = token();
    accessRow.hidden = !t;
    field.value = shareLink(location, room, t && withAccess.checked ? t : null);
  };
  withAccess.addEventListener("change", () => {
    setText(done, "");
    draw();
  });
  copyButton.addEventListener("click", async () => {
    setText(done, (await copy(field.value, field)) ? "Copied" : "Select the link and copy it (Ctrl+C)");
  });
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close();
  });
  const button = h("button", { type: "button", id: "share", class: "share-button", "aria-haspopup": "dialog" },
    "Share");
  button.addEventListener("click", () => {
    withAccess.checked = false;
    setText(done, "");
    draw();
    dialog.showModal();
    field.select();
  });
  dialog.addEventListener("close", () => button.focus());
  anchor.after(button);
  document.body.append(dialog);
  return { button, dialog };
}
