// The presence list: each person's colour and name, me marked "you",
// people who just left dimmed "away" until the model drops them.

import { h, setText } from "./dom.js";

export function renderPresence(list, peers) {
  const items = new Map([...list.children].map((li) => [li.dataset.client, li]));
  let previous = null;
  for (const p of peers) {
    let li = items.get(p.client);
    if (!li) {
      li = h("li", { "data-client": p.client },
        h("span", { class: "peer-dot", "aria-hidden": "true" }),
        h("span", { class: "peer-name" }),
        h("span", { class: "peer-tag" }));
    }
    items.delete(p.client);
    li.style.setProperty("--peer", p.color);
    li.classList.toggle("me", p.me);
    li.classList.toggle("away", p.away);
    setText(li.querySelector(".peer-name"), p.name);
    setText(li.querySelector(".peer-tag"), p.me ? "you" : p.away ? "away" : "");
    li.title = p.me ? `${p.name} (you)` : p.away ? `${p.name} left a moment ago` : p.name;
    const expected = previous ? previous.nextSibling : list.firstChild;
    if (expected !== li) list.insertBefore(li, expected);
    previous = li;
  }
  for (const li of items.values()) li.remove();
  const here = peers.filter((p) => !p.away).length;
  list.setAttribute("aria-label", `${here} ${here === 1 ? "person" : "people"} here`);
}
