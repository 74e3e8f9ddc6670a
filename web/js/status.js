// The connection indicator: #connection[data-state] and its words.

import { setAttr, setText } from "./dom.js";

/**
 * The words for a connection state. `notice` is what closed it for good
 * (auth.closeNotice: its `status` words), when known.
 */
export function connectionText(connection, room, now, notice = null) {
  switch (connection.state) {
    case "open":
      return "live";
    case "reconnecting": {
      if (connection.retryAt == null || connection.retryAt <= now) return "reconnecting…";
      return `reconnecting in ${Math.max(1, Math.ceil((connection.retryAt - now) / 1000))} s`;
    }
    case "closed":
      if (notice) return notice.status;
      return connection.reason === "unknown room" ? `no room '${room}'` : "disconnected";
    default:
      return "connecting…";
  }
}

export function renderStatus(el, connection, room, now, notice = null) {
  setAttr(el, "data-state", connection.state);
  setText(el.querySelector(".connection-text") ?? el, connectionText(connection, room, now, notice));
}
