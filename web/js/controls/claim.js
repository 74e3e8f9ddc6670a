// A card's claim ("only I move this until I let go", claims.js): the item in
// the card's menu — "Claim (only I move it)", "Release claim", or for an
// admin "Break Ann's claim" —, the lock badge in the header ("Ann has this",
// "You have this") and, while someone else claims the control, the control
// read only for this page: thumbs `aria-disabled`, value fields read only,
// its buttons `aria-disabled`, greyed, and a tooltip naming the holder.
// What is pressed anyway is sent: the server's `claimed` refusal names the
// holder on the card (app.js), and nothing moves meanwhile (drag.js and
// actions.js predict nothing on a control someone else claims).

import { h, setAttr, setText } from "../dom.js";
import { menuItem } from "../menu.js";
import { claimView, holderName } from "../claims.js";

/**
 * @param {{section, card, tools: {menu}}} view
 * @param {object} control  the schema
 * @param {{model, pending: (id: string) => boolean, canAct: () => boolean, inputsLocked: () => boolean,
 *          send: (action: "claim"|"release", id: string, holder: string|null) => void}} ctx
 *   pending: a claim or release of mine on it awaits its answer; inputsLocked: every field is read
 *   only anyway (a viewer, the timeline's past)
 */
export function attachClaim(view, control, ctx) {
  const { model } = ctx;
  const label = control.label ?? control.id;
  const card = view.card;
  const badge = card.claim;
  let shown = null;

  const item = menuItem("Claim (only I move it)", () => {
    if (item.disabled || !shown) return;
    view.tools?.menu.close();
    ctx.send(shown.item.action, control.id, shown.kind === "other" ? model.claimOf(control.id) : null);
  }, { "data-item": "claim" });
  // In the menu, above its actions: who has it and until when ("Ann has this: only Ann moves it…").
  const about = h("p", { class: "menu-claim", hidden: true });
  view.tools?.menu.panel.querySelector(".menu-item")?.before(about);
  view.tools?.menu.panel.append(item);

  /** Draws one attribute only when it changes (this runs on every frame of a drag). */
  const flag = (el, name, on) => {
    if (on) setAttr(el, name, "true");
    else if (el.hasAttribute(name)) el.removeAttribute(name);
  };

  return {
    item,
    /** The claim as drawn: {kind, locked, …} (claims.js claimView). */
    get view() {
      return shown;
    },
    update() {
      const holder = model.claimOf(control.id);
      const v = claimView({
        claim: holder, me: model.client, role: model.role, name: holderName(model, holder), label,
        schema: control, pending: ctx.pending(control.id), canAct: ctx.canAct(),
      });
      shown = v;
      setText(item, v.item.text);
      item.hidden = v.item.hidden;
      item.disabled = v.item.disabled;

      about.hidden = v.kind === "none";
      setText(about, v.kind === "mine" ? v.title : v.kind === "other" ? `${v.badge}: only ${v.who} moves it until they let go` : "");

      badge.hidden = v.badge == null;
      setText(badge.querySelector(".claim-who"), v.who ?? "");
      setText(badge.querySelector(".claim-rest"), v.rest);
      if (badge.title !== (v.title ?? "")) badge.title = v.title ?? "";
      setAttr(badge, "data-claim", v.kind);
      setAttr(badge, "aria-label", v.badge ?? "");
      const section = card.section;
      if (section.dataset.claim !== v.kind) section.dataset.claim = v.kind;

      // Read only while someone else claims it: what would be refused looks it, and says why.
      const body = section.querySelector(".control-body");
      if (body) {
        const tip = v.locked ? v.title : "";
        if ((body.getAttribute("title") ?? "") !== tip) {
          if (tip) body.setAttribute("title", tip);
          else body.removeAttribute("title");
        }
        for (const button of body.querySelectorAll("button")) flag(button, "aria-disabled", v.locked);
      }
      for (const thumb of section.querySelectorAll('[role="slider"]')) {
        flag(thumb, "aria-disabled", v.locked);
        // The lock says who has it to a screen reader too.
        if (thumb.dataset.describedBy == null) thumb.dataset.describedBy = thumb.getAttribute("aria-describedby") ?? "";
        const ids = `${thumb.dataset.describedBy} ${v.locked ? badge.id : ""}`.trim();
        if ((thumb.getAttribute("aria-describedby") ?? "") !== ids) {
          if (ids) thumb.setAttribute("aria-describedby", ids);
          else thumb.removeAttribute("aria-describedby");
        }
      }
      const fieldsLocked = v.locked || ctx.inputsLocked();
      for (const input of section.querySelectorAll("input")) {
        if (input.readOnly !== fieldsLocked) input.readOnly = fieldsLocked;
        // Its tooltip names the holder instead of inviting typing.
        if (input.dataset.title == null) input.dataset.title = input.title ?? "";
        const tip = v.locked ? v.title : input.dataset.title;
        if (input.title !== tip) input.title = tip;
      }
    },
  };
}
