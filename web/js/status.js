// The connection indicator: #connection[data-state] and its words.

import { setAttr, setText } from "./dom.js";

/** The words for a connection state. */
export function connectionText(connection, room, now) {
  switch (connection.state) {
    case "open":
      return "live";
    case "reconnecting": {
      if (connection.retryAt == null || connection.retryAt <= now) return "reconnecting…";
      return `reconnecting in ${Math.max(1, Math.ceil((connection.retryAt - now) / 1000))} s`;
    }
    case "closed":
      return connection.reason === "unknown room" ? `no room '${room}'` : "disconnected";
    default:
      return "connecting…";
  }
}

export function renderStatus(el, connection, room, now) {
  setAttr(el, "data-state", connection.state);
  setText(el.querySelector(".connection-text") ?? el, connectionText(connection, room, now));
}
