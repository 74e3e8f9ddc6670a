// The presence list: each person's colour and name, me marked "you",
// people who just left dimmed "away" until the model drops them. It never
// takes more than one line of the header: the people who fit are shown
// (me always among them), and a "+N" chip counts the rest — those that do
// not fit and those the server does not list (past its presence limit). The
// chip opens the full list. Someone who claims controls has a small lock
// with what they claim ("🔒 Cutoff") after their name.

import { claimsText } from "./claims.js";
import { h, setText, svg } from "./dom.js";
import { lockIcon } from "./controls/card.js";

/**
 * Which of the people fit on one line: indices into `widths` (pixel widths of
 * their entries, in list order), in order. All fit when their widths and the
 * gaps between them fit `available` and nobody is unlisted; otherwise the chip
 * (`chip` wide, after a gap) takes its place at the end and as many as fit
 * beside it are shown, `mustShow` (my own entry, or -1) first of all and
 * always (the page lets that entry shrink to fit).
 */
export function fitOnOneLine(widths, available, { gap = 0, chip = 0, unlisted = 0, mustShow = -1 } = {}) {
  const all = widths.map((_, i) => i);
  const total = widths.reduce((sum, w) => sum + w, 0) + gap * Math.max(0, widths.length - 1);
  if (unlisted === 0 && total <= available) return all;
  let room = available - chip;
  const shown = new Set();
  const take = (i) => {
    const need = widths[i] + gap;
    if (need > room) return false;
    room -= need;
    shown.add(i);
    return true;
  };
  // My own entry shows even when it alone is too wide (it shrinks, its name cut short).
  if (mustShow >= 0 && mustShow < widths.length) {
    room -= widths[mustShow] + gap;
    shown.add(mustShow);
  }
  for (const i of all) {
    if (i === mustShow) continue;
    if (!take(i)) break;
  }
  return all.filter((i) => shown.has(i));
}

/** People the server counts as present but does not list (a room past its
 * presence limit), me included when I joined quietly myself. */
export function unlistedCount(peers, present) {
  if (typeof present !== "number") return 0;
  const listed = peers.filter((p) => !p.away).length;
  return Math.max(0, present - listed);
}

/** "1 person", "N people". */
function people(n) {
  return `${n} ${n === 1 ? "person" : "people"}`;
}

/** One person's entry (in the header and in the full list). */
function peerItem(p) {
  return h("li", { "data-client": p.client },
    h("span", { class: "peer-dot", "aria-hidden": "true" }),
    h("span", { class: "peer-name" }),
    h("span", { class: "peer-claim", hidden: true }, lockIcon(), h("span", { class: "sr-only" }, "claims "), h("span", { class: "peer-claim-text" })),
    h("span", { class: "peer-tag" }));
}

/** What the pencil on my own entry does (app.js: ask for a new name and reconnect with it). */
let rename = null;
export function setRenameHandler(fn) {
  rename = fn;
}

/** The pencil on my own entry in the header, to change my name. */
function renameButton() {
  const button = h("button", { type: "button", class: "peer-rename", "aria-label": "Change your name", title: "Change your name" },
    svg("svg", { viewBox: "0 0 16 16", width: "12", height: "12", "aria-hidden": "true" },
      svg("path", { d: "M11 2.5l2.5 2.5L6 12.5H3.5V10z" })));
  button.addEventListener("click", () => rename?.());
  return button;
}

function drawPeer(li, p, header = false) {
  const pencil = li.querySelector(".peer-rename");
  if (header && p.me && rename && !pencil) li.append(renameButton());
  else if (pencil && !(header && p.me)) pencil.remove();
  li.style.setProperty("--peer", p.color);
  li.classList.toggle("me", p.me);
  li.classList.toggle("away", p.away);
  setText(li.querySelector(".peer-name"), p.name);
  setText(li.querySelector(".peer-tag"), p.me ? "you" : p.away ? "away" : "");
  const claimed = p.claims ?? [];
  const claim = li.querySelector(".peer-claim");
  claim.hidden = claimed.length === 0;
  setText(claim.querySelector(".peer-claim-text"), claimsText(claimed));
  const claims = claimed.length ? `, claims ${claimed.join(", ")}` : "";
  li.title = (p.me ? `${p.name} (you)` : p.away ? `${p.name} left a moment ago` : p.name) + claims;
}

/** The dialog with everyone, opened by the chip. */
let dialog = null;
let lastDrawn = { peers: [], unlisted: 0, meUnlisted: false, present: null };
/** What the header line was last fitted for: nothing to do while it stays the same (every frame of a drag renders). */
let fittedFor = "";

