// The lobby's "New room" form, the pure part: what is posted to
// POST /api/rooms, and which field a refusal belongs next to.

/** The controls a new room starts with in the form: one of each everyday kind. */
export const STARTER_CONTROLS = [
  { id: "level", type: "slider", label: "Level", min: 0, max: 1 },
  { id: "mode", type: "snap", label: "Mode", values: [1, 2, 3] },
  { id: "tint", type: "color", label: "Tint" },
];

/**
 * The room to post from the form's three fields. `controlsText` is JSON: a
 * list of controls, or a whole room file ({"id", "title", "controls"}), whose
 * id and title are used where the form's fields are blank (the fields win).
 * @returns {{room: object} | {field: string, message: string}}
 */
export function roomFromForm(id, title, controlsText) {
  let parsed;
  const text = controlsText.trim();
  if (text === "") {
    parsed = [];
  } else {
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return { field: "controls", message: `Not valid JSON: ${error.message}` };
    }
  }
  let room;
  if (Array.isArray(parsed)) {
    room = { controls: parsed };
  } else if (parsed && typeof parsed === "object" && Array.isArray(parsed.controls)) {
    room = { ...parsed };
  } else {
    return { field: "controls", message: "Expected a list of controls [ … ] or a room file { \"id\", \"controls\": [ … ] }" };
  }
  const cleanId = id.trim();
  const cleanTitle = title.trim();
  if (cleanId) room.id = cleanId;
  if (cleanTitle) room.title = cleanTitle;
  if (!room.id) return { field: "id", message: "Give the room an id" };
  return { room };
}

/**
 * Where a refusal of POST /api/rooms goes: `{"code":"bad_schema","control",
 * "field","message"}` lands next to the room's id or title, or under the
 * controls (naming the control); anything else is the form's own error.
 * @returns {{field: "id"|"title"|"controls"|"form", message: string}}
 */
export function placeError(status, body) {
  const message = typeof body?.message === "string" && body.message ? body.message : `The server answered ${status}`;
  if (body?.code !== "bad_schema") return { field: "form", message };
  if (body.control == null && (body.field === "id" || body.field === "title")) return { field: body.field, message };
  return { field: "controls", message };
}

/** "1 person", "3 people", "empty". */
export function peopleText(n) {
  if (!Number.isFinite(n) || n <= 0) return "empty";
  return n === 1 ? "1 person" : `${n} people`;
}

/** The room page's address for a room, carrying the lobby's `?name=` along when it had one. */
export function roomHref(id, name = "") {
  const query = new URLSearchParams({ room: id });
  if (name) query.set("name", name);
  return `/?${query}`;
}
