// Cards under their `group` headings: controls without a group first, in
// their order, then one headed block per group in the order each group first
// appears. A room without groups is laid out exactly as before.

import { h } from "../dom.js";

/** The page's children for these cards (each a section, grouped by its data-group). */
export function groupCards(sections) {
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
    return h("section", { class: "control-group", "data-group": name, "aria-labelledby": `group-${n}` },
      h("h2", { class: "group-heading", id: `group-${n}` }, name),
      h("div", { class: "group-cards" }, cards));
  });
  return [...loose, ...blocks];
}
