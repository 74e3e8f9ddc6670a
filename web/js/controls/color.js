// A colour picker: a swatch and a hex field, then one track per channel whose
// gradient follows the other two channels live, each with a level field.

import { h, setAttr, setText } from "../dom.js";
import { formatLevel, levelNumber } from "../format.js";
import { COLOR_FORMS, parseColorText } from "../colortext.js";
import { colorChannelFromText, parseNumber, position } from "../math.js";
import { makeCard } from "./card.js";
import { attachDrag } from "./drag.js";
import { bindThumbKeys } from "./keys.js";
import { GhostLayer, makeThumb, makeTrack, updateThumb } from "./track.js";

const CHANNELS = ["red", "green", "blue"];
const NAMES = { red: "Red", green: "Green", blue: "Blue" };

const byte = (level) => Math.round(Math.min(1, Math.max(0, level)) * 255);

/**
 * A text field that commits on Enter or blur and otherwise follows the
 * shown value (unless the person is typing in it). Escape restores.
 * `commit(text)` returns null when it took the text, else why not: the text
 * then stays for the person to fix, the field is `aria-invalid` and the
 * reason shows under it (`error`, named by the field's aria-describedby)
 * until the text is fixed, committed or restored.
 */
function editableField(input, error, commit) {
  let dirty = false;
  let shownText = "";
  const showError = (why) => {
    setText(error, why ?? "");
    error.hidden = why == null;
    if (why == null) input.removeAttribute("aria-invalid");
    else input.setAttribute("aria-invalid", "true");
  };
  const restore = () => {
    dirty = false;
    showError(null);
    input.value = shownText;
  };
  const finish = () => {
    if (!dirty) return;
    const why = commit(input.value);
    showError(why);
    if (why == null) dirty = false;
  };
  input.addEventListener("input", () => { dirty = true; });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      finish();
      input.select();
    } else if (event.key === "Escape") {
      event.preventDefault();
      restore();
    }
  });
  input.addEventListener("blur", finish);
  return {
    show(text) {
      shownText = text;
      if (!dirty && input.value !== text) input.value = text;
    },
  };
}

let fieldErrors = 0;
/** The error line under a field, tied to it by aria-describedby. */
function errorFor(input) {
  fieldErrors += 1;
  const error = h("p", { class: "field-error", id: `field-error-${fieldErrors}`, hidden: true });
  input.setAttribute("aria-describedby", error.id);
  return error;
}

export function createColor(control, { model, actions }) {
  const label = control.label ?? control.id;
  const step = control.step ?? null;

  const swatch = h("div", { class: "swatch", role: "img", "aria-label": "current colour" });
  const hexInput = h("input", {
    class: "hex",
    type: "text",
    spellcheck: "false",
    autocomplete: "off",
    "aria-label": `${label} hex`,
    title: `A colour: ${COLOR_FORMS}`,
  });
  const rgbText = h("span", { class: "rgb-text" });
  const card = makeCard(control);

  const rows = {};
  for (const channel of CHANNELS) {
    const thumb = makeThumb(channel, `${label} ${channel}`);
    const track = makeTrack({ class: "channel-track", "data-thumb": channel }, thumb);
    const input = h("input", {
      class: "level",
      type: "text",
      inputmode: "decimal",
      autocomplete: "off",
      spellcheck: "false",
      "data-channel": channel,
      "aria-label": `${label} ${channel} level`,
    });
    const error = errorFor(input);
    rows[channel] = { thumb, track, input, error };
    rows[channel].field = editableField(input, error, (text) => {
      if (parseNumber(text) === null) return `'${text.trim()}' is not a number: type a level from 0 to 1`; // nothing is sent
      const current = model.shown(control.id)[channel];
      const level = colorChannelFromText(current, text, step);
      actions.set(control.id, channel, level);
      return null;
    });
    attachDrag(track, { controlId: control.id, model, actions, pickThumb: () => channel });
    bindThumbKeys(thumb, { controlId: control.id, thumb: channel, actions, ends: () => [0, 1] });
  }
  const hexError = errorFor(hexInput);
  const hexField = editableField(hexInput, hexError, (text) => {
    const parsed = parseColorText(text);
    if (parsed.error) return parsed.error; // nothing is sent
    actions.setColor(control.id, parsed.hex);
    return null;
  });

  card.add(
    h("div", { class: "color-top" },
      swatch,
      h("div", { class: "hex-box" },
        h("label", { class: "field-label" }, "Hex", hexInput),
        rgbText,
        hexError)),
    h("div", { class: "channels" },
      ...CHANNELS.map((channel) => h("div", { class: `channel-row channel-${channel}` },
        h("span", { class: "channel-name", "aria-hidden": "true" }, NAMES[channel]),
        rows[channel].track,
        rows[channel].input,
        rows[channel].error))),
  );

  const ghosts = new GhostLayer((thumb) => rows[thumb]?.track);

  return {
    section: card.section,
    card,
    update(state, others) {
      const rgb = { red: byte(state.red), green: byte(state.green), blue: byte(state.blue) };
      for (const channel of CHANNELS) {
        const { thumb, track, field } = rows[channel];
        updateThumb(thumb, {
          f: position(control, state, channel),
          now: levelNumber(state[channel]),
          text: formatLevel(state[channel]),
          min: 0,
          max: 1,
        });
        const at = (b) => `rgb(${channel === "red" ? b : rgb.red}, ${channel === "green" ? b : rgb.green}, ${channel === "blue" ? b : rgb.blue})`;
        track.style.setProperty("--from", at(0));
        track.style.setProperty("--to", at(255));
        field.show(formatLevel(state[channel]));
      }
      swatch.style.background = state.hex;
      setAttr(swatch, "aria-label", `current colour ${state.hex}`);
      hexField.show(state.hex);
      setText(rgbText, `rgb(${rgb.red}, ${rgb.green}, ${rgb.blue})`);
      ghosts.update(others, (g) => position(control, g.state, g.thumb));
    },
  };
}
