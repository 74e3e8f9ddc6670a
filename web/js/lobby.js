// The lobby, served for "/" without ?room=: the rooms with how many people
// are in each (GET /api/rooms, every few seconds), and for those allowed to
// create rooms (the answer's "admin": auth off and this machine, or an admin
// token) a "New room" form that posts to POST /api/rooms: the room's id, title
// and layout, and its controls in a form of their own (room-editor.js: each
// control's kind and fields, with a live preview) or as JSON.

import { TOKEN_KEY, splitToken } from "./auth.js";
import { h, setText } from "./dom.js";
import { keepFocusClear } from "./keepclear.js";
import {
  ID_PATTERN, ID_RULE, STARTER_CONTROLS, freshRoomId, parseControlsText, peopleText, placeError, roomFromForm, roomHref,
} from "./lobby-form.js";
import { ControlsEditor } from "./room-editor.js";

/** How often the list is fetched again while the page is visible. */
const REFRESH_MS = 3000;

const params = new URLSearchParams(location.search);
const name = params.get("name") || "";

/** The tab's token: `?token=` (then kept and taken out of the address, as the room page does), else the kept one. */
function pageToken() {
  const { token, cleanHref } = splitToken(location.href);
  try {
    if (token) {
      sessionStorage.setItem(TOKEN_KEY, token);
      history.replaceState(history.state, "", cleanHref);
      return token;
    }
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return token;
  }
}
const token = pageToken();
const auth = token ? { Authorization: `Bearer ${token}` } : {};

const els = {
  list: document.getElementById("rooms"),
  status: document.getElementById("rooms-status"),
  newRoom: document.getElementById("new-room"),
  form: document.getElementById("new-room-form"),
  id: document.getElementById("room-id-input"),
  title: document.getElementById("room-title-input"),
  controls: document.getElementById("room-controls-input"),
  formPart: document.getElementById("controls-form"),
  jsonPart: document.getElementById("controls-json"),
  modes: [...document.querySelectorAll(".mode-button")],
  done: document.getElementById("new-room-done"),
};
const layoutInputs = [...els.form.querySelectorAll('input[name="layout"]')];
const inputs = { id: els.id, title: els.title, controls: els.controls };
const errors = Object.fromEntries([...document.querySelectorAll(".field-error[data-field]")].map((p) => [p.dataset.field, p]));
errors.form = document.getElementById("new-room-error");

const editor = new ControlsEditor({
  list: document.getElementById("control-editors"),
  add: els.form.querySelector(".ce-add"),
  status: document.getElementById("controls-status"),
  changed: () => setText(errors["controls-form"], ""),
});
editor.set(STARTER_CONTROLS);
/** "form" or "json": how the controls are edited now. */
let mode = "form";

/** Room ids listed now, to warn before a POST would replace one. */
let known = new Set();
let timer = 0;

function roomItem(room) {
  const people = Number(room.people ?? room.clients ?? 0);
  return h("li", { class: "room-item", "data-room": room.id },
    h("a", { class: "room-link", href: roomHref(room.id, name) },
      h("span", { class: "room-name" }, room.title || room.id),
      h("span", { class: "room-code" }, room.id)),
    h("span", { class: `room-people${people > 0 ? " busy" : ""}`, "data-people": String(people),
      "aria-label": `${peopleText(people)} in ${room.title || room.id}` },
    h("span", { class: "people-dot", "aria-hidden": "true" }), peopleText(people)));
}

function render(answer) {
  const rooms = Array.isArray(answer.rooms) ? answer.rooms : [];
  known = new Set(rooms.map((r) => r.id));
  const items = new Map([...els.list.children].map((li) => [li.dataset.room, li]));
  const next = rooms.map((room) => {
    const fresh = roomItem(room);
    const old = items.get(room.id);
    // Keep an unchanged item (and the focus on its link) rather than rebuild it.
    return old && old.isEqualNode(fresh) ? old : fresh;
  });
  if (next.length !== els.list.children.length || next.some((li, i) => els.list.children[i] !== li)) {
    els.list.replaceChildren(...next);
  }
  els.list.removeAttribute("aria-busy");
  setText(els.status, rooms.length ? "" : "No rooms yet.");
  els.newRoom.hidden = answer.admin !== true;
  // The example id is one no room has.
  const example = freshRoomId(known);
  if (els.id.placeholder !== example) els.id.placeholder = example;
}

async function refresh() {
  clearTimeout(timer);
  try {
    const response = await fetch("/api/rooms", { headers: auth, cache: "no-store" });
    if (response.status === 401) {
      setText(els.status, "This server lists its rooms only to people with an invitation link: open yours.");
      els.list.replaceChildren();
      els.list.removeAttribute("aria-busy");
    } else if (!response.ok) {
      setText(els.status, `The rooms could not be listed (the server answered ${response.status}).`);
    } else {
      render(await response.json());
    }
  } catch {
    setText(els.status, "The server cannot be reached; trying again…");
  }
  if (!document.hidden) timer = setTimeout(refresh, REFRESH_MS);
}
document.addEventListener("visibilitychange", () => {
  if (!document.hidden) refresh();
});

/** An error next to a room field (id, title, layout, the JSON, the controls' list) or the form's own; returns what to focus. */
function showError(field, message) {
  setText(errors[field] ?? errors.form, message);
  const input = field === "layout" ? layoutInputs.find((i) => i.checked) : inputs[field];
  if (input) input.setAttribute("aria-invalid", "true");
  if (field === "controls-form") return els.form.querySelector(".ce-add");
  return input ?? null;
}

