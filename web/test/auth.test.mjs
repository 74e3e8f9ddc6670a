// Invitation tokens in the browser (web/js/auth.js): reading them, their
// expiry, the URLs that carry them, and the words for a refused connection.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  LEEWAY_S, REFRESH_BEFORE_MS, WARN_BEFORE_MS,
  base64urlDecode, closeNotice, decodeToken, expiresAt, expiryPlan, expiryText, formatClock, isExpired,
  refreshURL, roleText, roomURL, roomsOf, splitToken, tokenClaims, tokenFromAnswer, withToken,
} from "../js/auth.js";

const b64url = (text) => Buffer.from(text, "utf8").toString("base64url");
/** A JWT-shaped token (the client never checks the signature, so any will do). */
export function jwt(payload, header = { alg: "HS256", typ: "JWT" }) {
  return `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}.c2lnbmF0dXJl`;
}

const page = { protocol: "http:", host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080", href: "http://127.0.0.1:8080/?room=synth" };

test("base64url decodes with and without padding, UTF-8 included, and refuses other alphabets", () => {
  assert.equal(base64urlDecode(b64url("{}")), "{}");
  assert.equal(base64urlDecode(b64url("Zoë ✓")), "Zoë ✓");
  assert.equal(base64urlDecode(b64url("ab?>")), "ab?>"); // '-' and '_' in the encoding
  assert.equal(base64urlDecode("a+b/"), null);
  assert.equal(base64urlDecode("abcde"), null); // no length is 1 mod 4
  assert.equal(base64urlDecode(b64url("\u00ff").slice(0, 2) + "_w"), null); // not UTF-8
});

test("a token's payload is read without checking the signature", () => {
  const token = jwt({ sub: "u1", name: "Ann", room: "synth", role: "viewer", exp: 1_800_000_000 });
  assert.deepEqual(decodeToken(token).header, { alg: "HS256", typ: "JWT" });
  assert.equal(tokenClaims(token).role, "viewer");
  assert.equal(expiresAt(token), 1_800_000_000_000);
});

test("what is not a JWT has no claims and no expiry", () => {
  for (const bad of [null, "", "abc", "a.b", "a.b.c.d", `${b64url("[]")}.${b64url("{}")}.x`,
    `${b64url("{}")}.${b64url("not json")}.x`, `${b64url("{}")}.${b64url("42")}.x`]) {
    assert.equal(decodeToken(bad), null, String(bad));
    assert.equal(expiresAt(bad), null, String(bad));
  }
  assert.equal(expiresAt(jwt({ sub: "u1" })), null);
  assert.equal(expiresAt(jwt({ sub: "u1", exp: "soon" })), null);
});

test("a token counts as expired only past exp plus the server's leeway", () => {
  const token = jwt({ sub: "u1", exp: 1000 });
  assert.equal(isExpired(token, 1000_000), false);
  assert.equal(isExpired(token, 1000_000 + LEEWAY_S * 1000), false);
  assert.equal(isExpired(token, 1000_000 + LEEWAY_S * 1000 + 1), true);
  assert.equal(isExpired(jwt({ sub: "u1" }), 1e15), false);
});

test("the rooms a token covers: one, several, all, or none said", () => {
  assert.deepEqual(roomsOf({ room: "synth" }), ["synth"]);
  assert.deepEqual(roomsOf({ room: ["a", 3, "b"] }), ["a", "b"]);
  assert.equal(roomsOf({ room: "*" }), "*");
  assert.equal(roomsOf({}), null);
  assert.equal(roomsOf(null), null);
});

test("?token= is taken out of the page address, everything else stays", () => {
  assert.deepEqual(splitToken("http://h:1/?room=synth&token=abc.def.ghi&name=Ann"),
    { token: "abc.def.ghi", cleanHref: "http://h:1/?room=synth&name=Ann" });
  assert.deepEqual(splitToken("http://h:1/?token=abc.def.ghi"), { token: "abc.def.ghi", cleanHref: "http://h:1/" });
  assert.deepEqual(splitToken("http://h:1/?room=synth#x"), { token: null, cleanHref: "http://h:1/?room=synth#x" });
  assert.equal(splitToken("http://h:1/?token=").token, null);
});

test("the WebSocket URL carries the name and the token, encoded", () => {
  assert.equal(roomURL(page, "demo"), "ws://127.0.0.1:8080/rooms/demo");
  assert.equal(roomURL(page, "demo", "Ann"), "ws://127.0.0.1:8080/rooms/demo?name=Ann");
  assert.equal(roomURL(page, "a b", "Zoë", "x.y+/=.z"),
    "ws://127.0.0.1:8080/rooms/a%20b?name=Zo%C3%AB&token=x.y%2B%2F%3D.z");
  assert.equal(roomURL({ ...page, protocol: "https:" }, "demo", "", "t.t.t"), "wss://127.0.0.1:8080/rooms/demo?token=t.t.t");
});

test("HTTP links carry the token when there is one", () => {
  assert.equal(withToken("/api/rooms/demo/history.csv", null), "/api/rooms/demo/history.csv");
  assert.equal(withToken("/api/rooms/demo/history.csv", "a.b.c"), "/api/rooms/demo/history.csv?token=a.b.c");
  assert.equal(withToken("/api/rooms/demo/history?since=3", "a.b+c"), "/api/rooms/demo/history?since=3&token=a.b%2Bc");
});

test("?refresh= is used only on the page's own origin", () => {
  assert.equal(refreshURL("/auth/refresh", page), "http://127.0.0.1:8080/auth/refresh");
  assert.equal(refreshURL("http://127.0.0.1:8080/t?x=1", page), "http://127.0.0.1:8080/t?x=1");
  assert.equal(refreshURL("https://evil.example/t", page), null);
  assert.equal(refreshURL("//evil.example/t", page), null);
  assert.equal(refreshURL("http://127.0.0.1:9999/t", page), null);
  assert.equal(refreshURL("javascript:alert(1)", page), null);
  assert.equal(refreshURL("", page), null);
  assert.equal(refreshURL(null, page), null);
});

test("the refresh answer is the token as text, or {\"token\": …}", () => {
  const token = jwt({ sub: "u1", exp: 5 });
  assert.equal(tokenFromAnswer(`${token}\n`), token);
  assert.equal(tokenFromAnswer(JSON.stringify({ token })), token);
  assert.equal(tokenFromAnswer("<html>login</html>"), null);
  assert.equal(tokenFromAnswer("{oops"), null);
  assert.equal(tokenFromAnswer(""), null);
});

test("a refresh is planned a minute before exp, a warning two minutes before, never in the past", () => {
  const exp = 10 * 60_000;
  assert.deepEqual(expiryPlan(exp, 0, true), { refreshAt: exp - REFRESH_BEFORE_MS, warnAt: null });
  assert.deepEqual(expiryPlan(exp, 0, false), { refreshAt: null, warnAt: exp - WARN_BEFORE_MS });
  assert.deepEqual(expiryPlan(exp, exp - 1000, true), { refreshAt: exp - 1000, warnAt: null });
  assert.deepEqual(expiryPlan(exp, exp - 1000, false), { refreshAt: null, warnAt: exp - 1000 });
  assert.deepEqual(expiryPlan(null, 0, true), { refreshAt: null, warnAt: null });
});

test("the warning names the local time the access ends", () => {
  const at = new Date(2026, 10, 30, 9, 5).getTime();
  assert.equal(formatClock(at), "09:05");
  assert.equal(expiryText({ endsAt: at, failed: false }), "Your access ends at 09:05.");
  assert.match(expiryText({ endsAt: at, failed: true }), /^Your access ends at 09:05 and could not be renewed/);
  assert.equal(expiryText(null), null);
});

test("the role badge: nothing without a token, the role with one", () => {
  assert.equal(roleText("editor", false), null);
  assert.equal(roleText("viewer", true), "viewer — read only");
  assert.equal(roleText("editor", true), "editor");
  assert.equal(roleText("admin", true), "admin");
  assert.equal(roleText(null, true), null);
});

test("close 4401 without a token: the room needs an invitation link", () => {
  const n = closeNotice(4401, "missing token", { room: "synth", token: null });
  assert.equal(n.kind, "missing");
  assert.equal(n.title, "This room needs an invitation link");
});

test("close 4401 with a token: the server's reason tells expired, not yet valid, invalid", () => {
  const token = jwt({ sub: "u1", exp: 2_000_000_000 });
  const kind = (reason) => closeNotice(4401, reason, { room: "synth", token, now: 0 }).kind;
  assert.equal(kind("token expired"), "expired");
  assert.equal(kind("Token Expired"), "expired");
  assert.equal(kind("token not yet valid"), "not_yet");
  assert.equal(kind("nbf in the future"), "not_yet");
  assert.equal(kind("bad signature"), "invalid");
  assert.equal(kind("malformed token"), "invalid");
  assert.equal(kind("algorithm must be HS256"), "invalid");
  assert.equal(kind("typ must be JWT"), "invalid");
  assert.equal(kind("token too long"), "invalid");
  assert.equal(kind("sub missing"), "invalid"); // a token without its claims is not a missing token
  assert.equal(kind("exp missing"), "invalid");
  assert.equal(kind("bad claim: role"), "invalid");
  assert.equal(kind("missing token"), "missing"); // what the server says when it got none
  assert.equal(closeNotice(4401, "token expired", { room: "r", token }).title, "Your link has expired — ask for a new one");
  assert.equal(closeNotice(4401, "bad signature", { room: "r", token }).title, "This link is not valid for this server");
});

test("close 4401 with a reason it does not know: the token itself tells, else a generic message naming the reason", () => {
  const expired = jwt({ sub: "u1", exp: 1 });
  assert.equal(closeNotice(4401, "nope", { room: "r", token: expired, now: 10_000_000 }).kind, "expired");
  assert.equal(closeNotice(4401, "", { room: "r", token: "garbage", now: 0 }).kind, "invalid");
  const live = jwt({ sub: "u1", exp: 2_000_000_000 });
  const n = closeNotice(4401, "nope", { room: "r", token: live, now: 0 });
  assert.equal(n.kind, "unauthorized");
  assert.match(n.detail, /nope/);
});

test("close 4403: the link does not give access to this room; 4404: no such room; others: nothing", () => {
  const forbidden = closeNotice(4403, "room not covered", { room: "synth", token: "a.b.c" });
  assert.equal(forbidden.kind, "wrong_room");
  assert.equal(forbidden.title, "Your link does not give access to room 'synth'");
  const unknown = closeNotice(4404, "unknown room", { room: "nope" });
  assert.equal(unknown.kind, "unknown_room");
  assert.equal(unknown.status, "no room 'nope'");
  assert.equal(closeNotice(1006, "", { room: "r" }), null);
  assert.equal(closeNotice(1001, "going away", { room: "r" }), null);
});
