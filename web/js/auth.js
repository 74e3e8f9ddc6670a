// Invitation links in the browser: the token a page was opened with, what it
// says about itself (expiry, rooms), where the page may fetch a fresh one, and
// the words for a refused connection. Pure functions, no DOM or clock: Node
// tests drive them (web/test/auth.test.mjs).
//
// The client never checks a signature (it has no secret and needs none): it
// reads the token's payload only to plan a refresh and to explain refusals.
// The server decides.

/** The server's leeway on `exp` and `nbf`, in seconds (the contract's 30 s). */
export const LEEWAY_S = 30;
/** A fresh token is fetched this long before `exp`. */
export const REFRESH_BEFORE_MS = 60_000;
/** Without a way to refresh, the warning shows this long before `exp`. */
export const WARN_BEFORE_MS = 120_000;
/** A failed refresh is tried again after this long (while the token lasts). */
export const REFRESH_RETRY_MS = 15_000;
/** Where the tab keeps its token once it is out of the address bar (sessionStorage). */
export const TOKEN_KEY = "tandem.token";

/** The close codes after which reconnecting cannot help. */
export const CLOSE_UNAUTHORIZED = 4401;
export const CLOSE_FORBIDDEN = 4403;
export const CLOSE_UNKNOWN_ROOM = 4404;

