// Small DOM helpers shared by the views.

const SVG_NS = "http://www.w3.org/2000/svg";

/** An element: h("div", {class: "x", "data-a": 1, onclick: fn}, child, "text", ...). */
export function h(tag, attrs = {}, ...children) {
  return build(document.createElement(tag), attrs, children);
}

/** An SVG element, same shape as h(). */
export function svg(tag, attrs = {}, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

function build(el, attrs, children) {
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value == null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "style" && typeof value === "object") {
      for (const [prop, v] of Object.entries(value)) el.style.setProperty(prop, v);
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  for (const child of children.flat()) {
    if (child == null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Sets an attribute only when it changes (keeps the DOM quiet during drags). */
export function setAttr(el, name, value) {
  const v = String(value);
  if (el.getAttribute(name) !== v) el.setAttribute(name, v);
}

/** Sets text only when it changes. */
export function setText(el, text) {
  const t = String(text);
  if (el.textContent !== t) el.textContent = t;
}

/** Sets a CSS custom property only when it changes. */
export function setVar(el, name, value) {
  const v = String(value);
  if (el.style.getPropertyValue(name) !== v) el.style.setProperty(name, v);
}

/**
 * Black or white, whichever reads better on the colour "#RRGGBB" (a ghost's
 * name on its person's colour). Pure black, not the page's near-black text:
 * on mid colours such as #E91E63 only pure black reaches 4.5:1 (4.8:1; #111827
 * is 4.1:1); on every colour of the server's palette one of the two does.
 */
export function inkOn(hex) {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex ?? "");
  if (!m) return "#fff";
  const lin = (byte) => {
    const c = parseInt(byte, 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * lin(m[1]) + 0.7152 * lin(m[2]) + 0.0722 * lin(m[3]);
  // Contrast against white vs against black.
  return (1.05) / (luminance + 0.05) >= (luminance + 0.05) / 0.05 ? "#fff" : "#000";
}