function fullList() {
  if (dialog) return dialog;
  const list = h("ul", { class: "people-list", "aria-labelledby": "people-title" });
  dialog = h("dialog", { class: "people-dialog sheet", "aria-labelledby": "people-title" },
    h("div", { class: "sheet-head" },
      h("h2", { id: "people-title" }, "People here"),
      h("button", { type: "button", class: "sheet-close", "aria-label": "Close", onclick: () => dialog.close() }, "×")),
    list,
    h("p", { class: "people-unlisted" }));
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close(); // a click on the backdrop
  });
  document.body.append(dialog);
  return dialog;
}

function drawFullList() {
  if (!dialog) return;
  const { peers, unlisted, meUnlisted } = lastDrawn;
  const list = dialog.querySelector(".people-list");
  list.replaceChildren(...peers.map((p) => {
    const li = peerItem(p);
    drawPeer(li, p);
    return li;
  }));
  const here = peers.filter((p) => !p.away).length + unlisted;
  setText(dialog.querySelector("#people-title"), `${people(here)} here`);
  setText(dialog.querySelector(".people-unlisted"), unlisted > 0
    ? `and ${people(unlisted)} more${meUnlisted ? ", you among them" : ""}: this room lists only the first who came`
    : "");
}

function openFullList(chip) {
  const d = fullList();
  drawFullList();
  d.addEventListener("close", () => chip.focus(), { once: true });
  d.showModal();
}

/** Watches the list's width: a resized window or header re-fits the line. */
const observed = new WeakSet();
function watch(list, redraw) {
  if (observed.has(list) || typeof ResizeObserver !== "function") return;
  observed.add(list);
  let width = list.clientWidth;
  new ResizeObserver(() => {
    if (list.clientWidth === width) return;
    width = list.clientWidth;
    redraw();
  }).observe(list);
}

export function renderPresence(list, peers, present = null) {
  const key = JSON.stringify([list.clientWidth, present, peers.map((p) => [p.client, p.name, p.color, p.away, p.me, p.claims ?? []])]);
  if (key === fittedFor && list.isConnected) return;
  fittedFor = key;
  const items = new Map([...list.children].filter((li) => li.dataset.client).map((li) => [li.dataset.client, li]));
  let more = list.querySelector("li.peer-more");
  if (!more) {
    const chip = h("button", { type: "button", class: "peer-chip", "aria-haspopup": "dialog" });
    chip.addEventListener("click", () => openFullList(chip));
    more = h("li", { class: "peer-more" }, chip);
  }
  let previous = null;
  for (const p of peers) {
    let li = items.get(p.client);
    if (!li) li = peerItem(p);
    items.delete(p.client);
    drawPeer(li, p, true);
    li.hidden = false;
    const expected = previous ? previous.nextSibling : list.firstChild;
    if (expected !== li) list.insertBefore(li, expected);
    previous = li;
  }
  for (const li of items.values()) li.remove();
  const listed = peers.filter((p) => !p.away).length;
  const unlisted = unlistedCount(peers, present);
  const meUnlisted = unlisted > 0 && !peers.some((p) => p.me);
  lastDrawn = { peers, unlisted, meUnlisted, present };
  const here = listed + unlisted;
  list.setAttribute("aria-label", `${people(here)} here`);

  // Fit one line: measure every entry shown, then hide those past the chip.
  const entries = [...list.querySelectorAll("li[data-client]")];
  list.appendChild(more);
  more.hidden = false;
  const chip = more.firstChild;
  setText(chip, `+${entries.length + unlisted}`);
  const chipWidth = more.offsetWidth;
  const style = getComputedStyle(list);
  const gap = parseFloat(style.columnGap) || 0;
  const shown = new Set(fitOnOneLine(entries.map((li) => li.offsetWidth), list.clientWidth, {
    gap, chip: chipWidth + gap, unlisted, mustShow: entries.findIndex((li) => li.classList.contains("me")),
  }));
  entries.forEach((li, i) => { li.hidden = !shown.has(i); });
  const hidden = entries.length - shown.size + unlisted;
  more.hidden = hidden === 0;
  setText(chip, `+${hidden}`);
  const morePeople = `${hidden} more ${hidden === 1 ? "person" : "people"}`;
  chip.setAttribute("aria-label", `${morePeople} here: show everyone`);
  more.title = `${morePeople} here${meUnlisted ? ", you among them" : ""}`;
  if (dialog?.open) drawFullList();
  watch(list, () => renderPresence(list, lastDrawn.peers, lastDrawn.present));
}
