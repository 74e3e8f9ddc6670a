// The HTTP side of the live plots: a control's series
// (GET /api/rooms/{room}/series/{control}?from=MS&to=MS&points=N), the commit
// log the chart's markers come from (GET …/history?since=REV&limit=N) and the
// room at one revision (GET …/timeline/{rev}: the states before the first
// marker). The token goes as a Bearer header, as the timeline's requests do.
// No DOM: the fetch is passed in, tested under Node (web/test/series.test.mjs).

import { historyMarkers } from "./chart-math.js";

/** The most points the endpoint gives for one request. */
export const MAX_POINTS = 5000;
/** The history read for one span of the chart, at most (then only the newest changes are marked). */
export const MAX_HISTORY_ROWS = 20000;
const PAGE = 5000;

/** A whole number of points the endpoint takes (1–5000). */
export function clampPoints(n) {
  const v = Math.round(Number(n));
  return Number.isFinite(v) ? Math.min(MAX_POINTS, Math.max(1, v)) : 300;
}

export class SeriesClient {
  /**
   * @param {object} o
   * @param {string} o.room
   * @param {() => (string|null)} o.token  the API token, if any
   * @param {(url: string, init?: object) => Promise<Response>} o.fetch
   * @param {string} o.base  the page's address (the API is relative to it)
   */
  constructor({ room, token = () => null, fetch: fetcher = (u, i) => fetch(u, i), base = globalThis.location?.href }) {
    Object.assign(this, { room, token, fetcher, base });
  }

  url(path, query = {}) {
    const url = new URL(`api/rooms/${encodeURIComponent(this.room)}/${path}`, this.base);
    for (const [key, value] of Object.entries(query)) {
      if (value != null && Number.isFinite(value)) url.searchParams.set(key, String(Math.round(value)));
    }
    return url.href;
  }

  /** {ok: true, status, body} for a 2xx with a JSON body, else {ok: false, status, code, message}. */
  async get(url) {
    const token = this.token();
    let response;
    try {
      response = await this.fetcher(url, { cache: "no-store", headers: token ? { Authorization: `Bearer ${token}` } : {} });
    } catch {
      return { ok: false, status: 0, code: "offline", message: "" };
    }
    let body = null;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    if (response.status >= 200 && response.status < 300 && body && typeof body === "object") return { ok: true, status: response.status, body };
    return { ok: false, status: response.status, code: body?.code ?? null, message: body?.message ?? "" };
  }

  /**
   * A control's series over [from, to] (either left out: the oldest kept, now)
   * in at most `points` points: {ok: true, width, from, to, points} or {ok: false, status, code}.
   */
  async series(control, { from = null, to = null, points = 300 } = {}) {
    const answer = await this.get(this.url(`series/${encodeURIComponent(control)}`, { from, to, points: clampPoints(points) }));
    if (!answer.ok) return answer;
    const b = answer.body;
    return { ok: true, status: answer.status, width: b.width, from: b.from, to: b.to, points: Array.isArray(b.points) ? b.points : [] };
  }

  /** One page of the commit log after `since`. */
  async history(since, limit = PAGE) {
    const answer = await this.get(this.url("history", { since, limit }));
    if (!answer.ok) return answer;
    return { ok: true, status: answer.status, history: Array.isArray(answer.body.history) ? answer.body.history : [] };
  }

  /** Every control's committed state right after `rev` ({id: state}), or null when it cannot be had. */
  async moment(rev) {
    const answer = await this.get(this.url(`timeline/${Math.max(0, Math.round(rev))}`));
    return answer.ok && answer.body.controls && typeof answer.body.controls === "object" ? answer.body.controls : null;
  }
}

/**
 * The markers of the span [from, to]: the commits of the controls other than
 * `plotted` (and the other series) in it, each with the state before it.
 * The log is read by revision, so the timeline's marks (revision → time)
 * tell where the span starts; the room at that revision gives each
 * control's state before its first commit in the span. At most `maxRows`
 * log rows are read: past that, only the newest are (`partial`).
 * Returns {ok: true, markers, partial} or {ok: false, status, code}.
 */
export async function loadMarkers(client, { from, to, since = 0, untilRev = Infinity, plotted, schemaOf, maxRows = MAX_HISTORY_ROWS, page = PAGE }) {
  let start = Math.max(0, since);
  let partial = false;
  if (Number.isFinite(untilRev) && untilRev - start > maxRows) {
    start = untilRev - maxRows;
    partial = true;
  }
  const entries = [];
  let next = start;
  for (let read = 0; read < maxRows;) {
    const answer = await client.history(next, Math.min(page, maxRows - read));
    if (!answer.ok) {
      if (entries.length === 0) return answer;
      partial = true;
      break;
    }
    const list = answer.history;
    if (!list.length) break;
    entries.push(...list);
    read += list.length;
    const last = list[list.length - 1];
    next = last.rev;
    if (last.rev >= untilRev || Date.parse(last.time) > to) break;
    if (read >= maxRows) partial = true;
  }
  const before = (await client.moment(start)) ?? {};
  const markers = historyMarkers(entries, { plotted, schemaOf, before })
    .filter((m) => m.time >= from && m.time <= to);
  return { ok: true, markers, partial };
}

/**
 * What the chart says when the series cannot be had: 501 (a server of the first
 * series release, whose cluster nodes kept none), 404 `no_series`, 404 `unknown_control`, another 404 (a server
 * from before the series endpoint), anything else.
 */
export function unavailableText(answer, label) {
  if (!answer || answer.ok) return "";
  if (answer.status === 501) return `The history of ${label} is not available on this server: showing the values that arrived since this page opened.`;
  if (answer.status === 404 && answer.code === "no_series") return `This room keeps no history of ${label}: showing the values that arrived since this page opened.`;
  if (answer.status === 404 && answer.code === "unknown_control") return `${label} is not in this room any more.`;
  if (answer.status === 404) return `The history of ${label} is not available on this server: showing the values that arrived since this page opened.`;
  if (answer.status === 0) return `The history of ${label} could not be loaded (offline): showing the values that arrived since this page opened.`;
  return `The history of ${label} could not be loaded${answer.message ? ` (${answer.message})` : ""}: showing the values that arrived since this page opened.`;
}

/** What the list of changes says when the history cannot be had. */
export function markersUnavailableText(answer) {
  if (!answer || answer.ok) return "";
  if (answer.status === 501) return "This server keeps no history, so the changes before this page opened are not marked.";
  return "The room's history could not be loaded: only the changes since this page opened are marked.";
}
