// Each control kind's view (one file per kind), by the schema's `type`: the
// room page (app.js) and the embedded elements (web/embed.js) build their
// cards from this one table.

import { createButton } from "./button.js";
import { createColor } from "./color.js";
import { createGauge } from "./gauge.js";
import { createRange } from "./range.js";
import { createSlider } from "./slider.js";
import { createSnap } from "./snap.js";
import { createToggle } from "./toggle.js";
import { createXY } from "./xy.js";

export const VIEWS = {
  slider: createSlider,
  snap: createSnap,
  range: createRange,
  color: createColor,
  gauge: createGauge,
  toggle: createToggle,
  xy: createXY,
  button: createButton,
};
