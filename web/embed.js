// Tandem controls in any page: custom elements that show a room's live
// controls beside the host page's own content (docs/embedding.md).
//
//   <script type="module" src="http://127.0.0.1:8080/embed.js"></script>
//   <tandem-control room="synth" control="cutoff"></tandem-control>
//   <tandem-room room="synth"></tandem-room>
//
// Attributes: `room` (default "demo"), `control` (<tandem-control> only),
// `server` (the Tandem server's "http(s)://host:port", by default the origin
// this module was loaded from), `token` (when the server requires one),
// `name` (the display name others see), `theme` ("light" or "dark"; by
// default the system's). Elements with the same server, room, token and name
// share one WebSocket.
//
// The cards are the room page's own (js/controls/, one implementation), in a
// shadow root under the server's style sheets: same ARIA, drags, keys, ghosts
// of others' drags, holds, claims and read-only states. Styled from outside
// with --tandem-* custom properties and ::part() (css/embed.css lists them).
//
// Events (bubbling, composed): `tandem-change` {control, value, state,
// preview} whenever a control's shown value moves, `tandem-status` {state,
// text, refusal} whenever the connection's state does. Properties: the
// attributes, `value` (<tandem-control>), `values` (<tandem-room>), `state`,
// `connectionState`, `joined`.
//
// A page on another origin than the server needs the server started with
// --allow-origin THAT_ORIGIN (the WebSocket, and CORS headers on this
// module, the style sheets and the API).

import { joinSession } from "./js/embed/session.js";
import { Mount } from "./js/embed/mount.js";
import { serverOrigin } from "./js/embed/words.js";

/** Where this module was loaded from: the default server, and where the style sheets are. */
const BASE = new URL(".", import.meta.url).href;

const CONNECTION_ATTRIBUTES = ["server", "room", "token", "name"];

class TandemElement extends HTMLElement {
  static get observedAttributes() {
    return [...CONNECTION_ATTRIBUTES, "control", "theme"];
  }

  constructor() {
    super();
    this.mount = null;
    this.reattaching = false;
  }

  connectedCallback() {
    // A property set before this module defined the element is an own property hiding the accessor: pass it on.
    for (const name of [...CONNECTION_ATTRIBUTES, "theme", "control"]) {
      if (!Object.prototype.hasOwnProperty.call(this, name)) continue;
      const value = this[name];
      delete this[name];
      this[name] = value;
    }
    this.attach();
  }

  disconnectedCallback() {
    this.detach();
  }

  attributeChangedCallback(name, before, after) {
    // Before the first attach (an upgrade reports every attribute first) connectedCallback reads them all.
    if (before === after || !this.mount) return;
    if (name === "theme") {
      this.mount.session?.schedule();
      return;
    }
    // Several attributes changed together reconnect once, with all of them.
    if (this.reattaching) return;
    this.reattaching = true;
    queueMicrotask(() => {
      this.reattaching = false;
      if (!this.isConnected) return;
      this.detach();
      this.attach();
    });
  }

  /** The control this element shows (null: the whole room). */
  controlId() {
    return null;
  }

  attach() {
    if (this.mount) return;
    const server = serverOrigin(this.getAttribute("server"), BASE, document.baseURI);
    const room = (this.getAttribute("room") || "demo").trim();
    this.mount = new Mount(this, { base: BASE, controlId: this.controlId() });
    if (server == null) {
      this.mount.refusal({ kind: "bad_server", title: "No Tandem server", detail: `server="${this.getAttribute("server")}" is not an http(s) address.` });
      return;
    }
    this.mount.session = joinSession({
      server,
      room,
      token: this.getAttribute("token")?.trim() || null,
      name: this.getAttribute("name")?.trim() || "",
    }, this.mount);
  }

  detach() {
    const mount = this.mount;
    this.mount = null;
    mount?.session?.remove(mount);
    if (mount) mount.session = null; // its focus tracker sends nothing more
  }

  /** "connecting", "open", "reconnecting" or "closed". */
  get connectionState() {
    return this.mount?.session?.connection.state ?? "connecting";
  }

  /** Once connected: {room, title, role} — the room's id and title, the role the server gave ("editor", "viewer", …); else null. */
  get joined() {
    const model = this.mount?.session?.model;
    return model?.welcomed ? { room: model.room, title: model.title, role: model.role } : null;
  }
}

/** The attributes as properties (`el.room = "synth"` sets the attribute, and reconnects). */
function reflect(cls, names) {
  for (const name of names) {
    Object.defineProperty(cls.prototype, name, {
      configurable: true,
      get() {
        return this.getAttribute(name);
      },
      set(value) {
        if (value == null) this.removeAttribute(name);
        else this.setAttribute(name, String(value));
      },
    });
  }
}
reflect(TandemElement, [...CONNECTION_ATTRIBUTES, "theme"]);

/** <tandem-room room="…">: every control of a room, under its groups' headings. */
class TandemRoom extends TandemElement {
  /** {control id: value} of every control shown. */
  get values() {
    const out = {};
    for (const id of this.mount?.views.keys() ?? []) out[id] = this.mount.valueOf(id);
    return out;
  }

  /** {control id: state} (the wire states) of every control shown. */
  get state() {
    const model = this.mount?.session?.model;
    const out = {};
    for (const id of this.mount?.views.keys() ?? []) out[id] = { ...model.shown(id) };
    return out;
  }
}

/** <tandem-control room="…" control="ID">: one control's card. */
class TandemControl extends TandemElement {
  controlId() {
    return (this.getAttribute("control") || "").trim();
  }

  /** The shown value: a number, a boolean (toggle), "#RRGGBB" (colour), {x, y}, {lower, upper}; null before the welcome. */
  get value() {
    return this.mount?.valueOf() ?? null;
  }

  /** The shown wire state ({value}, {on}, {red, green, blue, hex}, …), or null. */
  get state() {
    const id = this.controlId();
    const state = this.mount?.session?.model.shown(id);
    return state ? { ...state } : null;
  }
}

reflect(TandemControl, ["control"]);

if (!customElements.get("tandem-room")) customElements.define("tandem-room", TandemRoom);
if (!customElements.get("tandem-control")) customElements.define("tandem-control", TandemControl);

export { TandemControl, TandemRoom };
