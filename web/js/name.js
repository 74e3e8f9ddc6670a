// The display name: `?name=` wins, then the token's `name` claim (the server
// prefers it anyway), then the one this browser kept (localStorage
// `tandem.name`); with none, a small dialog asks once before connecting and
// keeps the answer. "Join as Guest" keeps nothing, so the next visit asks again.

import { h } from "./dom.js";

export const NAME_KEY = "tandem.name";
/** The server cuts names longer than this (DisplayName.clean). */
export const NAME_MAX = 40;

export function keptName() {
  try {
    return localStorage.getItem(NAME_KEY) || "";
  } catch {
    return "";
  }
}

export function keepName(name) {
  try {
    if (name) localStorage.setItem(NAME_KEY, name);
    else localStorage.removeItem(NAME_KEY);
  } catch {
    // A browser that keeps nothing: asked again next time.
  }
}

/** The name to join with: the address's, the token's, the kept one, or (null) ask. */
export function knownName(params, claims) {
  const given = params.get("name");
  if (given) return given;
  if (typeof claims?.name === "string" && claims.name.trim()) return claims.name;
  return keptName() || null;
}

/**
 * Shows the dialog; resolves with the name typed ("" for Guest). With
 * `rename` (a person changing their name) it starts from `current`, and
 * Cancel or Escape resolve null: nothing changes.
 */
export function askName(roomTitle = "", { current = "", rename = false } = {}) {
  return new Promise((resolve) => {
    const input = h("input", { id: "name-input", name: "name", autocomplete: "nickname", maxlength: String(NAME_MAX),
      required: true, spellcheck: "false", placeholder: "Ann" });
    input.value = current;
    const form = h("form", { method: "dialog", class: "name-form" },
      h("h2", { id: "name-title" }, rename ? "Change your name" : "What should others call you?"),
      h("p", { class: "hint" }, `Your name shows beside your changes${roomTitle ? ` in ${roomTitle}` : ""}. This browser keeps it for next time.`),
      h("label", { for: "name-input", class: "name-label" }, "Your name"),
      input,
      h("div", { class: "dialog-actions" },
        h("button", { type: "button", class: "button-quiet", "data-choice": "guest" }, rename ? "Cancel" : "Join as Guest"),
        h("button", { type: "submit", class: "button-primary", "data-choice": "join" }, rename ? "Save" : "Join")));
    const dialog = h("dialog", { class: "name-dialog sheet", "aria-labelledby": "name-title" }, form);
    let answered = false;
    const finish = (name) => {
      if (answered) return;
      answered = true;
      if (name != null) keepName(name);
      dialog.close();
      dialog.remove();
      resolve(name);
    };
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const name = input.value.trim().slice(0, NAME_MAX);
      if (!name) {
        input.setAttribute("aria-invalid", "true");
        input.focus();
        return;
      }
      finish(name);
    });
    const skip = rename ? null : "";
    form.querySelector('[data-choice="guest"]').addEventListener("click", () => finish(skip));
    // Escape is "not now": join as Guest rather than leave the page waiting (or, renaming, keep the name).
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault();
      finish(skip);
    });
    document.body.append(dialog);
    dialog.showModal();
    input.focus();
    input.select();
  });
}
