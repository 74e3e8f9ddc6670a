// The page's access over time: the token it connects with, a fresh one fetched
// before `exp` when the page was given a `?refresh=` address (and sent to the
// server in an `auth` message), else a warning a couple of minutes before the
// access ends. Clock, timers, fetch and storage are passed in, so Node tests
// drive it exactly (web/test/access.test.mjs).
//
// A fresh token becomes the current one when the server acknowledges its
// `auth` message (the `ack` of an update covers its seq), or at once when the
// page is not connected (the next connection carries it). A `reject` of it
// (`unauthorized`) leaves the old one standing, as the server does.

import { REFRESH_RETRY_MS, expiresAt, expiryPlan, tokenFromAnswer } from "./auth.js";

export class Access {
  /**
   * @param {object} options
   * @param {string|null} options.token        the token the page was opened with (or kept by the tab)
   * @param {string|null} [options.refreshURL] a same-origin address answering a fresh token
   * @param {(url: string, init: object) => Promise<{ok: boolean, text(): Promise<string>}>} [options.fetch]
   * @param {() => number} [options.now]
   * @param {(fn: () => void, ms: number) => any} [options.setTimer]
   * @param {(id: any) => void} [options.clearTimer]
   * @param {(token: string) => void} [options.store]  keeps the current token for a reload
   * @param {() => void} [options.onChange]            the warning or token changed: redraw
   */
  constructor({
    token,
    refreshURL = null,
    fetch = null,
    now = () => Date.now(),
    setTimer = (fn, ms) => setTimeout(fn, ms),
    clearTimer = (id) => clearTimeout(id),
    store = () => {},
    onChange = () => {},
  }) {
    Object.assign(this, { token: token || null, refreshURL, fetchFn: fetch, now, setTimer, clearTimer, store, onChange });
    /** A fresh token sent in an `auth` message and not yet acknowledged. */
    this.candidate = null;
    /** The seq of that `auth` message (null when none is awaited). */
    this.pendingSeq = null;
    /** What the page should say about the end of its access: {endsAt, failed} or null. */
    this.warning = null;
    /** Sends `{"type":"auth","token":…}` with a seq; returns the seq, or null when not connected. */
    this.sendAuth = () => null;
    this.timer = null;
    this.fetching = null;
  }

  get hasToken() {
    return this.token != null;
  }

  get canRefresh() {
    return this.refreshURL != null && this.fetchFn != null;
  }

  /** When the current token expires (ms), or null. */
  get expiresAt() {
    return expiresAt(this.token);
  }

  /** The token for the next connection: a fresh one not yet acknowledged, else the current one. */
  connectToken() {
    return this.candidate ?? this.token;
  }

  /** Plans the refresh or the warning for the current token. */
  start() {
    this.plan();
    return this;
  }

  plan() {
    this.clearTimer(this.timer);
    this.timer = null;
    const exp = this.expiresAt;
    const { refreshAt, warnAt } = expiryPlan(exp, this.now(), this.canRefresh);
    if (refreshAt != null) {
      this.timer = this.setTimer(() => { this.timer = null; this.refresh(); }, refreshAt - this.now());
    } else if (warnAt != null) {
      const warn = () => {
        this.timer = null;
        this.setWarning({ endsAt: exp, failed: false });
      };
      if (warnAt <= this.now()) warn();
      else this.timer = this.setTimer(warn, warnAt - this.now());
    }
  }

  /**
   * Fetches a fresh token and hands it over (an `auth` message, or the next
   * connection). Resolves true when a usable token was fetched.
   */
  refresh() {
    if (!this.canRefresh) return Promise.resolve(false);
    if (this.fetching) return this.fetching;
    this.fetching = this.fetchToken().then((fresh) => {
      this.fetching = null;
      if (!fresh) {
        this.failed();
        return false;
      }
      const seq = this.sendAuth(fresh);
      this.candidate = fresh;
      this.pendingSeq = seq;
      if (seq == null) this.adopt(fresh); // not connected: the next connection carries it
      return true;
    });
    return this.fetching;
  }

  /** The fresh token, or null (network error, an error status, not a token, or not newer than the current one). */
  async fetchToken() {
    try {
      const answer = await this.fetchFn(this.refreshURL, { credentials: "include", cache: "no-store" });
      if (!answer.ok) return null;
      const fresh = tokenFromAnswer(await answer.text());
      const exp = expiresAt(fresh);
      const current = this.expiresAt;
      if (!fresh || exp == null || exp <= this.now() || (current != null && exp <= current)) return null;
      return fresh;
    } catch {
      return null;
    }
  }

  /** A refresh that did not work: warn (the access ends at the current exp) and try again a little later. */
  failed() {
    const exp = this.expiresAt;
    if (exp == null) return;
    this.setWarning({ endsAt: exp, failed: true });
    this.clearTimer(this.timer);
    this.timer = null;
    // Until exp only: the server takes an `auth` message before exp (past it, the
    // close 4401 follows, and the page tries once more to reconnect with a fresh token).
    if (this.now() + REFRESH_RETRY_MS < exp) {
      this.timer = this.setTimer(() => { this.timer = null; this.refresh(); }, REFRESH_RETRY_MS);
    }
  }

  adopt(token) {
    this.token = token;
    this.candidate = null;
    this.pendingSeq = null;
    this.store(token);
    this.setWarning(null);
    this.plan();
    this.onChange();
  }

  /** A welcome arrived: the connection was made with connectToken(), which therefore stands. */
  welcomed() {
    if (this.candidate) this.adopt(this.candidate);
  }

  /** The server processed everything up to `ack`: an awaited `auth` is accepted. */
  acked(ack) {
    if (this.pendingSeq != null && ack >= this.pendingSeq) this.adopt(this.candidate);
  }

  /** A reject: when it refuses the awaited `auth`, the old token stands. True when it was that. */
  rejected(msg) {
    if (this.pendingSeq == null || msg.seq !== this.pendingSeq) return false;
    this.candidate = null;
    this.pendingSeq = null;
    this.failed();
    return true;
  }

  setWarning(warning) {
    const same = JSON.stringify(warning) === JSON.stringify(this.warning);
    this.warning = warning;
    if (!same) this.onChange();
  }

  stop() {
    this.clearTimer(this.timer);
    this.timer = null;
  }
}
