// Wires the page together: reads ?room=, ?name=, ?token= and ?refresh=,
// connects, feeds frames to the RoomModel and redraws (batched per animation
// frame) on every change.

import { Access } from "./access.js";
import { Actions } from "./actions.js";
import { CLOSE_UNAUTHORIZED, TOKEN_KEY, closeNotice, expiryText, refreshURL, roleText, roomsOf, splitToken, tokenClaims } from "./auth.js";
import { CLAIM_DROPPED_TEXT, CLAIM_ENDED_TEXT, ClaimTracker, claimDoneText, claimRefusal, claimedText, claimsByPerson, endedClaims, holderName } from "./claims.js";
import { batchText, isOthersNote, undoTarget } from "./batchnotes.js";
import { copyText } from "./clipboard.js";
import { Connection, roomURL } from "./connection.js";
import { h, setAttr, setText, svg } from "./dom.js";
import { RoomModel } from "./protocol.js";
import { renderPresence, setRenameHandler } from "./presence.js";
import { PresetsPanel } from "./presets.js";
import { setupHistory } from "./history.js";
import { askName, knownName } from "./name.js";
import { createPlots } from "./plots.js";
import { renderFocus, setupFocus } from "./focus.js";
import { chooseLayout, collapsedGroups, storeCollapsed, storeLayout, storedLayout } from "./prefs.js";
import { ResetTracker, resetRefusal, roomValuesText } from "./resets.js";
import { setupRoomTools } from "./roomtools.js";
import { setupShare } from "./share.js";
import { keepFocusClear } from "./keepclear.js";
import { renderStatus } from "./status.js";
import { createTimeline } from "./timeline.js";
import { Toasts } from "./toasts.js";
import { abortDrags, refreshDrags } from "./controls/drag.js";
import { loadLastChanges, renderChanged, tickChanged } from "./controls/changed.js";
import { attachClaim } from "./controls/claim.js";
import { groupCards } from "./controls/groups.js";
import { attachTools } from "./controls/tools.js";
import { VIEWS } from "./controls/views.js";

const params = new URLSearchParams(location.search);
const room = params.get("room") || "demo";
// ?name=, else the token's or the kept one; else asked for before connecting (name.js).
let name = params.get("name") || "";

/** Keeps the token for this tab (a reload finds it there); false when the browser keeps nothing. */
function keepToken(token) {
  try {
    sessionStorage.setItem(TOKEN_KEY, token);
    return true;
  } catch {
    return false;
  }
}

/**
 * The page's token: `?token=` from the address, which is then kept by the tab
 * and taken out of the address bar (out of screenshots and copied addresses;
 * a reload still finds it); else the one this tab kept from an earlier load.
 * Where the browser keeps nothing, the token stays in the address so that a
 * reload works.
 */
