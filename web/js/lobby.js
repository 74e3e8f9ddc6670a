// The lobby, served for "/" without ?room=: the rooms with how many people
// are in each (GET /api/rooms, every few seconds), and for those allowed to
// create rooms (the answer's "admin": auth off and this machine, or an admin
// token) a "New room" form that posts to POST /api/rooms.

import { TOKEN_KEY, splitToken } from "./auth.js";
import { h, setText } from "./dom.js";
import { keepFocusClear } from "./keepclear.js";
import { STARTER_CONTROLS, peopleText, placeError, roomFromForm, roomHref } from "./lobby-form.js";

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
  done: document.getElementById("new-room-done"),
};
const inputs = { id: els.id, title: els.title, controls: els.controls };
const errors = Object.fromEntries([...document.querySelectorAll(".field-error")].map((p) => [p.dataset.field ?? "form", p]));
errors.form = document.getElementById("new-room-error");
els.controls.value = JSON.stringify(STARTER_CONTROLS, null, 2);

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

function showError(field, message) {
  const p = errors[field];
  setText(p, message);
  const input = inputs[field];
  if (input) {
    input.setAttribute("aria-invalid", "true");
    input.focus();
  }
}

function clearErrors() {
  for (const p of Object.values(errors)) setText(p, "");
  for (const input of Object.values(inputs)) input.removeAttribute("aria-invalid");
}
for (const [field, input] of Object.entries(inputs)) {
  input.addEventListener("input", () => {
    if (input.getAttribute("aria-invalid") !== "true") return;
    input.removeAttribute("aria-invalid");
    setText(errors[field], "");
  });
}

els.form.addEventListener("submit", async (event) => {
  event.preventDefault();
  clearErrors();
  setText(els.done, "");
  const made = roomFromForm(els.id.value, els.title.value, els.controls.value);
  if (!made.room) return showError(made.field, made.message);
  if (known.has(made.room.id)) {
    return showError("id", `There is already a room '${made.room.id}': choose another id (replacing a room's controls is done through the API, it reconnects everyone in it).`);
  }
  const button = els.form.querySelector("button[type=submit]");
  button.disabled = true;
  try {
    const response = await fetch("/api/rooms", {
      method: "POST",
      headers: { "Content-Type": "application/json", ...auth },
      body: JSON.stringify(made.room),
    });
    const body = await response.json().catch(() => null);
    if (response.status === 201 || response.status === 200) {
      const link = h("a", { href: roomHref(made.room.id, name) }, `Open ${body?.title || made.room.id}`);
      els.done.replaceChildren(`Room '${made.room.id}' created. `, link);
      els.id.value = "";
      els.title.value = "";
      refresh();
    } else {
      const placed = placeError(response.status, body);
      showError(placed.field, placed.message);
    }
  } catch {
    showError("form", "The server cannot be reached: nothing was created.");
  } finally {
    button.disabled = false;
  }
});

keepFocusClear();
refresh();
