// What one embedded element draws in its shadow root (web/embed.js): the
// room page's own cards (controls/views.js, tools.js, claim.js, changed.js,
// focus.js) under the server's style sheets, the connection's state, and a
// card saying why when the server refused. A mount shows a whole room
// (<tandem-room>) or one control (<tandem-control control="ID">); the
// connection and the room's model are the session's (session.js), shared by
// every element of the same server, room, token and name.

import { h, setAttr, setText } from "../dom.js";
import { sameState } from "../protocol.js";
import { renderStatus } from "../status.js";
import { renderFocus, setupFocus } from "../focus.js";
import { renderChanged } from "../controls/changed.js";
import { attachClaim } from "../controls/claim.js";
import { groupCards } from "../controls/groups.js";
import { attachTools } from "../controls/tools.js";
import { VIEWS } from "../controls/views.js";
import { controlValue, refusalWords } from "./words.js";

/** The server's style sheets the cards need, in the page's order, then the embed's own. */
export const STYLESHEETS = ["css/tandem.css", "css/kinds.css", "css/tools.css", "css/claims.css", "css/focus.css", "css/a11y.css", "css/embed.css"];

/** `part` names for what the host page may style (docs/embedding.md), by selector. */
const PARTS = [
  ["section.control", "control"],
  [".control-head", "header"],
  [".control-label", "label"],
  [".control-value", "value"],
  [".value-field", "value-field"],
  [".control-description", "description"],
  [".control-body", "body"],
  [".track", "track"],
  [".rail", "rail"],
  [".fill", "fill"],
  ['[role="slider"]', "thumb"],
  [".xy-knob", "thumb"],
  [".toggle-switch", "switch"],
  [".press-button", "button"],
  [".xy-pad", "pad"],
  [".gauge-linear", "meter"],
  [".control-changed", "changed"],
  [".card-menu-button", "menu-button"],
  [".control-group", "group"],
  [".group-heading", "group-heading"],
];

function markParts(root, selectorsOnly = PARTS) {
  for (const [selector, name] of selectorsOnly) {
    for (const el of root.querySelectorAll(selector)) if (!el.part.contains(name)) el.part.add(name);
  }
}

const GHOST_PART = [[".ghost", "ghost"]];

/** Style sheets adopted by every shadow root: hidden until the linked sheets are in (no flash of unstyled cards). */
let bootSheet = null;
function boot() {
  if (!bootSheet && typeof CSSStyleSheet === "function" && "replaceSync" in CSSStyleSheet.prototype) {
    bootSheet = new CSSStyleSheet();
    bootSheet.replaceSync(":host { display: block; } :host([hidden]) { display: none; } .tandem-root:not(.styled) { visibility: hidden; }");
  }
  return bootSheet;
}

export class Mount {
  /**
   * @param {HTMLElement} host  the custom element
   * @param {{base: string, controlId?: string|null}} options
   *   base: where the module came from (the style sheets are beside it); controlId: one control, else the whole room
   */
  constructor(host, { base, controlId = null }) {
    this.host = host;
    this.controlId = controlId;
    this.views = new Map();
    this.builtFrom = "";
    this.readOnlyShown = null;
    this.collapsed = new Set();
    this.sent = new Map(); // control id -> {state, preview} last told in a tandem-change
    this.statusSent = "";
    this.session = null;

    const shadow = host.shadowRoot ?? host.attachShadow({ mode: "open" });
    const sheet = boot();
    if (sheet) shadow.adoptedStyleSheets = [sheet];
    const links = STYLESHEETS.map((path) => h("link", { rel: "stylesheet", href: new URL(path, base).href }));
    this.root = h("div", { class: `tandem-root ${controlId == null ? "tandem-room" : "tandem-single"}`, part: "root" });
    let waiting = links.length;
    const loaded = () => {
      waiting -= 1;
      if (waiting === 0) this.root.classList.add("styled");
    };
    for (const link of links) {
      link.addEventListener("load", loaded, { once: true });
      link.addEventListener("error", loaded, { once: true });
    }
    if (!sheet) this.root.classList.add("styled");

    this.status = h("span", { class: "embed-status", part: "status", role: "status", "aria-live": "polite", "data-state": "connecting" },
      h("span", { class: "connection-dot", "aria-hidden": "true" }),
      h("span", { class: "connection-text" }, "connecting…"));
    this.hint = h("p", { class: "embed-hint", part: "hint", hidden: true });
    this.controls = h("div", { class: "controls", part: "controls", "aria-busy": "true" });
    if (controlId == null) {
      this.title = h("h2", { class: "embed-title", part: "title" }, "Tandem");
      this.root.append(h("div", { class: "embed-head", part: "header" }, this.title, this.status), this.hint, this.controls);
    } else {
      this.title = null;
      this.root.append(this.hint, this.controls);
    }
    this.skeleton();
    shadow.replaceChildren(...links, this.root);
    this.shadow = shadow;
    // Where this person is: their focus on a card here goes to the others (as the page's).
    this.focus = setupFocus({ send: (control) => this.session?.actions.focus(control) ?? false, doc: shadow });
  }

