// The timeline panel's logic, without a page: labels, scrubbing, the lock, restore.
import assert from "node:assert/strict";
import { test } from "node:test";
import { PREVIEW_DELAY_MS, Timeline, clockTime, restoreRefusal, timeAt, timeLabels } from "../js/timeline.js";

const T0 = new Date(2026, 10, 30, 14, 2, 31).getTime();

/**
 * For one test, setTimeout and clearTimeout on a clock moved by hand (the
 * preview's pause is a timer of the page's): `await clock.tick(ms)` fires the
 * timers due by then, in order, and waits for what each started (a timer whose
 * callback returns a promise, the fetch of a moment, is done when it settles).
 */
function fakeTimers(t) {
  const real = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
  const timers = new Map();
  let now = 0;
  let ids = 0;
  globalThis.setTimeout = (fn, ms = 0, ...args) => {
    ids += 1;
    timers.set(ids, { at: now + Math.max(0, Number(ms) || 0), fn, args });
    return ids;
  };
  globalThis.clearTimeout = (id) => {
    timers.delete(id);
  };
  t.after(() => Object.assign(globalThis, real));
  return {
    async tick(ms) {
      const to = now + ms;
      for (;;) {
        let next = null;
        for (const [id, timer] of timers) if (timer.at <= to && (!next || timer.at < next[1].at)) next = [id, timer];
        if (!next) break;
        timers.delete(next[0]);
        now = next[1].at;
        await next[1].fn(...next[1].args);
      }
      now = to;
    },
  };
}

test("clock times are hh:mm:ss in local time", () => {
  assert.equal(clockTime(T0), "14:02:31");
  assert.equal(clockTime(T0 + 3_600_000 + 59_000), "15:03:30");
  assert.match(clockTime(T0, { day: true }), /^\S+ 14:02$/);
});

test("the time at a revision is the newest mark at or before it", () => {
  const marks = [{ rev: 1, time: 10 }, { rev: 5, time: 50 }, { rev: 9, time: 90 }];
  assert.equal(timeAt(marks, 0), null);
  assert.equal(timeAt(marks, 1), 10);
  assert.equal(timeAt(marks, 8), 50);
  assert.equal(timeAt(marks, 100), 90);
  assert.equal(timeAt(undefined, 3), null);
});

test("labels: a few marks evenly spread, placed along the track, without repeats", () => {
  const marks = Array.from({ length: 200 }, (_, k) => ({ rev: 1 + k * 5, time: T0 + k * 1000 }));
  const labels = timeLabels({ first: 0, last: 996, marks }, 4);
  assert.deepEqual(labels.map((l) => l.rev), [1, 331, 666, 996]);
  assert.equal(labels[0].text, "14:02:31");
  assert.ok(Math.abs(labels[3].at - 1) < 1e-9);
  assert.deepEqual(timeLabels({ first: 0, last: 1, marks: [{ rev: 1, time: T0 }] }, 4).map((l) => l.rev), [1]);
  assert.deepEqual(timeLabels({ first: 0, last: 0, marks: [] }), []);
  const burst = Array.from({ length: 9 }, (_, k) => ({ rev: k + 1, time: T0 + k * 10 }));
  assert.deepEqual(timeLabels({ first: 0, last: 9, marks: burst }).map((l) => l.text), ["14:02:31"], "one second: one label");
});

test("a refused restore says why: who holds a control, read only, or the server's message", () => {
  assert.equal(restoreRefusal({ code: "busy", holder: "c2" }, () => "Bob"), "Not restored: Bob is moving a control it would change");
  assert.match(restoreRefusal({ code: "forbidden" }), /does not allow changes/);
  assert.equal(restoreRefusal({ code: "bad_value", message: "revision 9 was pruned" }), "Not restored: revision 9 was pruned");
});

function fixture({ rev = 20, readOnly = false, moments = {} } = {}) {
  const requests = [];
  const sent = [];
  const model = { rev, readOnly, seq: 4, nextSeq() { this.seq += 1; return this.seq; }, nameOf: (id) => id };
  const actions = {};
  const connection = { isOpen: true, state: "open", send: (msg) => { sent.push(msg); return true; } };
  const fetch = async (url, init) => {
    requests.push({ url, init });
    const path = new URL(url).pathname;
    const m = path.match(/\/timeline\/(\d+)$/);
    if (m) {
      const moment = moments[m[1]];
      return { status: moment ? 200 : 410, json: async () => moment ?? { code: "bad_value", message: "pruned" } };
    }
    return { status: 200, json: async () => ({ first: 0, last: rev, revisions: rev, marks: [{ rev: 1, time: T0 }, { rev, time: T0 + 60_000 }] }) };
  };
  let changes = 0;
  const timeline = new Timeline({ room: "my room", model, actions, connection, fetch, token: () => "tok", base: "http://h:1/?room=x",
    onChange: () => { changes += 1; } });
  return { timeline, model, actions, connection, requests, sent, changes: () => changes };
}