function clearErrors() {
  for (const p of Object.values(errors)) setText(p, "");
  for (const input of [...Object.values(inputs), ...layoutInputs]) input.removeAttribute("aria-invalid");
  editor.clearErrors();
}
for (const [field, input] of Object.entries(inputs)) {
  input.addEventListener("input", () => {
    if (input.getAttribute("aria-invalid") !== "true") return;
    input.removeAttribute("aria-invalid");
    setText(errors[field], "");
  });
}
for (const input of layoutInputs) {
  input.addEventListener("change", () => {
    for (const i of layoutInputs) i.removeAttribute("aria-invalid");
    setText(errors.layout, "");
  });
}

const layoutValue = () => layoutInputs.find((i) => i.checked)?.value ?? "";

/** The form's controls with their errors shown beside their fields; the first to focus, or null. */
function readEditor() {
  const { controls, errors: found } = editor.read();
  let first = null;
  for (const e of found) {
    const el = editor.showError(e.index, e.key, e.message);
    first ??= el;
  }
  return { controls, first, count: found.length };
}

function fieldsWord(n) {
  return n === 1 ? "1 field needs" : `${n} fields need`;
}

/** Form ⇄ JSON, carrying the edits across. */
function setMode(next) {
  if (next === mode) return;
  clearErrors();
  if (next === "json") {
    const { controls, first, count } = readEditor();
    if (count) {
      setText(errors.form, `${fieldsWord(count)} fixing before the controls can be shown as JSON.`);
      first?.focus();
      return;
    }
    els.controls.value = JSON.stringify(controls, null, 2);
  } else {
    const parsed = parseControlsText(els.controls.value);
    const refused = parsed.error ? { message: parsed.error } : editor.set(parsed.controls);
    if (refused) {
      showError("controls", refused.message);
      els.controls.focus();
      return;
    }
    // A whole room file pasted in: its id, title and layout where the form has none.
    const room = parsed.room ?? {};
    if (!els.id.value.trim() && typeof room.id === "string") els.id.value = room.id;
    if (!els.title.value.trim() && typeof room.title === "string") els.title.value = room.title;
    if (room.layout === "compact" || room.layout === "cards") {
      for (const i of layoutInputs) i.checked = i.value === (room.layout === "compact" ? "compact" : "");
    }
  }
  mode = next;
  els.formPart.hidden = mode !== "form";
  els.jsonPart.hidden = mode !== "json";
  for (const b of els.modes) b.setAttribute("aria-pressed", b.dataset.mode === mode ? "true" : "false");
}
for (const b of els.modes) b.addEventListener("click", () => setMode(b.dataset.mode));

/** The room to post from the form as it is now, or null once its errors are shown (focus on the first). */
function roomToPost() {
  if (mode === "json") {
    const made = roomFromForm(els.id.value, els.title.value, els.controls.value, layoutValue());
    if (!made.room) {
      showError(made.field, made.message)?.focus();
      return null;
    }
    return made.room;
  }
  let first = null;
  let count = 0;
  const id = els.id.value.trim();
  const idProblem = id === "" ? "Give the room an id" : ID_PATTERN.test(id) ? null : `A room id is ${ID_RULE}`;
  if (idProblem) {
    first = showError("id", idProblem);
    count += 1;
  }
  const read = readEditor();
  first ??= read.first;
  count += read.count;
  if (read.controls.length === 0) {
    first ??= showError("controls-form", "Add at least one control: a room without controls is refused");
    count += 1;
  }
  if (count) {
    setText(errors.form, `${fieldsWord(count)} fixing: see the messages beside them.`);
    first?.focus();
    return null;
  }
  const room = { id, ...(els.title.value.trim() ? { title: els.title.value.trim() } : {}), controls: read.controls };
  if (layoutValue()) room.layout = layoutValue();
  return room;
}

/** A refusal from the server, beside the field it names. */
function placeRefusal(status, body, room) {
  const placed = placeError(status, body, room.controls);
  if (placed.field === "controls" && placed.index != null && mode === "form") {
    editor.showError(placed.index, placed.key, placed.key ? placed.short : placed.message)?.focus();
    return;
  }
  const field = placed.field === "controls" && mode === "form" ? "controls-form" : placed.field;
  showError(field, placed.message)?.focus();
}

els.form.addEventListener("submit", async (event) => {
  event.preventDefault();
  clearErrors();
  setText(els.done, "");
  const room = roomToPost();
  if (!room) return;
  if (known.has(room.id)) {
    showError("id", `There is already a room '${room.id}': choose another id (replacing a room's controls is done through the API, it reconnects everyone in it).`)?.focus();
    return;
  }
  const button = els.form.querySelector("button[type=submit]");
  button.disabled = true;
  try {
    const response = await fetch("/api/rooms", {
      method: "POST",
      headers: { "Content-Type": "application/json", ...auth },
      body: JSON.stringify(room),
    });
    const body = await response.json().catch(() => null);
    if (response.status === 201 || response.status === 200) {
      const link = h("a", { href: roomHref(room.id, name) }, `Open ${body?.title || room.id}`);
      els.done.replaceChildren(`Room '${room.id}' created. `, link);
      els.id.value = "";
      els.title.value = "";
      refresh();
    } else {
      placeRefusal(response.status, body, room);
    }
  } catch {
    showError("form", "The server cannot be reached: nothing was created.");
  } finally {
    button.disabled = false;
  }
});

keepFocusClear();
refresh();