  /** A new connection knows nothing of this element's focus: say it again. */
  welcome() {
    this.focus.welcome();
  }

  /** Placeholder cards while connecting (the status sits in the single control's). */
  skeleton() {
    const card = () => h("div", { class: "skeleton-card", "aria-hidden": "true" },
      h("div", { class: "sk sk-title" }), h("div", { class: "sk sk-track" }), h("div", { class: "sk sk-line short" }));
    this.controls.setAttribute("aria-busy", "true");
    if (this.controlId == null) {
      this.controls.replaceChildren(card(), card());
    } else {
      const holder = h("div", { class: "skeleton-card embed-skeleton" },
        h("div", { class: "embed-skeleton-head" }, h("div", { class: "sk sk-title", "aria-hidden": "true" }), this.status),
        h("div", { class: "sk sk-track", "aria-hidden": "true" }), h("div", { class: "sk sk-line short", "aria-hidden": "true" }));
      this.controls.replaceChildren(holder);
    }
    this.views = new Map();
    this.builtFrom = "";
  }

  /** Builds the cards from the session's model (again only when the schema changed). */
  build() {
    const { model } = this.session;
    const ids = this.controlId == null ? [...model.controls.keys()] : [this.controlId];
    const signature = JSON.stringify(ids.map((id) => model.controls.get(id)?.schema ?? null));
    if (signature === this.builtFrom && (this.views.size || this.controlId == null)) return;
    this.builtFrom = signature;
    this.views = new Map();
    this.sent = new Map();
    const sections = [];
    for (const id of ids) {
      const c = model.controls.get(id);
      const create = c && VIEWS[c.schema.type];
      if (!create) continue;
      // One control alone is not under its group's heading: its title is an h2, not a group's h3.
      const schema = this.controlId == null ? c.schema : { ...c.schema, group: undefined };
      const view = create(schema, { model, actions: this.session.actions });
      view.tools = attachTools(view, schema, this.session.toolsContext);
      view.claim = attachClaim(view, schema, this.session.claimContext);
      this.views.set(id, view);
      sections.push(view.section);
    }
    this.controls.removeAttribute("aria-busy");
    if (this.controlId != null) {
      const view = this.views.get(this.controlId);
      if (!view) {
        this.refusal({ kind: "unknown_control", ...refusalWords("unknown_control", { room: this.session.room, control: this.controlId }) });
        this.builtFrom = signature;
        return;
      }
      view.card.head.querySelector(".control-title")?.append(this.status);
      this.controls.replaceChildren(view.section);
    } else if (sections.length === 0) {
      this.controls.replaceChildren(h("p", { class: "empty" }, "This room has no controls yet."));
    } else {
      this.controls.replaceChildren(...groupCards(sections, {
        collapsed: this.collapsed,
        onToggle: (group, folded) => (folded ? this.collapsed.add(group) : this.collapsed.delete(group)),
      }));
    }
    markParts(this.controls);
    this.readOnlyShown = null;
  }

