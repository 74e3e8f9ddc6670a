// Wires the page together: reads ?room= and ?name=, connects, feeds frames
// to the RoomModel and redraws (batched per animation frame) on every change.

import { Actions } from "./actions.js";
import { Connection, roomURL } from "./connection.js";
import { h } from "./dom.js";
import { RoomModel } from "./protocol.js";
import { renderPresence } from "./presence.js";
import { historyShortcut } from "./shortcuts.js";
import { renderStatus } from "./status.js";
import { createColor } from "./controls/color.js";
import { abortDrags, refreshDrags } from "./controls/drag.js";
import { createGauge } from "./controls/gauge.js";
import { createRange } from "./controls/range.js";
import { createSlider } from "./controls/slider.js";
import { createSnap } from "./controls/snap.js";

const VIEWS = {
  slider: createSlider,
  snap: createSnap,
  range: createRange,
  color: createColor,
  gauge: createGauge,
};

const params = new URLSearchParams(location.search);
const room = params.get("room") || "demo";
const name = params.get("name") || "";

const model = new RoomModel();
const els = {
  main: document.getElementById("controls"),
  title: document.getElementById("room-title"),
  roomId: document.getElementById("room-id"),
  connection: document.getElementById("connection"),
  presence: document.getElementById("presence"),
  history: [...document.querySelectorAll("button[data-action]")],
};
els.roomId.textContent = room;

/** id -> view ({section, card, update(state, ghosts)}) */
let views = new Map();
/** The schema the views were built from, to rebuild only when it changes. */
let builtFrom = "";

let frame = 0;
function scheduleRender() {
  if (!frame) frame = requestAnimationFrame(render);
}

const connection = new Connection(roomURL(location, room, name), {
  onMessage: handleMessage,
  onState: () => {
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

// Undo and redo: the header buttons and Ctrl/Cmd+Z, Ctrl/Cmd+Shift+Z, Ctrl+Y.
// seq -> "undo" | "redo", until acked, so a refusal can be explained.
const historySent = new Map();
const historyStatus = document.querySelector(".history-status");
let historyStatusTimer = 0;
function sendHistory(kind) {
  const seq = actions.history(kind);
  if (seq != null) historySent.set(seq, kind);
}
function showHistoryStatus(text) {
  if (!historyStatus) return;
  historyStatus.textContent = text;
  clearTimeout(historyStatusTimer);
  historyStatusTimer = setTimeout(() => { historyStatus.textContent = ""; }, 3000);
}
for (const button of els.history) {
  button.addEventListener("click", () => sendHistory(button.dataset.action));
}
window.addEventListener("keydown", (event) => {
  const kind = historyShortcut(event);
  if (!kind) return;
  event.preventDefault();
  if (!event.repeat) sendHistory(kind);
});

function handleMessage(msg) {
  const now = Date.now();
  switch (msg.type) {
    case "welcome":
      abortDrags();
      model.applyWelcome(msg, now);
      buildViews();
      break;
    case "update":
      model.applyUpdate(msg, now);
      for (const seq of historySent.keys()) if (seq <= model.ack) historySent.delete(seq);
      break;
    case "reject": {
      const r = model.applyReject(msg);
      const refused = historySent.get(msg.seq);
      if (refused) {
        historySent.delete(msg.seq);
        const why = msg.code === "busy" ? `held by ${r.holderName ?? "someone else"}` : (msg.message || msg.code);
        showHistoryStatus(`${refused === "undo" ? "Undo" : "Redo"}: ${why}`);
      }
      if (r.controlId != null) {
        if (r.endsGesture) abortDrags(r.controlId);
        const view = views.get(r.controlId);
        if (view && r.code === "busy") view.card.notice(`held by ${r.holderName ?? "someone else"}`);
        else if (view && r.code !== "no_gesture") view.card.notice(r.message || r.code);
      }
      if (r.code !== "busy" && r.code !== "no_gesture") console.warn("tandem: rejected", msg);
      break;
    }
    default:
      break;
  }
  scheduleExpiry();
  scheduleRender();
}

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
    views.set(id, view);
    sections.push(view.section);
  }
  if (sections.length === 0) {
    sections.push(h("p", { class: "empty" }, "This room has no controls yet."));
  }
  els.main.replaceChildren(...sections);
  els.main.removeAttribute("aria-busy");
}

function renderClosed() {
  if (els.main.querySelector(".notice-card")) return;
  const unknown = connection.reason === "unknown room";
  els.main.replaceChildren(h("section", { class: "notice-card" },
    h("h2", {}, unknown ? `There is no room '${room}'` : "Disconnected"),
    h("p", {}, unknown
      ? "Check the link you were given, or open the demo room."
      : "The connection was closed."),
    h("a", { class: "button-link", href: `?room=demo${name ? `&name=${encodeURIComponent(name)}` : ""}` }, "Open the demo room")));
  els.main.removeAttribute("aria-busy");
  views = new Map();
  builtFrom = "";
}

function render() {
  frame = 0;
  const now = Date.now();
  renderStatus(els.connection, connection, room, now);
  document.body.classList.toggle("stale", connection.everOpen && connection.state !== "open");
  if (connection.state === "closed") renderClosed();
  if (model.title) {
    els.title.textContent = model.title;
    document.title = `${model.title} · Tandem`;
  }
  refreshDrags();
  for (const [id, view] of views) {
    const state = model.shown(id);
    if (state) view.update(state, model.ghostsOf(id));
  }
  renderPresence(els.presence, model.peerList(), model.present);
  for (const button of els.history) button.disabled = !actions.canAct;
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

window.tandem = Object.freeze({ model, connection });
connection.start();
scheduleRender();
