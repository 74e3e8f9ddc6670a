// A momentary button: a press commits `step by 1` and the server counts it
// (`{"presses": n}`). The card shows how many presses there have been, and
// flashes whenever the count goes up — anyone's press, not only this page's.

import { h, setText } from "../dom.js";
import { makeCard } from "./card.js";

const FLASH_MS = 600;

export function createButton(control, { actions }) {
  const count = h("span", { class: "press-count value-text" });
  const card = makeCard(control, count);
  const button = h("button", {
    type: "button",
    class: "press-button",
    "data-thumb": "press",
    "aria-describedby": `presses-${control.id}`,
    onclick: () => actions.step(control.id, "press", 1),
  }, control.label ?? control.id);
  const said = h("p", { class: "press-said", id: `presses-${control.id}` });
  card.add(h("div", { class: "press-row" }, button, said));

  let shown = null;
  let timer = 0;
  return {
    section: card.section,
    card,
    valueText: () => String(shown ?? 0),
    update(state) {
      const presses = Number.isInteger(state.presses) ? state.presses : 0;
      if (shown != null && presses > shown) {
        // Restart the flash: a second press during one still shows.
        card.section.classList.remove("pressed");
        void card.section.offsetWidth;
        card.section.classList.add("pressed");
        clearTimeout(timer);
        timer = setTimeout(() => card.section.classList.remove("pressed"), FLASH_MS);
      }
      shown = presses;
      setText(count, `${presses}×`);
      setText(said, presses === 1 ? "pressed once" : presses === 0 ? "not pressed yet" : `pressed ${presses} times`);
      button.disabled = actions.readOnly;
    },
  };
}
