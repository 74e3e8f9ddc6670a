// What a person chose for a room, kept in their browser (localStorage): the
// layout (cards, or compact: one line per control) and which groups they
// collapsed. Per room: a room's file may ask for compact by default (the
// welcome's `"layout":"compact"`), and a person's own pick for a room wins
// over that default from then on. Storage is passed in (a browser that keeps
// nothing, or throws, just forgets); pure otherwise, tested under Node.

export const LAYOUTS = Object.freeze(["cards", "compact"]);

/** localStorage key of the layout picked for a room. */
export function layoutKey(room) {
  return `tandem.layout.${room}`;
}

/** localStorage key of the groups collapsed in a room. */
export function groupsKey(room) {
  return `tandem.collapsed.${room}`;
}

function read(storage, key) {
  try {
    return storage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

function write(storage, key, value) {
  try {
    if (value == null) storage?.removeItem(key);
    else storage?.setItem(key, value);
    return true;
  } catch {
    return false;
  }
}

/** The layout this person picked for the room, or null when they never did. */
export function storedLayout(storage, room) {
  const value = read(storage, layoutKey(room));
  return LAYOUTS.includes(value) ? value : null;
}

/** Remembers the person's pick for the room; false when the browser keeps nothing. */
export function storeLayout(storage, room, layout) {
  if (!LAYOUTS.includes(layout)) return false;
  return write(storage, layoutKey(room), layout);
}

/** The layout to draw: the person's pick, else the room's default (`welcome.layout`), else cards. */
export function chooseLayout(stored, roomDefault) {
  if (LAYOUTS.includes(stored)) return stored;
  return roomDefault === "compact" ? "compact" : "cards";
}

/** The names of the groups collapsed in the room. */
export function collapsedGroups(storage, room) {
  try {
    const list = JSON.parse(read(storage, groupsKey(room)) ?? "[]");
    return new Set(Array.isArray(list) ? list.filter((n) => typeof n === "string") : []);
  } catch {
    return new Set();
  }
}

/** Remembers whether a group is collapsed; returns the collapsed set now. */
export function storeCollapsed(storage, room, group, collapsed) {
  const set = collapsedGroups(storage, room);
  if (collapsed) set.add(group);
  else set.delete(group);
  write(storage, groupsKey(room), set.size ? JSON.stringify([...set].sort()) : null);
  return set;
}
