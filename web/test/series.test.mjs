// The live plots' HTTP client (web/js/series.js) against a fake fetch: the
// series endpoint's address and answers, the refusals the chart explains,
// and the markers read from the history page by page.
import assert from "node:assert/strict";
import { test } from "node:test";
import { markerText } from "../js/chart-math.js";
import { SeriesClient, clampPoints, loadMarkers, markersUnavailableText, unavailableText } from "../js/series.js";

const BASE = "http://127.0.0.1:8080/?room=synth&name=Ann";
const T0 = new Date(2026, 10, 30, 14, 2, 31).getTime();
const iso = (ms) => new Date(ms).toISOString();

/** A fetch that answers from `routes` (path+query → [status, body]) and records every call. */
function fakeFetch(routes) {
  const calls = [];
  const fetcher = async (url, init) => {
    const u = new URL(url);
    calls.push({ url: u, init });
    const key = u.pathname + u.search;
    const found = typeof routes === "function" ? routes(u) : routes[key];
    if (!found) return { status: 404, json: async () => ({ code: "not_found" }) };
    const [status, body] = found;
    return { status, json: async () => { if (body === undefined) throw new SyntaxError("no body"); return body; } };
  };
  return { fetcher, calls };
}

test("the series is asked for with from, to and points, and the token as a Bearer header", async () => {
  const body = { room: "synth", control: "level", width: 1000, from: T0 - 60000, to: T0, points: [[T0 - 60000, -13, -11, -12]] };
  const { fetcher, calls } = fakeFetch(() => [200, body]);
  const client = new SeriesClient({ room: "synth", token: () => "JWT", fetch: fetcher, base: BASE });
  const answer = await client.series("level", { from: T0 - 60000, to: T0, points: 812.4 });
  assert.deepEqual(answer, { ok: true, status: 200, width: 1000, from: T0 - 60000, to: T0, points: body.points });
  const { url, init } = calls[0];
  assert.equal(url.pathname, "/api/rooms/synth/series/level");
  assert.deepEqual(Object.fromEntries(url.searchParams), { from: String(T0 - 60000), to: String(T0), points: "812" });
  assert.equal(init.headers.Authorization, "Bearer JWT");
  assert.equal(init.cache, "no-store");
  await client.series("level", { points: 99999 });
  assert.deepEqual(Object.fromEntries(calls[1].url.searchParams), { points: "5000" }, "no from or to: the oldest kept, now");
  const anon = new SeriesClient({ room: "a b", fetch: fetcher, base: BASE });
  await anon.series("x/y");
  assert.equal(calls[2].url.pathname, "/api/rooms/a%20b/series/x%2Fy");
  assert.deepEqual(calls[2].init.headers, {}, "no token: no header");
  assert.deepEqual([0, 1, 300.6, NaN, 7000].map(clampPoints), [1, 1, 301, 300, 5000]);
});

test("refusals come back with their status and code, and read as the chart says them", async () => {
  const answers = {
    "/api/rooms/synth/series/cluster?points=300": [501, { code: "not_implemented", message: "not on a cluster node" }],
    "/api/rooms/synth/series/resonance?points=300": [404, { code: "no_series", message: "keeps none" }],
    "/api/rooms/synth/series/junk?points=300": [200, undefined],
  };
  const client = new SeriesClient({ room: "synth", fetch: fakeFetch(answers).fetcher, base: BASE });
  const cluster = await client.series("cluster");
  assert.deepEqual([cluster.ok, cluster.status, cluster.code], [false, 501, "not_implemented"]);
  assert.match(unavailableText(cluster, "Output level"), /^The history of Output level is not available on this server/);
  const none = await client.series("resonance");
  assert.match(unavailableText(none, "Resonance"), /keeps no history of Resonance/);
  const older = await client.series("nothing");
  assert.match(unavailableText(older, "Nothing"), /not available on this server/, "a server without the endpoint");
  assert.match(unavailableText({ ok: false, status: 404, code: "unknown_control" }, "Nothing"), /not in this room/);
  const junk = await client.series("junk");
  assert.equal(junk.ok, false, "a 200 without JSON is no answer");
  const offline = await new SeriesClient({ room: "synth", fetch: async () => { throw new TypeError("offline"); }, base: BASE }).series("level");
  assert.deepEqual([offline.ok, offline.status], [false, 0]);
  assert.match(unavailableText(offline, "Output level"), /offline/);
  assert.equal(unavailableText({ ok: true }, "x"), "");
  assert.match(markersUnavailableText({ ok: false, status: 501 }), /keeps no history/);
});