/** Base64url (no padding needed) to a UTF-8 string; null when it is not base64url. */
export function base64urlDecode(text) {
  if (typeof text !== "string" || !/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  try {
    const binary = atob(b64);
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** A JWT's header and payload, or null when it is not three base64url parts with JSON objects. */
export function decodeToken(token) {
  if (typeof token !== "string") return null;
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  const json = (part) => {
    const text = base64urlDecode(part);
    if (text == null) return null;
    try {
      const value = JSON.parse(text);
      return value && typeof value === "object" && !Array.isArray(value) ? value : null;
    } catch {
      return null;
    }
  };
  const header = json(parts[0]);
  const payload = json(parts[1]);
  return header && payload ? { header, payload } : null;
}

/** The token's claims, or null. */
export function tokenClaims(token) {
  return decodeToken(token)?.payload ?? null;
}

/** When the token expires (epoch ms), or null when it does not say. */
export function expiresAt(token) {
  const exp = tokenClaims(token)?.exp;
  return typeof exp === "number" && Number.isFinite(exp) ? exp * 1000 : null;
}

/** True when the server would call the token expired at `now` (its leeway included). */
export function isExpired(token, now) {
  const exp = expiresAt(token);
  return exp != null && now > exp + LEEWAY_S * 1000;
}

/** The rooms a token names: "*", a list of ids, or null when it names none. */
export function roomsOf(claims) {
  const room = claims?.room;
  if (room === "*") return "*";
  if (typeof room === "string") return [room];
  if (Array.isArray(room)) return room.filter((r) => typeof r === "string");
  return null;
}

/**
 * The page's token and the same address without it: `?token=` is read once
 * and taken out of the address bar (history.replaceState), so that it does
 * not show in screenshots or travel with a copied address.
 * @returns {{token: string|null, cleanHref: string}}
 */
export function splitToken(href) {
  const url = new URL(href);
  const token = url.searchParams.get("token");
  if (token == null) return { token: null, cleanHref: href };
  url.searchParams.delete("token");
  return { token: token.trim() || null, cleanHref: url.href };
}

/** The WebSocket URL of a room on the page's own host, with the name and token when given. */
export function roomURL(location, room, name = "", token = null) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const query = [];
  if (name) query.push(`name=${encodeURIComponent(name)}`);
  if (token) query.push(`token=${encodeURIComponent(token)}`);
  return `${scheme}://${location.host}/rooms/${encodeURIComponent(room)}${query.length ? "?" + query.join("&") : ""}`;
}

/** An HTTP URL on the page's own origin (an API path, a CSV download) carrying the token when there is one. */
export function withToken(url, token) {
  if (!token) return url;
  return `${url}${url.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}`;
}

/**
 * The `?refresh=` address, resolved against the page, when it is on the page's
 * own origin (a fresh token is fetched from it with the browser's cookies:
 * another origin could hand this page someone else's token). Else null.
 */
export function refreshURL(param, location) {
  if (!param) return null;
  let url;
  try {
    url = new URL(param, location.href);
  } catch {
    return null;
  }
  return url.origin === location.origin ? url.href : null;
}

/** A fresh token out of the refresh endpoint's answer: the text itself, or `{"token": "…"}`. Null when neither. */
export function tokenFromAnswer(text) {
  let token = typeof text === "string" ? text.trim() : "";
  if (token.startsWith("{")) {
    try {
      token = String(JSON.parse(token).token ?? "").trim();
    } catch {
      return null;
    }
  }
  return decodeToken(token) ? token : null;
}

/**
 * When to act on a token expiring at `exp` (ms): fetch a fresh one at
 * `refreshAt` when the page can, else warn at `warnAt`. Nulls when the token
 * does not expire.
 */
export function expiryPlan(exp, now, canRefresh) {
  if (exp == null) return { refreshAt: null, warnAt: null };
  if (canRefresh) return { refreshAt: Math.max(now, exp - REFRESH_BEFORE_MS), warnAt: null };
  return { refreshAt: null, warnAt: Math.max(now, exp - WARN_BEFORE_MS) };
}

/** "HH:MM" in the page's local time. */
export function formatClock(ms) {
  const d = new Date(ms);
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}

/** The words of the expiry warning, or null when there is nothing to say. */
export function expiryText(warning) {
  if (!warning) return null;
  const at = formatClock(warning.endsAt);
  return warning.failed
    ? `Your access ends at ${at} and could not be renewed — ask for a new link before then.`
    : `Your access ends at ${at}.`;
}

/** The role badge's words: nothing without a token (auth off: everyone edits), else the role. */
export function roleText(role, hasToken) {
  if (!hasToken || !role) return null;
  switch (role) {
    case "viewer":
      return "viewer — read only";
    case "editor":
      return "editor";
    case "admin":
      return "admin";
    default:
      return role;
  }
}

/**
 * What to tell someone whose connection was closed for good: 4401 (token
 * refused; the server's close reason names the check), 4403 (not this room),
 * 4404 (no such room). Null for any other code.
 *
 * `kind` is stable (tests and CSS use it); `title` and `detail` are the card,
 * `status` the short words in the connection indicator.
 *
 * @param {number} code
 * @param {string} reason  the close frame's reason
 * @param {{room: string, token?: string|null, now?: number}} context
 */
export function closeNotice(code, reason, { room, token = null, now = Date.now() } = {}) {
  const why = String(reason ?? "").toLowerCase();
  if (code === CLOSE_UNKNOWN_ROOM) {
    return {
      kind: "unknown_room",
      title: `There is no room '${room}'`,
      detail: "Check the link you were given, or open the demo room.",
      status: `no room '${room}'`,
    };
  }
  if (code === CLOSE_FORBIDDEN) {
    return {
      kind: "wrong_room",
      title: `Your link does not give access to room '${room}'`,
      detail: "It was made for another room. Ask for a link to this one.",
      status: "no access to this room",
    };
  }
  if (code !== CLOSE_UNAUTHORIZED) return null;
  const missing = {
    kind: "missing",
    title: "This room needs an invitation link",
    detail: "Open the link you were given: it carries your access. If you have none, ask whoever runs this room.",
    status: "invitation needed",
  };
  const expired = {
    kind: "expired",
    title: "Your link has expired — ask for a new one",
    detail: "Invitation links work for a limited time. Whoever sent yours can make you a new one.",
    status: "link expired",
  };
  const invalid = {
    kind: "invalid",
    title: "This link is not valid for this server",
    detail: "It may be for another server, cut short when it was copied, or signed with a key this server no longer uses. Ask for a new one.",
    status: "link not valid",
  };
  if (!token) return missing;
  if (/expired/.test(why)) return expired;
  if (/not (yet )?valid yet|not yet valid|nbf|not before|in the future/.test(why)) {
    return {
      kind: "not_yet",
      title: "Your link is not valid yet",
      detail: "It starts working later. If that seems wrong, check this device's clock.",
      status: "link not valid yet",
    };
  }
  if (/missing token|no token|token required/.test(why)) return missing;
  // The server's words for a token it cannot use: "bad signature", "malformed token: …",
  // "algorithm must be HS256", "typ must be JWT", "token too long", "sub missing", "bad claim: …".
  if (/signature|malformed|alg|typ\b|too long|invalid|bad|format|decode|json|header|claim|sub\b|exp\b|secret|key/.test(why)) return invalid;
  // The reason said nothing we know: the token itself may tell.
  if (isExpired(token, now)) return expired;
  if (!decodeToken(token)) return invalid;
  return {
    kind: "unauthorized",
    title: "Your link was not accepted",
    detail: reason ? `The server said: “${reason}”. Ask for a new link.` : "Ask for a new link.",
    status: "not authorized",
  };
}