  /** The card that says why there is nothing to show (refused, no such room or control). */
  refusal({ kind, title, detail }) {
    if (this.controls.querySelector(`.notice-card[data-kind="${kind}"]`)) return;
    this.views = new Map();
    this.builtFrom = "";
    const card = h("section", { class: "notice-card", "data-kind": kind, role: "alert", part: "refusal" },
      h("h2", {}, title), h("p", {}, detail));
    if (this.controlId != null) card.append(h("div", { class: "embed-refusal-status" }, this.status));
    this.controls.replaceChildren(card);
    this.controls.removeAttribute("aria-busy");
  }

  /** A viewer's controls: thumbs aria-readonly, fields readonly (buttons are disabled by their views). */
  markReadOnly(readOnly) {
    if (readOnly === this.readOnlyShown) return;
    this.readOnlyShown = readOnly;
    this.root.classList.toggle("read-only", readOnly);
    for (const thumb of this.controls.querySelectorAll('[role="slider"]')) {
      if (readOnly) thumb.setAttribute("aria-readonly", "true");
      else thumb.removeAttribute("aria-readonly");
    }
    for (const input of this.controls.querySelectorAll("input")) input.readOnly = readOnly;
  }

  /** The colour scheme: the `theme` attribute (light, dark), else the system's. */
  theme() {
    const asked = this.host.getAttribute("theme");
    if (asked === "light" || asked === "dark") return asked;
    return globalThis.matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }

  render(now) {
    const session = this.session;
    if (!session) return;
    const { model, connection } = session;
    const situation = session.situation(now);
    setAttr(this.root, "data-theme", this.theme());
    renderStatus(this.status, connection, session.room, now, situation.status ? { status: situation.status } : null);
    this.status.title = situation.hint ?? "";
    this.hint.hidden = situation.hint == null;
    setText(this.hint, situation.hint ?? "");
    this.root.classList.toggle("stale", connection.everOpen && connection.state !== "open");
    this.root.classList.toggle("closed", connection.state === "closed");
    this.tellStatus(situation);
    if (this.title) setText(this.title, model.title ?? session.room);
    if (situation.refusal) {
      this.refusal(situation.refusal);
      return;
    }
    if (model.welcomed && !this.builtFrom) this.build();
    this.markReadOnly(model.readOnly);
    for (const [id, view] of this.views) {
      const state = model.shown(id);
      if (state) view.update(state, model.ghostsOf(id));
    }
    renderChanged(this.views, model, now);
    for (const view of this.views.values()) {
      view.tools?.update();
      view.claim?.update();
    }
    renderFocus(this.views, model.peerList());
    markParts(this.controls, GHOST_PART);
    this.tellChanges();
  }

  /** `tandem-status` on the element when the connection's state or words change. */
  tellStatus(situation) {
    const text = this.status.querySelector(".connection-text")?.textContent ?? "";
    const said = `${situation.state} ${text} ${situation.refusal?.kind ?? ""}`;
    if (said === this.statusSent) return;
    this.statusSent = said;
    this.host.dispatchEvent(new CustomEvent("tandem-status", {
      bubbles: true,
      composed: true,
      detail: { state: situation.state, text, refusal: situation.refusal?.kind ?? null },
    }));
  }

  /**
   * `tandem-change` on the element for each control whose shown state moved:
   * {control, value, state, preview} — preview true while what is shown is
   * not committed (a live drag here or elsewhere, a write awaiting its ack).
   */
  tellChanges() {
    const { model } = this.session;
    for (const id of this.views.keys()) {
      const state = model.shown(id);
      if (!state) continue;
      const preview = !sameState(state, model.committed(id));
      const last = this.sent.get(id);
      if (last && last.preview === preview && sameState(last.state, state)) continue;
      this.sent.set(id, { state: { ...state }, preview });
      const schema = model.schema(id);
      this.host.dispatchEvent(new CustomEvent("tandem-change", {
        bubbles: true,
        composed: true,
        detail: { control: id, value: controlValue(schema, state), state: { ...state }, preview },
      }));
    }
  }

  /** The shown value of a control (the single control's by default), as `tandem-change` gives it. */
  valueOf(id = this.controlId) {
    const model = this.session?.model;
    if (!model || id == null) return null;
    return controlValue(model.schema(id), model.shown(id));
  }
}
