// The embedded elements' pure part (web/embed.js, docs/embedding.md): which
// server an element talks to, which elements share a connection, a control's
// value as the `tandem-change` event carries it, and the words for a refused
// or unreachable connection. No DOM, no socket.

/**
 * The origin of the Tandem server an element talks to: its `server` attribute
 * ("https://host:port"; a path after it is ignored, as the page's own
 * addresses are absolute), resolved against `base`; without one, `fallback`
 * (the origin the module was loaded from). Null when the attribute is not an
 * http(s) address.
 */
export function serverOrigin(attr, fallback, base = fallback) {
  const text = typeof attr === "string" ? attr.trim() : "";
  if (!text) return new URL(fallback).origin;
  let url;
  try {
    url = new URL(text, base);
  } catch {
    return null;
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url.origin : null;
}

/** Elements with the same server, room, token and name share one connection: its key. */
export function sessionKey({ server, room, token = null, name = "" }) {
  return JSON.stringify([server, room, token ?? "", name ?? ""]);
}

/**
 * A control's value as a host page wants it: a slider's, snap's or gauge's
 * number, a toggle's boolean, a colour's "#RRGGBB", an xy pad's {x, y}, a
 * range's {lower, upper}, a button's press count. Null without a state.
 */
export function controlValue(schema, state) {
  if (state == null) return null;
  switch (schema?.type) {
    case "toggle": return state.on === true;
    case "color": return typeof state.hex === "string" ? state.hex : null;
    case "xy": return { x: state.x, y: state.y };
    case "range": return { lower: state.lower, upper: state.upper };
    case "button": return Number.isInteger(state.presses) ? state.presses : 0;
    default: return state.value ?? null;
  }
}

/**
 * What an element says when the server closed its connection for good
 * (auth.js closeNotice's `kind`): the words are for the person at the host
 * page and for its developer, who chose the attributes. {title, detail, status}.
 */
export function refusalWords(kind, { room, control = null, server = "" } = {}) {
  switch (kind) {
    case "unknown_room":
      return { title: `There is no room '${room}'`, detail: `The Tandem server ${server} has no room with that id (the element's room attribute).`, status: `no room '${room}'` };
    case "unknown_control":
      return { title: `There is no control '${control}'`, detail: `Room '${room}' has no control with that id (the element's control attribute).`, status: "live" };
    case "wrong_room":
      return { title: `Refused: the token does not cover room '${room}'`, detail: "It was made for another room: give the element a token for this one.", status: "no access to this room" };
    case "missing":
      return { title: "Refused: this room needs a token", detail: "The Tandem server requires a token: give the element one (token=\"…\").", status: "token needed" };
    case "expired":
      return { title: "Refused: the token has expired", detail: "Give the element a fresh token (its token attribute), then it connects again.", status: "token expired" };
    case "not_yet":
      return { title: "Refused: the token is not valid yet", detail: "It starts working later. If that seems wrong, check this device's clock.", status: "token not valid yet" };
    case "invalid":
      return { title: "Refused: the token is not valid for this server", detail: "It may be for another server, cut short when it was copied, or signed with another key.", status: "token not valid" };
    case "unauthorized":
      return { title: "Refused: the token was not accepted", detail: "Give the element another token.", status: "not authorized" };
    default:
      return { title: "Disconnected", detail: "The connection to the room was closed.", status: "disconnected" };
  }
}

/**
 * The hint for a connection that never opened after a few attempts: the
 * usual causes are a server that is not running and one that refuses the
 * host page's origin (--allow-origin). Null while there is nothing to say
 * (the status beside it keeps counting down to the next attempt).
 */
export function unreachableHint({ everOpen, attempt, state }, server, pageOrigin) {
  if (everOpen || state !== "reconnecting" || attempt < 2) return null;
  const foreign = pageOrigin && pageOrigin !== server;
  return foreign
    ? `Cannot connect to ${server}. Is Tandem running there, and started with --allow-origin ${pageOrigin}? Retrying…`
    : `Cannot connect to ${server}. Is Tandem running there? Retrying…`;
}
