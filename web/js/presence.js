// The presence list: each person's colour and name, me marked "you",
// people who just left dimmed "away" until the model drops them. Past the
// server's presence limit not everyone is listed: "+N more" counts the rest.

import { h, setText } from "./dom.js";

export function renderPresence(list, peers, present = null) {
  const items = new Map([...list.children].filter((li) => li.dataset.client).map((li) => [li.dataset.client, li]));
  let more = list.querySelector("li.peer-more");
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
  const listed = peers.filter((p) => !p.away).length;
  const unlisted = unlistedCount(peers, present);
  if (unlisted > 0) {
    if (!more) more = h("li", { class: "peer-more" });
    const meUnlisted = !peers.some((p) => p.me);
    setText(more, `+${unlisted} more`);
    more.title = `${unlisted} more ${unlisted === 1 ? "person" : "people"} here${meUnlisted ? ", you among them" : ""}`;
    list.appendChild(more);
  } else if (more) {
    more.remove();
  }
  const here = listed + unlisted;
  list.setAttribute("aria-label", `${here} ${here === 1 ? "person" : "people"} here`);
}

/** People the server counts as present but does not list (a room past its
 * presence limit), me included when I joined quietly myself. */
export function unlistedCount(peers, present) {
  if (typeof present !== "number") return 0;
  const listed = peers.filter((p) => !p.away).length;
  return Math.max(0, present - listed);
}
