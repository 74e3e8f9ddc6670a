// A colour picker: a swatch and a hex field, then one track per channel whose
// gradient follows the other two channels live, each with a level field
// (field.js: Enter or leaving commits; a level out of range clamps, and the
// note beside it says so, as it says when a level snaps to the step).

import { h, setAttr, setText } from "../dom.js";
import { formatLevel, levelNumber } from "../format.js";
import { COLOR_FORMS, parseColorText } from "../colortext.js";
import { entryFor } from "../entry.js";
import { position } from "../math.js";
import { makeCard } from "./card.js";
import { attachDrag } from "./drag.js";
import { editableField, noteFor } from "./field.js";
import { bindThumbKeys } from "./keys.js";
import { GhostLayer, makeThumb, makeTrack, updateThumb } from "./track.js";

const CHANNELS = ["red", "green", "blue"];
const NAMES = { red: "Red", green: "Green", blue: "Blue" };

const byte = (level) => Math.round(Math.min(1, Math.max(0, level)) * 255);

export function createColor(control, { model, actions }) {
  const label = control.label ?? control.id;

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
    const error = noteFor(input);
    rows[channel] = { thumb, track, input, error };
    rows[channel].field = editableField(input, error, (text) => {
      const entry = entryFor(control, channel, text, model.shown(control.id));
      if (entry.error) return { error: entry.error }; // nothing is sent
      actions.set(control.id, channel, entry.value);
      return { text: entry.text, reason: entry.reason };
    }, { thumb, keys: (event) => rows[channel].keys?.(event) });
    attachDrag(track, { controlId: control.id, model, actions, pickThumb: () => channel });
    rows[channel].keys = bindThumbKeys(thumb, {
      controlId: control.id, thumb: channel, model, actions, ends: () => [0, 1], edit: () => rows[channel].field.edit(),
    });
  }
  const hexError = noteFor(hexInput);
  const hexField = editableField(hexInput, hexError, (text) => {
    const parsed = parseColorText(text);
    if (parsed.error) return { error: parsed.error }; // nothing is sent
    actions.setColor(control.id, parsed.hex);
    return { text: parsed.hex };
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

  let hex = "";

  return {
    section: card.section,
    card,
    fields: { hex: hexField, ...Object.fromEntries(CHANNELS.map((c) => [c, rows[c].field])) },
    valueText: () => hex,
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
      hex = state.hex;
      setText(rgbText, `rgb(${rgb.red}, ${rgb.green}, ${rgb.blue})`);
      ghosts.update(others, (g) => position(control, g.state, g.thumb));
    },
  };
}