test("scrubbing back previews the moment after a pause, locks the controls, and the newest revision is live again", async (t) => {
  const clock = fakeTimers(t);
  const moments = { 7: { rev: 7, time: T0 + 7000, by: "Ann", controls: { gain: { value: 0.25 } } } };
  const { timeline, actions, requests, sent } = fixture({ moments });
  await timeline.loadSummary();
  assert.equal(requests[0].url, "http://h:1/api/rooms/my%20room/timeline");
  assert.deepEqual(requests[0].init, { headers: { Authorization: "Bearer tok" } });
  assert.equal(actions.readOnly, false);

  timeline.scrub("3");
  timeline.scrub("7"); // only the one the slider rests on is fetched
  assert.equal(timeline.viewing, true);
  assert.equal(actions.readOnly, true, "the controls send nothing while viewing");
  assert.equal(timeline.shown("gain"), null, "until it arrives, the live values show");
  await clock.tick(PREVIEW_DELAY_MS - 1);
  assert.equal(requests.length, 1, "nothing is fetched before the pause is over");
  await clock.tick(1);
  assert.deepEqual(requests.slice(1).map((r) => new URL(r.url).pathname), ["/api/rooms/my%20room/timeline/7"]);
  assert.deepEqual(timeline.shown("gain"), { value: 0.25 });
  assert.equal(timeline.viewedText(), "14:02:38");
  assert.equal(sent.length, 0, "looking back sends nothing");

  timeline.scrub(20);
  assert.equal(timeline.viewing, false);
  assert.equal(timeline.shown("gain"), null);
  assert.equal(actions.readOnly, false);

  timeline.scrub(7); // from the cache, at once
  assert.deepEqual(timeline.shown("gain"), { value: 0.25 });
  assert.equal(requests.length, 2);
});

test("a pruned moment says so; back to live clears it", async (t) => {
  const clock = fakeTimers(t);
  const { timeline } = fixture();
  await timeline.loadSummary();
  timeline.scrub(2);
  await clock.tick(PREVIEW_DELAY_MS);
  assert.match(timeline.error, /pruned/);
  assert.equal(timeline.shown("gain"), null);
  timeline.backToLive();
  assert.equal(timeline.viewing, false);
  assert.equal(timeline.error, "");
});

test("restore sends the viewed revision with the next seq; its ack goes back to live, a reject says why and stays", async (t) => {
  const clock = fakeTimers(t);
  const moments = { 5: { rev: 5, time: T0, by: "Ann", controls: { gain: { value: 0.1 } } } };
  const { timeline, sent, model } = fixture({ moments });
  await timeline.loadSummary();
  assert.equal(timeline.restore(), null, "nothing to restore while live");
  timeline.scrub(5);
  await clock.tick(PREVIEW_DELAY_MS);
  const seq = timeline.restore();
  assert.deepEqual(sent, [{ type: "restore", seq: 5, rev: 5 }]);
  assert.equal(seq, 5);
  assert.equal(timeline.restore(), null, "one at a time");
  timeline.message({ type: "reject", seq: 5, code: "busy", holder: "c9" });
  assert.equal(timeline.status, "Not restored: c9 is moving a control it would change");
  assert.equal(timeline.viewing, true);

  const again = timeline.restore();
  timeline.message({ type: "update", rev: 21, ack: again });
  assert.equal(timeline.viewing, false);
  assert.equal(timeline.status, "Restored the moment of 14:02:31.");
  assert.equal(model.seq, 6);
});

test("a viewer can look back but not restore; a server without history hides the panel", async (t) => {
  const clock = fakeTimers(t);
  const moments = { 5: { rev: 5, time: T0, controls: {} } };
  const viewer = fixture({ readOnly: true, moments });
  await viewer.timeline.loadSummary();
  viewer.timeline.scrub(5);
  await clock.tick(PREVIEW_DELAY_MS);
  assert.deepEqual(viewer.timeline.preview, moments[5], "the moment is shown to a viewer");
  assert.equal(viewer.timeline.restore(), null);
  assert.equal(viewer.sent.length, 0);

  const memory = new Timeline({ room: "demo", model: { rev: 3 }, connection: {}, base: "http://h/",
    fetch: async () => ({ status: 501, json: async () => ({ code: "not_implemented" }) }) });
  await memory.loadSummary();
  assert.equal(memory.available, false);
});
