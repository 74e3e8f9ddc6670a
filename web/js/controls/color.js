// A colour picker: a swatch and a hex field, then one track per channel whose
// gradient follows the other two channels live, each with a level field.

import { h, setAttr, setText } from "../dom.js";
import { formatLevel, levelNumber } from "../format.js";
import { colorChannelFromText, parseHex, parseNumber, position } from "../math.js";
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
 */
function editableField(input, commit) {
  let dirty = false;
  let shownText = "";
  const restore = () => {
    dirty = false;
    input.value = shownText;
  };
  const finish = () => {
    if (!dirty) return;
    dirty = false;
    if (!commit(input.value)) input.value = shownText;
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
    rows[channel] = { thumb, track, input };
    rows[channel].field = editableField(input, (text) => {
      if (parseNumber(text) === null) return false; // not a number: nothing changes
      const current = model.shown(control.id)[channel];
      const level = colorChannelFromText(current, text, step);
      actions.set(control.id, channel, level);
      return true;
    });
    attachDrag(track, { controlId: control.id, model, actions, pickThumb: () => channel });
    bindThumbKeys(thumb, { controlId: control.id, thumb: channel, actions, ends: () => [0, 1] });
  }
  const hexField = editableField(hexInput, (text) => {
    const hex = text.trim();
    if (!parseHex(hex)) return false;
    actions.setColor(control.id, hex.toUpperCase());
    return true;
  });

  card.add(
    h("div", { class: "color-top" },
      swatch,
      h("div", { class: "hex-box" },
        h("label", { class: "field-label" }, "Hex", hexInput),
        rgbText)),
    h("div", { class: "channels" },
      ...CHANNELS.map((channel) => h("div", { class: `channel-row channel-${channel}` },
        h("span", { class: "channel-name", "aria-hidden": "true" }, NAMES[channel]),
        rows[channel].track,
        rows[channel].input))),
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