function pageToken() {
  const { token, cleanHref } = splitToken(location.href);
  if (token) {
    if (keepToken(token)) history.replaceState(history.state, "", cleanHref);
    return token;
  }
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

const model = new RoomModel();
const els = {
  main: document.getElementById("controls"),
  title: document.getElementById("room-title"),
  roomId: document.getElementById("room-id"),
  connection: document.getElementById("connection"),
  presence: document.getElementById("presence"),
  history: [...document.querySelectorAll("button[data-action]")],
  role: document.getElementById("role"),
  accessNote: document.getElementById("access-note"),
  footnote: document.getElementById("footnote-text"),
};
const footnoteText = els.footnote?.textContent ?? "";
els.roomId.textContent = room;

/** The browser's localStorage, or null where it refuses (the layout and folded groups are then not kept). */
const storage = (() => {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
})();
/** The layout this person picked for this room (null: the room's default, from the welcome). */
let layoutPick = storedLayout(storage, room);
const isCompact = () => chooseLayout(layoutPick, model.layout) === "compact";
document.body.classList.toggle("layout-compact", isCompact());

/** id -> view ({section, card, update(state, ghosts)}) */
let views = new Map();
/** The schema the views were built from, to rebuild only when it changes. */
let builtFrom = "";

let frame = 0;
function scheduleRender() {
  if (!frame) frame = requestAnimationFrame(render);
}

const access = new Access({
  token: pageToken(),
  refreshURL: refreshURL(params.get("refresh"), location),
  fetch: (url, init) => fetch(url, init),
  store: keepToken,
  onChange: () => scheduleRender(),
});

// A refused token (4401) is renewed once through ?refresh= when the page has
// one (a laptop that slept past the expiry), then the connection starts again.
let recovery = "none"; // "none" | "running" | "tried"

const connection = new Connection(() => roomURL(location, room, name, access.connectToken()), {
  onMessage: handleMessage,
  onState: () => {
    if (connection.state === "closed" && connection.closeCode === CLOSE_UNAUTHORIZED && access.canRefresh && recovery === "none") {
      recovery = "running";
      access.refresh().then((ok) => {
        recovery = "tried";
        if (ok) connection.restart();
        else scheduleRender();
      });
    }
    if (connection.state !== "open") {
      abortDrags();
      // Others' drags cannot be followed while disconnected: drop their ghosts
      // rather than show a preview frozen mid-air; the next welcome brings live ones back.
      model.ghosts.clear();
      model.version += 1;
    }
    scheduleRender();
  },
});
const actions = new Actions(model, connection, scheduleRender);
const presets = new PresetsPanel({ model, connection, changed: scheduleRender, paused: () => timeline.viewing });
const timeline = createTimeline({ room, model, actions, connection, token: () => access.connectToken(), onChange: scheduleRender }, els.main);
// Sparklines in the gauges' cards and the expanded chart (plots.js, chart.js).
const plots = createPlots({ room, model, timeline, token: () => access.connectToken(), onChange: scheduleRender });
access.sendAuth = (token) => {
  if (!connection.isOpen) return null;
  const seq = model.nextSeq();
  return connection.send({ type: "auth", seq, token }) ? seq : null;
};

// Undo and redo: the header buttons, the shortcuts and the status line (history.js).
const undo = setupHistory({
  model, actions, buttons: els.history, status: document.querySelector(".history-status"),
  forbiddenText: "read only: your link does not allow changes",
});

// Reset to default (one control, or the whole room) and copying values.
const resets = new ResetTracker();
function resetControl(id) {
  const seq = actions.reset(id);
  if (seq != null) resets.sent(seq, id, model.client);
}
function resetRoom() {
  const seq = actions.reset(null);
  if (seq != null) resets.sent(seq, null, model.client);
}
function copyValue(view) {
  const text = view.valueText?.() ?? "";
  copyText(text).then((ok) => view.card.notice(ok ? `Copied: ${text}` : "Could not copy: select the value and press Ctrl+C", ok ? "ok" : "warn"));
}
function copyValues() {
  const n = model.controls.size;
  copyText(roomValuesText(model)).then((ok) => undo.say(ok ? `Copied the values of ${n === 1 ? "1 control" : `${n} controls`} as JSON` : "Could not copy the values"));
}
// Where each person is: this page's focus to the server, others' on the cards (focus.js).
const focus = setupFocus({ send: (control) => actions.focus(control) });
const toolsContext = {
  reset: resetControl, copy: copyValue, canAct: () => actions.canAct, readOnly: () => model.readOnly,
  locked: (id) => model.claimedByOther(id) != null,
};

// Claims ("only I move this until I let go", claims.js): the cards' menus send them, the answers are told on the card.
const claims = new ClaimTracker();
const claimContext = {
  model,
  pending: (id) => claims.isPending(id),
  canAct: () => actions.canAct,
  inputsLocked: () => model.readOnly || timeline.viewing,
  send(action, id, holder) {
    const seq = actions.claim(id, action);
    if (seq != null) claims.sent(seq, action, id, model.client, holder);
  },
};
/** Who claims each control now: id -> holder (null: nobody). */
const claimHolders = () => new Map([...model.controls].map(([id, c]) => [id, c.claim ?? null]));

/** The presence list's people, each with the labels of the controls they claim. */
function peopleWithClaims() {
  const byPerson = claimsByPerson(model.controls);
  return model.peerList().map((p) => ({ ...p, claims: byPerson.get(p.client) ?? [] }));
}

const toasts = new Toasts();

/** Someone else's recall, restore or reset moved the controls: say who and what, with "Undo" while it applies. */
function tellBatch(note) {
  const labelOf = (id) => model.schema(id)?.label || id;
  const text = batchText(note, labelOf, holderName(model, note.by) ?? "Someone", (rev) => timeline.momentText({ rev }));
  const target = () => undoTarget(note, { rev: model.rev, timeline: timeline.available === true, canWrite: actions.canAct });
  const toast = toasts.show(text, {
    label: "Undo",
    ariaLabel: "Undo: put back the moment before it",
    run: () => { const rev = target(); if (rev != null) timeline.restoreMoment({ rev }); },
  }, () => target() != null);
  toasts.refresh();
  return toast;
}

function handleMessage(msg) {
  const now = Date.now();
  timeline.message(msg);
  plots.message(msg, now);
  switch (msg.type) {
    case "welcome": {
      abortDrags();
      undo.welcome();
      const before = { me: model.client, held: claimHolders() };
      model.applyWelcome(msg, now);
      access.welcomed();
      recovery = "none";
      buildViews();
      focus.welcome();
      // A connection that closed ended its claims: say so where I had one.
      if (before.me != null) {
        for (const [id, holder] of before.held) if (holder === before.me) views.get(id)?.card.notice(CLAIM_DROPPED_TEXT);
      }
      loadLastChanges(model, room, access.connectToken(), scheduleRender);
      break;
    }
    case "update": {
      undo.update(msg);
      const heldBefore = claimHolders();
      model.applyUpdate(msg, now);
      if (isOthersNote(msg.batch, model.client)) tellBatch(msg.batch);
      else toasts.refresh(); // an "Undo" that no longer applies goes
      const answered = claims.acked(model.ack, model.client);
      for (const done of answered) {
        views.get(done.control)?.card.notice(claimDoneText(done, done.holder != null ? holderName(model, done.holder) : null), "ok");
      }
      // My claim ended without my release: an admin let it go, or it lapsed.
      const released = new Set(answered.filter((d) => d.action === "release").map((d) => d.control));
      for (const request of claims.pending.values()) if (request.action === "release") released.add(request.control);
      for (const id of endedClaims(heldBefore, claimHolders(), model.client, released)) views.get(id)?.card.notice(CLAIM_ENDED_TEXT);
      access.acked(model.ack);
      for (const done of resets.acked(model.ack, model.client)) {
        if (done.control == null) undo.say("Reset every control to its default");
        else views.get(done.control)?.card.notice("Reset to default", "ok");
      }
      break;
    }
    case "presets":
      presets.apply(msg);
      break;
    case "reject": {
      if (presets.rejected(msg)) break;
      const refusedClaim = claims.rejected(msg);
      if (refusedClaim) {
        views.get(refusedClaim.control)?.card.notice(claimRefusal(refusedClaim.action, msg, holderName(model, msg.holder)));
        if (msg.code === "forbidden") model.applyReject(msg); // the page turns read-only
        if (msg.code !== "busy" && msg.code !== "claimed") console.warn("tandem: claim refused", msg);
        break;
      }
      const refusedReset = resets.rejected(msg);
      if (refusedReset) {
        const text = resetRefusal(msg, holderName(model, msg.holder));
        if (refusedReset.control == null) undo.say(text);
        else views.get(refusedReset.control)?.card.notice(text);
        if (msg.code === "forbidden") model.applyReject(msg); // the page turns read-only
        console.warn("tandem: reset refused", msg);
        break;
      }
      if (access.rejected(msg)) {
        console.warn("tandem: a fresh token was refused", msg);
        break;
      }
      const r = model.applyReject(msg);
      undo.rejected(msg, r);
      if (r.controlId != null) {
        if (r.endsGesture) abortDrags(r.controlId, r.thumb);
        const view = views.get(r.controlId);
        if (view && r.code === "busy") view.card.notice(`held by ${r.holderName ?? "someone else"}`);
        else if (view && r.code === "claimed") view.card.notice(claimedText(holderName(model, r.holder)));
        else if (view && r.code === "forbidden") view.card.notice(FORBIDDEN_TEXT);
        else if (view && r.code !== "no_gesture") view.card.notice(r.message || r.code);
      }
      if (!["busy", "claimed", "no_gesture"].includes(r.code)) console.warn("tandem: rejected", msg);
      break;
    }
    default:
      break;
  }
  scheduleExpiry();
  scheduleRender();
}

/** What a `forbidden` reject (a viewer's write) is called on screen. */
const FORBIDDEN_TEXT = "read only: your link does not allow changes";

function buildViews() {
  const signature = JSON.stringify([...model.controls.values()].map((c) => c.schema));
  if (signature === builtFrom && views.size) return;
  builtFrom = signature;
  views = new Map();
  const sections = [];
  for (const [id, c] of model.controls) {
    const create = VIEWS[c.schema.type];
    if (!create) continue;
    const view = create(c.schema, { model, actions });
    view.tools = attachTools(view, c.schema, toolsContext);
    view.claim = attachClaim(view, c.schema, claimContext);
    views.set(id, view);
    sections.push(view.section);
  }
  if (sections.length === 0) {
    sections.push(h("p", { class: "empty" }, "This room has no controls yet."));
  }
  els.main.replaceChildren(...groupCards(sections, {
    collapsed: collapsedGroups(storage, room),
    onToggle: (group, folded) => storeCollapsed(storage, room, group, folded),
  }));
  els.main.removeAttribute("aria-busy");
  readOnlyShown = null;
}

/** An address of this page for another room (the tab's kept token goes along by itself). */
function roomLink(id) {
  const query = new URLSearchParams({ room: id });
  if (name) query.set("name", name);
  return `?${query}`;
}

/** The links a closed page offers: the demo room, the rooms the token does cover, or trying again. */
function noticeActions(notice) {
  switch (notice?.kind ?? "closed") {
    case "unknown_room":
    case "closed":
      return [h("a", { class: "button-link", href: roomLink("demo") }, "Open the demo room")];
    case "wrong_room": {
      const rooms = roomsOf(tokenClaims(access.connectToken()));
      if (!Array.isArray(rooms)) return [];
      return rooms.filter((r) => r !== room).slice(0, 4)
        .map((r) => h("a", { class: "button-link", href: roomLink(r) }, `Open room '${r}'`));
    }
    case "not_yet":
    case "unauthorized":
      return [h("button", { type: "button", class: "button-link", onclick: () => location.reload() }, "Try again")];
    default:
      return [];
  }
}

/** A padlock over the card of a refused link. */
function lockIcon() {
  return svg("svg", { class: "notice-icon", viewBox: "0 0 24 24", width: "28", height: "28", "aria-hidden": "true" },
    svg("rect", { x: "5", y: "10.5", width: "14", height: "10", rx: "2.5" }),
    svg("path", { d: "M8.5 10.5V7.5a3.5 3.5 0 0 1 7 0v3" }),
    svg("circle", { cx: "12", cy: "15.5", r: "1.4" }));
}

function renderClosed(notice) {
  const kind = notice?.kind ?? "closed";
  if (els.main.querySelector(`.notice-card[data-kind="${kind}"]`)) return;
  const actionsRow = noticeActions(notice);
  const locked = !["closed", "unknown_room"].includes(kind);
  els.main.replaceChildren(h("section", { class: "notice-card", "data-kind": kind, role: "alert" },
    locked ? lockIcon() : null,
    h("h2", {}, notice?.title ?? "Disconnected"),
    h("p", {}, notice?.detail ?? "The connection was closed."),
    actionsRow.length ? h("div", { class: "notice-actions" }, actionsRow) : null));
  els.main.removeAttribute("aria-busy");
  views = new Map();
  builtFrom = "";
}

/** The read-only state drawn on the controls (null: not drawn since they were built). */
let readOnlyShown = null;

/** A viewer's controls: thumbs aria-readonly, fields readonly (buttons are disabled by their views). */
function markReadOnly(readOnly) {
  if (readOnly === readOnlyShown) return;
  readOnlyShown = readOnly;
  document.body.classList.toggle("read-only", readOnly);
  for (const thumb of els.main.querySelectorAll('[role="slider"]')) {
    if (readOnly) thumb.setAttribute("aria-readonly", "true");
    else thumb.removeAttribute("aria-readonly");
  }
  for (const input of els.main.querySelectorAll("input")) input.readOnly = readOnly;
  if (els.footnote) {
    els.footnote.textContent = readOnly
      ? "You are watching this room: your link lets you see every change live, not make any."
      : footnoteText;
  }
}

function renderAccess(closed) {
  const role = roleText(model.role, access.hasToken);
  if (els.role) {
    els.role.hidden = role == null;
    setText(els.role, role ?? "");
    setAttr(els.role, "data-role", model.role ?? "");
    els.role.title = model.readOnly ? "Your link lets you watch this room, not change it" : `Your link makes you ${role ?? "a member"} of this room`;
  }
  if (els.accessNote) {
    const text = closed ? null : expiryText(access.warning);
    els.accessNote.hidden = text == null;
    setText(els.accessNote, text ?? "");
    setAttr(els.accessNote, "data-failed", access.warning?.failed ? "true" : "false");
  }
}

function render() {
  frame = 0;
  const now = Date.now();
  const closed = connection.state === "closed";
  const notice = !closed ? null
    : recovery === "running" ? { kind: "renewing", status: "renewing access…" }
      : closeNotice(connection.closeCode, connection.closeReason, { room, token: access.connectToken(), now });
  renderStatus(els.connection, connection, room, now, notice);
  document.body.classList.toggle("stale", connection.everOpen && connection.state !== "open");
  document.body.classList.toggle("closed", closed);
  if (closed && notice?.kind !== "renewing") {
    renderClosed(notice);
    access.stop();
  }
  renderAccess(closed);
  markReadOnly(model.readOnly);
  if (model.title) {
    els.title.textContent = model.title;
    document.title = `${model.title} · Tandem`;
  }
  document.body.classList.toggle("layout-compact", isCompact());
  roomTools.update();
  refreshDrags();
  timeline.render();
  plots.render(views, now);
  for (const [id, view] of views) {
    const state = timeline.shown(id) ?? model.shown(id); // a past moment this person is viewing
    if (state) view.update(state, timeline.viewing ? [] : model.ghostsOf(id));
  }
  renderChanged(views, model, now);
  for (const view of views.values()) {
    view.tools?.update();
    view.claim?.update();
  }
  renderPresence(els.presence, peopleWithClaims(), model.present);
  renderFocus(views, model.peerList());
  presets.render(closed);
  undo.render();
  if (connection.state === "reconnecting") tickCountdown();
}

// "reconnecting in N s" counts down once a second.
let countdown = 0;
function tickCountdown() {
  if (countdown) return;
  countdown = setTimeout(() => {
    countdown = 0;
    scheduleRender();
  }, 1000 - (Date.now() % 1000) + 5);
}

// People who left are dropped from the list when their grace period ends.
let expiry = 0;
function scheduleExpiry() {
  clearTimeout(expiry);
  const next = model.nextExpiry();
  if (next == null) return;
  expiry = setTimeout(() => {
    model.prune(Date.now());
    scheduleExpiry();
    scheduleRender();
  }, Math.max(0, next - Date.now()) + 10);
}

window.tandem = Object.freeze({ model, connection, access, timeline });
// A page left for another (the lobby, a link) may be kept by the browser's
// back/forward cache with its socket open, still counted in the room: close it.
window.addEventListener("pagehide", () => connection.stop());
window.addEventListener("pageshow", (event) => { if (event.persisted) connection.restart(); });
const share = setupShare({ room, token: () => access.connectToken(), anchor: els.presence });
const roomTools = setupRoomTools({
  anchor: share.button,
  model,
  isCompact,
  onLayout: () => {
    layoutPick = isCompact() ? "cards" : "compact";
    storeLayout(storage, room, layoutPick);
    scheduleRender();
  },
  copyValues,
  resetAll: resetRoom,
  canAct: () => actions.canAct,
});
// The pencil on my own name: a new name is kept and the page rejoins with it
// (a name is fixed for a connection; the address's ?name= is dropped so that a reload keeps the new one).
setRenameHandler(() => askName(model.title ?? room, { current: name, rename: true }).then((answer) => {
  if (answer == null || answer === name) return;
  name = answer;
  const url = new URL(location.href);
  url.searchParams.delete("name");
  history.replaceState(history.state, "", url.href);
  connection.socket?.close(1000);
}));

// The sticky header and the timeline's banner never cover the focus.
keepFocusClear(timeline.banner);
access.start();
tickChanged(scheduleRender);
scheduleRender();
const known = knownName(params, tokenClaims(access.connectToken()));
if (known != null) {
  name = known;
  connection.start();
} else {
  askName().then((answer) => {
    name = answer;
    connection.start();
  });
}