test("markers: the history is read from the span's start page by page, with the room's states at that start", async () => {
  const schemas = new Map([
    ["level", { id: "level", type: "gauge", label: "Output level", unit: "dB" }],
    ["resonance", { id: "resonance", type: "slider", label: "Resonance", min: 0, max: 100, step: 1, unit: "%" }],
  ]);
  // Revisions 11–30: the gauge every revision, resonance at 15 and 25.
  const log = [];
  for (let rev = 11; rev <= 30; rev++) {
    const control = rev === 15 || rev === 25 ? "resonance" : "level";
    log.push({ rev, control, state: { value: control === "level" ? -rev : rev }, by: control === "level" ? "api" : "c3", name: control === "level" ? "api" : "Ann", time: iso(T0 + rev * 1000) });
  }
  const { fetcher, calls } = fakeFetch((u) => {
    if (u.pathname === "/api/rooms/synth/history") {
      const since = Number(u.searchParams.get("since"));
      const limit = Number(u.searchParams.get("limit"));
      return [200, { room: "synth", history: log.filter((e) => e.rev > since).slice(0, limit) }];
    }
    if (u.pathname === "/api/rooms/synth/timeline/10") return [200, { rev: 10, controls: { level: { value: -10 }, resonance: { value: 20 } } }];
    return null;
  });
  const client = new SeriesClient({ room: "synth", fetch: fetcher, base: BASE });
  const result = await loadMarkers(client, { from: T0 + 12000, to: T0 + 40000, since: 10, untilRev: 30, plotted: "level", schemaOf: (id) => schemas.get(id), page: 6 });
  assert.equal(result.ok, true);
  assert.equal(result.partial, false);
  assert.deepEqual(result.markers.map((m) => m.key), ["15:resonance", "25:resonance"]);
  assert.deepEqual(result.markers.map((m) => markerText(m)), [
    `Ann · Resonance 20 % → 15 % · 14:02:46`,
    `Ann · Resonance 15 % → 25 % · 14:02:56`,
  ]);
  const sinces = calls.filter((c) => c.url.pathname.endsWith("/history")).map((c) => Number(c.url.searchParams.get("since")));
  assert.deepEqual(sinces, [10, 16, 22, 28], "each page goes on after the last revision seen, and stops at the room's revision");

  // A span past the cap reads only the newest rows, and says so.
  calls.length = 0;
  const capped = await loadMarkers(client, { from: 0, to: Infinity, since: 0, untilRev: 30, plotted: "level", schemaOf: (id) => schemas.get(id), maxRows: 10, page: 100 });
  assert.equal(capped.partial, true);
  assert.deepEqual(capped.markers.map((m) => m.key), ["25:resonance"]);
  assert.equal(capped.markers[0].before, null, "no moment at 20 to tell the state before: 'set to'");
});

test("markers: a server without history says so", async () => {
  const client = new SeriesClient({ room: "synth", fetch: fakeFetch(() => [501, { code: "not_implemented" }]).fetcher, base: BASE });
  const result = await loadMarkers(client, { from: 0, to: 1, plotted: "level", schemaOf: () => null });
  assert.deepEqual([result.ok, result.status], [false, 501]);
});
