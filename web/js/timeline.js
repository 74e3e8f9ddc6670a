// The session timeline (docs/timeline.md): a slider over the room's
// revisions. Moving it back previews the room as it was then, for this person
// only — the controls show those values and cannot be dragged, nothing is
// sent — under a banner "viewing 14:02:31 — not live"; "Back to live" ends the
// preview, "Restore this moment" sends `restore`, which the server commits
// as one revision for everyone. Hidden when the server keeps no history (501).

import { h, setAttr, setText } from "./dom.js";

/** How long the slider must rest before the moment under it is fetched. */
export const PREVIEW_DELAY_MS = 120;
/** Moments kept, so scrubbing back and forth does not fetch them again. */
const CACHE_LIMIT = 64;
/** Time labels under the slider, at most. */
const LABELS = 4;

/** "14:02:31" in the browser's time zone; with `day`, "Mon 14:02". */
export function clockTime(ms, { day = false } = {}) {
  const d = new Date(ms);
  const two = (n) => String(n).padStart(2, "0");
  if (day) return `${d.toLocaleDateString(undefined, { weekday: "short" })} ${two(d.getHours())}:${two(d.getMinutes())}`;
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** The time of the newest mark at or before `rev` (marks oldest first), or null. */
export function timeAt(marks, rev) {
  let found = null;
  for (const mark of marks ?? []) {
    if (mark.rev > rev) break;
    found = mark.time;
  }
  return found;
}

/**
 * Up to `count` labels for the slider, evenly spread over the marks:
 * [{rev, at (0–1 along the track), text}]. Spans over 20 hours name the day.
 * A label that would repeat the one before it, or sit within a fifth of the
 * track of it, is left out (a burst of commits within one second).
 */
export function timeLabels(summary, count = LABELS) {
  const marks = summary?.marks ?? [];
  if (!marks.length || count < 1) return [];
  const span = Math.max(1, summary.last - summary.first);
  const day = marks[marks.length - 1].time - marks[0].time > 20 * 3600 * 1000;
  const picked = [];
  for (let k = 0; k < count; k++) {
    const mark = marks[Math.round((k * (marks.length - 1)) / Math.max(1, count - 1))];
    const label = { rev: mark.rev, at: (mark.rev - summary.first) / span, text: clockTime(mark.time, { day }) };
    const before = picked[picked.length - 1];
    if (before && (before.text === label.text || label.at - before.at < 0.2)) continue;
    picked.push(label);
  }
  return picked;
}

/** What a reject of a restore says on screen. */
export function restoreRefusal(msg, nameOf = (id) => id) {
  switch (msg.code) {
    case "busy": return `Not restored: ${msg.holder ? nameOf(msg.holder) : "someone"} is moving a control it would change`;
    case "claimed": return `Not restored: ${msg.holder ? nameOf(msg.holder) : "someone"} has claimed a control it would change`;
    case "forbidden": return "Not restored: your link does not allow changes";
    default: return `Not restored: ${msg.message || msg.code}`;
  }
}

export class Timeline {
  /**
   * @param {object} o
   * @param {string} o.room
   * @param {import("./protocol.js").RoomModel} o.model
   * @param {import("./actions.js").Actions} o.actions  guarded: read only while viewing
   * @param {{send(msg: object): boolean, isOpen: boolean, state: string}} o.connection
   * @param {() => (string|null)} o.token  the API token, if any
   * @param {(url: string, init?: object) => Promise<Response>} o.fetch
   * @param {() => void} o.onChange  schedules a render
   */
  constructor({ room, model, actions, connection, token = () => null, fetch: fetcher = (u, i) => fetch(u, i), onChange = () => {},
    base = globalThis.location?.href }) {
    Object.assign(this, { room, model, actions, connection, token, fetcher, onChange, base });
    /** null: not asked yet; false: no history on this server (hidden). */
    this.available = null;
    this.summary = null;
    /** The revision being viewed; null: live. */
    this.target = null;
    /** The moment fetched for `target` ({rev, time, by, controls}). */
    this.preview = null;
    this.cache = new Map();
    this.status = "";
    this.error = "";
    this.restoreSeq = null;
    this.restoredFrom = null;
    this.timer = 0;
    this.asked = 0;
    this.summaryAsked = 0;
    this.locked = false;
    if (actions) this.guard(actions);
    /** The panel (`build`), null until it is placed on a page. */
    this.el = null;
  }

  /** Whether this person is looking at the past: the controls are locked. */
  get viewing() {
    return this.target != null;
  }

  /** The state to draw for `controlId` while viewing, else null (the live one). */
  shown(controlId) {
    if (!this.viewing || !this.preview) return null;
    return this.preview.controls?.[controlId] ?? null;
  }

  /** While viewing, the controls send nothing: `actions.readOnly` says so. */
  guard(actions) {
    const model = this.model;
    Object.defineProperty(actions, "readOnly", {
      configurable: true,
      get: () => model.readOnly === true || this.viewing,
    });
  }

  // ------------------------------------------------------------------ data

  url(path) {
    return new URL(`api/rooms/${encodeURIComponent(this.room)}/timeline${path}`, this.base).href;
  }

  async getJSON(url) {
    const token = this.token();
    const response = await this.fetcher(url, token ? { headers: { Authorization: `Bearer ${token}` } } : {});
    let body = null;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    return { status: response.status, body };
  }

  /** Asks for the range and marks (on each welcome, and when the slider is taken up with a stale range). */
  async loadSummary() {
    const asked = ++this.summaryAsked;
    try {
      const { status, body } = await this.getJSON(this.url(""));
      if (asked !== this.summaryAsked) return;
      if (status === 501 || status === 404) {
        this.available = false;
      } else if (status === 200 && body) {
        this.available = true;
        this.summary = body;
      }
    } catch {
      // Offline: the next welcome asks again.
    }
    this.onChange();
  }

  /** The newest revision: the live room's when it is ahead of the summary. */
  get last() {
    return Math.max(this.summary?.last ?? 0, this.model.rev ?? 0);
  }

  get first() {
    return Math.min(this.summary?.first ?? 0, this.last);
  }

  /** Moves the view to `rev`: the live room at the newest, else a preview fetched after a pause. */
  scrub(rev) {
    const r = Math.round(Number(rev));
    if (!Number.isFinite(r)) return;
    this.status = "";
    if (r >= this.last) {
      this.backToLive();
      return;
    }
    this.target = Math.max(this.first, r);
    this.error = "";
    const cached = this.cache.get(this.target);
    clearTimeout(this.timer);
    if (cached) {
      this.preview = cached;
    } else {
      this.timer = setTimeout(() => this.fetchMoment(this.target), PREVIEW_DELAY_MS);
    }
    this.onChange();
  }

  async fetchMoment(rev) {
    const asked = ++this.asked;
    let answer;
    try {
      answer = await this.getJSON(this.url(`/${rev}`));
    } catch {
      answer = { status: 0, body: null };
    }
    if (asked !== this.asked || this.target !== rev) return;
    if (answer.status === 200 && answer.body?.controls) {
      this.remember(rev, answer.body);
      this.preview = answer.body;
    } else if (answer.status === 410) {
      this.error = "That moment was pruned from the room's history.";
    } else {
      this.error = answer.body?.message ?? "That moment could not be loaded.";
    }
    this.onChange();
  }

  remember(rev, moment) {
    this.cache.set(rev, moment);
    while (this.cache.size > CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value);
  }

  backToLive() {
    // The banner goes with the past: the focus on its buttons (Back to live, Restore) goes to
    // the slider, where the person came from, rather than fall to the page.
    if (this.banner?.contains(globalThis.document?.activeElement)) this.slider.focus();
    clearTimeout(this.timer);
    this.asked += 1;
    this.target = null;
    this.preview = null;
    this.error = "";
    this.onChange();
  }

  /** Sends `restore` for the moment viewed; the answer comes as an ack or a reject (`message`). */
  restore() {
    if (!this.viewing || !this.preview) return null;
    return this.restoreMoment(this.preview);
  }

  /**
   * Sends `restore` for `moment` ({rev, time?}): the moment viewed, or the one
   * just before someone's recall (its toast's "Undo"). Returns the seq, or null.
   */
  restoreMoment(moment) {
    if (this.restoreSeq != null || !this.connection.isOpen || this.model.readOnly) return null;
    const seq = this.model.nextSeq();
    if (!this.connection.send({ type: "restore", seq, rev: moment.rev })) return null;
    this.restoreSeq = seq;
    this.restoredFrom = moment;
    // The button is disabled while the restore is under way and the banner goes once it commits:
    // the focus goes to the slider now rather than fall to the page.
    if (this.banner?.contains(globalThis.document?.activeElement)) this.slider.focus();
    this.status = "Restoring…";
    this.onChange();
    return seq;
  }

  /** Every frame from the server: the outcome of a restore, and the range growing. */
  message(msg) {
    if (msg.type === "welcome") {
      this.restoreSeq = null;
      this.loadSummary();
      return;
    }
    if (this.restoreSeq == null) return;
    if (msg.type === "reject" && msg.seq === this.restoreSeq) {
      this.restoreSeq = null;
      this.status = restoreRefusal(msg, (id) => this.model.nameOf(id));
      this.onChange();
    } else if (msg.type === "update" && typeof msg.ack === "number" && msg.ack >= this.restoreSeq) {
      const from = this.restoredFrom;
      this.restoreSeq = null;
      this.restoredFrom = null;
      this.backToLive();
      this.status = `Restored the moment of ${this.momentText(from)}.`;
      this.loadSummary();
    }
  }

  momentText(moment) {
    if (!moment) return "";
    if (moment.rev === 0) return "the start";
    const time = moment.time ?? timeAt(this.summary?.marks, moment.rev);
    return time != null ? clockTime(time) : `revision ${moment.rev}`;
  }

  // ------------------------------------------------------------------ view

  build() {
    this.slider = h("input", {
      type: "range", id: "timeline-slider", class: "timeline-slider", min: "0", max: "0", step: "1", value: "0",
      "aria-describedby": "timeline-banner-text",
      oninput: (e) => this.scrub(e.target.value),
      onfocus: () => this.refreshIfStale(),
      onpointerdown: () => this.refreshIfStale(),
    });
    this.timeText = h("output", { class: "timeline-time", for: "timeline-slider" }, "live");
    this.labels = h("div", { class: "timeline-labels", "aria-hidden": "true" });
    this.bannerText = h("strong", { id: "timeline-banner-text", class: "timeline-banner-text" });
    this.detail = h("span", { class: "timeline-detail" });
    this.liveButton = h("button", { type: "button", class: "timeline-button", onclick: () => this.backToLive() }, "Back to live");
    this.restoreButton = h("button", { type: "button", class: "timeline-button timeline-restore", onclick: () => this.restore() }, "Restore this moment");
    this.banner = h("div", { class: "timeline-banner", hidden: true },
      h("div", { class: "timeline-banner-words" }, this.bannerText, this.detail),
      h("div", { class: "timeline-actions" }, this.liveButton, this.restoreButton));
    this.note = h("p", { class: "timeline-note", role: "status", "aria-live": "polite" });
    const panel = h("section", {
      class: "timeline", "aria-label": "Timeline of this room", hidden: true,
      onkeydown: (e) => {
        if (e.key === "Escape" && this.viewing) {
          e.preventDefault();
          this.backToLive();
        }
      },
    },
    h("div", { class: "timeline-row" },
      h("label", { class: "timeline-label", for: "timeline-slider" }, "Timeline"),
      h("div", { class: "timeline-track" }, this.slider, this.labels),
      this.timeText),
    this.banner,
    this.note);
    return panel;
  }

  refreshIfStale() {
    if (this.available && (this.summary?.last ?? 0) < this.model.rev) this.loadSummary();
  }

  render() {
    if (!this.el) return;
    const show = this.available === true && this.connection.state !== "closed";
    this.el.hidden = !show;
    document.body.classList.toggle("timeline-viewing", this.viewing);
    if (!show) return;
    const first = this.first;
    const last = this.last;
    setAttr(this.slider, "min", first);
    setAttr(this.slider, "max", last);
    const value = this.viewing ? this.target : last;
    if (Number(this.slider.value) !== value) this.slider.value = String(value);
    this.slider.disabled = last <= first;
    const when = this.viewing ? this.viewedText() : "live";
    setAttr(this.slider, "aria-valuetext", this.viewing ? `${when}, revision ${value} of ${last}` : `live, revision ${last}`);
    setText(this.timeText, when);
    this.renderLabels();

    this.banner.hidden = !this.viewing;
    if (this.viewing) {
      setText(this.bannerText, `viewing ${when} — not live`);
      const by = this.preview?.by ? ` · by ${this.preview.by}` : "";
      setText(this.detail, this.error || (this.preview ? `revision ${this.preview.rev}${by} · only you see this` : "loading…"));
      const writable = !this.model.readOnly;
      this.restoreButton.disabled = !writable || !this.preview || this.restoreSeq != null || !this.connection.isOpen;
      this.restoreButton.title = writable ? "Commit these values for everyone, as one change" : "Read only: your link does not allow changes";
    }
    setText(this.note, this.status);
    this.markLocked();
  }

  /** The controls are read only while viewing (a viewer's page marks them itself, for good). */
  markLocked() {
    if (this.model.readOnly || (!this.viewing && !this.locked)) return;
    this.locked = this.viewing;
    for (const thumb of document.querySelectorAll('#controls [role="slider"]')) {
      if (this.viewing) thumb.setAttribute("aria-readonly", "true");
      else thumb.removeAttribute("aria-readonly");
    }
    for (const input of document.querySelectorAll("#controls input")) input.readOnly = this.viewing;
  }

  /** The viewed moment's time: exact once fetched, from the marks meanwhile. */
  viewedText() {
    if (this.target === 0) return "the start";
    if (this.preview?.rev === this.target && this.preview.time != null) return clockTime(this.preview.time);
    const time = timeAt(this.summary?.marks, this.target);
    return time != null ? clockTime(time) : `revision ${this.target}`;
  }

  renderLabels() {
    const key = `${this.summary?.first}-${this.summary?.last}-${this.summary?.marks?.length}`;
    if (this.labels.dataset.key === key) return;
    this.labels.dataset.key = key;
    this.labels.replaceChildren(...timeLabels(this.summary).map((label) =>
      h("span", { class: "timeline-tick", style: { left: `${(label.at * 100).toFixed(2)}%` } }, label.text)));
  }
}

/** The panel, placed before `before` (the controls). */
export function createTimeline(options, before) {
  const timeline = new Timeline(options);
  timeline.el = timeline.build();
  before?.before(timeline.el);
  return timeline;
}
