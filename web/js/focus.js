// Where each person is: the page tells the server which control has the
// keyboard focus here (a `focus` message, at most one every 150 ms, only when
// it changed), and each card names the others who are on it ("Ann is here"),
// as a design tool shows others' cursors. docs/protocol.md, "Focus".

import { h, setText } from "./dom.js";

const SETTLE_MS = 150;

/** The control id a focused element belongs to, or null. Pure over the DOM it is given. */
export function controlOf(element) {
  const section = element?.closest?.("section.control[data-control]");
  return section ? section.dataset.control : null;
}

/**
 * What the cards should say: control id → the names of the other people
 * focused on it (in the list's order), for the peers of `peerList()`.
 */
export function focusedBy(peers) {
  const out = new Map();
  for (const p of peers) {
    if (p.me || p.away || typeof p.focus !== "string") continue;
    if (!out.has(p.focus)) out.set(p.focus, []);
    out.get(p.focus).push({ name: p.name, color: p.color });
  }
  return out;
}

/** "Ann is here", "Ann and Ben are here", "Ann, Ben and 2 more are here". */
export function hereText(people) {
  const names = people.map((p) => p.name);
  if (names.length === 0) return "";
  if (names.length === 1) return `${names[0]} is here`;
  if (names.length === 2) return `${names[0]} and ${names[1]} are here`;
  return `${names[0]}, ${names[1]} and ${names.length - 2} more are here`;
}

/**
 * Sends this page's focus as it moves. `send(control)` sends a `focus`
 * message (control null: none) and returns whether it went out.
 */
export function setupFocus({ send, doc = document, settle = SETTLE_MS }) {
  let wanted = null;
  let sent;
  let timer = 0;
  const flush = () => {
    timer = 0;
    if (wanted === sent) return;
    if (send(wanted)) sent = wanted;
  };
  const want = (control) => {
    wanted = control;
    clearTimeout(timer);
    timer = setTimeout(flush, settle);
  };
  doc.addEventListener("focusin", (event) => want(controlOf(event.target)));
  doc.addEventListener("focusout", (event) => {
    if (!controlOf(event.relatedTarget)) want(null);
  });
  return {
    /** A new connection knows nothing of this page's focus: say it again. */
    welcome() {
      sent = undefined;
      want(controlOf(doc.activeElement));
    },
  };
}

/** Each card's "Ann is here" line, from the model's peers. */
export function renderFocus(views, peers) {
  const here = focusedBy(peers);
  for (const [id, view] of views) {
    const head = view.card?.section?.querySelector(".control-head");
    if (!head) continue;
    let chip = head.querySelector(".control-here");
    const people = here.get(id) ?? [];
    if (people.length === 0) {
      if (chip) chip.hidden = true;
      continue;
    }
    if (!chip) {
      chip = h("span", { class: "control-here" }, h("span", { class: "here-dot", "aria-hidden": "true" }), h("span", { class: "here-text" }));
      head.append(chip);
    }
    chip.hidden = false;
    chip.querySelector(".here-dot").style.background = people[0].color;
    setText(chip.querySelector(".here-text"), hereText(people));
  }
}
