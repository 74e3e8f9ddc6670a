// What a person may type as a colour: `#RGB`, `#RRGGBB` and `rgb(r, g, b)`
// (levels 0–255, commas or spaces), any case, spaces around. Colour names
// ("red") are not taken: the message says what is. Pure, for web/test.

/** The forms a colour field takes, as the error messages name them. */
export const COLOR_FORMS = "#RGB, #RRGGBB or rgb(r, g, b)";

const hex2 = (n) => n.toString(16).padStart(2, "0").toUpperCase();

/**
 * The colour in `text` as "#RRGGBB", or why it is not one.
 * @returns {{hex: string} | {error: string}}
 */
export function parseColorText(text) {
  const t = String(text ?? "").trim();
  if (t === "") return { error: `Type a colour: ${COLOR_FORMS}` };
  let m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(t);
  if (m) {
    const digits = m[1].length === 3 ? [...m[1]].map((d) => d + d).join("") : m[1];
    return { hex: `#${digits.toUpperCase()}` };
  }
  if (t.startsWith("#")) {
    const body = t.slice(1);
    if (/^[0-9a-f]{4}$|^[0-9a-f]{8}$/i.test(body)) return { error: `'${t}' has transparency, which a colour here cannot have: use ${COLOR_FORMS}` };
    if (/[^0-9a-f]/i.test(body)) return { error: `'${t}' is not a hex colour: use the digits 0–9 and A–F` };
    return { error: `'${t}' is not a hex colour: give 3 or 6 digits (#RGB or #RRGGBB)` };
  }
  m = /^rgba?\s*\((.*)\)$/i.exec(t);
  if (m) {
    const parts = m[1].trim().split(/\s*,\s*|\s+/).filter((p) => p !== "");
    if (parts.length !== 3 || !parts.every((p) => /^\d+(\.\d+)?$/.test(p))) {
      return { error: `'${t}' is not rgb(r, g, b): three levels from 0 to 255` };
    }
    const levels = parts.map(Number);
    if (levels.some((v) => v > 255)) return { error: `'${t}': each level of rgb() goes from 0 to 255` };
    return { hex: `#${levels.map((v) => hex2(Math.round(v))).join("")}` };
  }
  if (/^([0-9a-f]{3}|[0-9a-f]{6})$/i.test(t)) return { error: `'${t}' needs a # in front: #${t}` };
  return { error: `'${t}' is not a colour: use ${COLOR_FORMS} (colour names are not taken)` };
}
