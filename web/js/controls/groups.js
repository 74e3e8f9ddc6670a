// Cards under their `group` headings: controls without a group first, in
// their order, then one headed block per group in the order each group first
// appears. A room without groups is laid out exactly as before.
//
// Each heading is a disclosure button (`aria-expanded`): it folds its group
// away and back. Which groups a person folded is kept per room (prefs.js),
// so they stay folded after a reload.

import { h } from "../dom.js";

/**
 * The page's children for these cards (each a section, grouped by its data-group).
 * `collapsed`: the names of folded groups; `onToggle(name, collapsed)` is told of every fold.
 */
export function groupCards(sections, { collapsed = new Set(), onToggle = () => {} } = {}) {
  const loose = [];
  const groups = new Map(); // name -> [section]
  for (const section of sections) {
    const name = section.dataset?.group;
    if (!name) {
      loose.push(section);
      continue;
    }
    if (!groups.has(name)) groups.set(name, []);
    groups.get(name).push(section);
  }
  let n = 0;
  const blocks = [...groups].map(([name, cards]) => {
    n += 1;
    const folded = collapsed.has(name);
    const body = h("div", { class: "group-cards", id: `group-cards-${n}`, hidden: folded });
    body.append(...cards);
    const count = h("span", { class: "group-count" }, cards.length === 1 ? "1 control" : `${cards.length} controls`);
    const toggle = h("button", {
      type: "button",
      class: "group-toggle",
      "aria-expanded": folded ? "false" : "true",
      "aria-controls": body.id,
    },
    h("span", { class: "group-chevron", "aria-hidden": "true" }),
    h("span", { class: "group-name" }, name),
    count);
    const block = h("section", { class: "control-group", "data-group": name, "aria-labelledby": `group-${n}` },
      h("h2", { class: "group-heading", id: `group-${n}` }, toggle),
      body);
    block.classList.toggle("collapsed", folded);
    toggle.addEventListener("click", () => {
      const fold = toggle.getAttribute("aria-expanded") === "true";
      toggle.setAttribute("aria-expanded", fold ? "false" : "true");
      body.hidden = fold;
      block.classList.toggle("collapsed", fold);
      onToggle(name, fold);
    });
    return block;
  });
  return [...loose, ...blocks];
}
