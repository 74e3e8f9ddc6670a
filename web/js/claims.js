// Claims in the page, pure: what a card shows of a control's claim ("only I
// move this until I let go"), what its menu offers, what the answers to
// `claim` and `release` mean, and who claims what for the presence list.
// No DOM; tested under Node (web/test/claims.test.mjs).
//
// `{"type":"claim","seq":n,"control":"cutoff"}` and `{"type":"release",…}`
// (docs/protocol.md, "Claims"): while Ann claims a control, everyone else's
// writes to it are refused `claimed` naming her; every `changes` entry and
// welcome control carries `claim` while someone claims it. A claim ends when
// she releases it, leaves, 5 minutes pass without her touching it, or an
// admin releases it.

import { PendingRequests } from "./requests.js";

/** How long a claim lasts without its holder touching the control (the server's RoomLimits.claimTimeout). */
export const CLAIM_TIMEOUT_MIN = 5;

/** Kinds a person may claim: all but a gauge (a program publishes it: the server says read_only). */
export function claimable(schema) {
  return schema != null && schema.type !== "gauge";
}

/** The holder's name as a person reads it: the peer's name, else "Someone" (a holder this page does not list). */
export function holderName(model, holder) {
  if (holder == null) return null;
  const peer = model.peers?.get(holder);
  return peer?.name || "Someone";
}

/** "Ann's", "James's". */
export function possessive(name) {
  return `${name}’s`;
}

/**
 * What a control's card shows of its claim.
 * @param {{claim: string|null, me: string|null, role: string|null, name: string|null,
 *          label: string, schema?: object, pending?: boolean, canAct?: boolean}} options
 *   claim: the holder's client id; me: my client id; name: the holder's name; pending: a claim
 *   or release of mine on it awaits its answer
 * @returns {{kind: "none"|"mine"|"other", locked: boolean, who: string|null, rest: string, badge: string|null,
 *            title: string|null, item: {text: string, action: "claim"|"release", hidden: boolean, disabled: boolean}}}
 *   kind: nobody, I, someone else claims it; locked: my writes would be refused (`claimed`);
 *   who and rest: the badge in two parts ("Ann" + " has this"), the compact layout shows `who` alone
 */
export function claimView({ claim = null, me = null, role = null, name = null, label, schema = null, pending = false, canAct = true }) {
  const viewer = role === "viewer";
  const canClaim = schema == null || claimable(schema);
  const disabled = !canAct || pending;
  if (claim == null) {
    return {
      kind: "none", locked: false, who: null, rest: "", badge: null, title: null,
      // A momentary button is pressed, not moved.
      item: { text: schema?.type === "button" ? "Claim (only I press it)" : "Claim (only I move it)", action: "claim", hidden: viewer || !canClaim, disabled },
    };
  }
  if (claim === me) {
    return {
      kind: "mine", locked: false, who: "You", rest: " have this", badge: "You have this",
      title: `You claimed ${label}: only you move it until you release it, leave, or leave it untouched for ${CLAIM_TIMEOUT_MIN} minutes`,
      item: { text: "Release claim", action: "release", hidden: false, disabled },
    };
  }
  const who = name || "Someone";
  return {
    kind: "other", locked: true, who, rest: " has this", badge: `${who} has this`,
    title: `${who} claimed ${label}: only ${who} moves it until they let go`,
    // Only an admin may let go of someone else's claim (anyone else's release is refused `claimed`).
    item: { text: `Break ${possessive(who)} claim`, action: "release", hidden: role !== "admin", disabled },
  };
}

/** What a write refused `claimed` says on the card: "Ann has this: only Ann can move it". */
export function claimedText(name) {
  const who = name || "Someone";
  return `${who} has this: only ${who === "Someone" ? "they" : who} can move it`;
}

/** What a refused `claim` or `release` says. */
export function claimRefusal(action, msg, name = null) {
  const what = action === "claim" ? "Not claimed" : "Not released";
  const who = name || "someone else";
  switch (msg?.code) {
    case "busy": return `${what}: ${who} is moving it`;
    case "claimed": return action === "claim" ? `${what}: ${who} has it` : `${what}: only ${who} or an admin can let it go`;
    case "forbidden": return `${what}: your link does not allow changes`;
    case "read_only": return `${what}: this control is read only`;
    case "bad_message": return `${what}: this server does not take claims (${msg.message || msg.code})`;
    default: return `${what}: ${msg?.message || msg?.code || "refused"}`;
  }
}

/** What a `claim` or `release` that went through says on the card. */
export function claimDoneText(request, brokeName = null) {
  if (request.action === "claim") return "Claimed: only you move it now";
  return brokeName ? `Broke ${possessive(brokeName)} claim` : "Released: everyone can move it again";
}

/** What the card says when my claim ended without my release (an admin let it go, or it lapsed). */
export const CLAIM_ENDED_TEXT = `Your claim ended: an admin let it go, or ${CLAIM_TIMEOUT_MIN} minutes passed without a change`;

/** What the card says when my connection dropped while I claimed the control (a claim ends with its connection). */
export const CLAIM_DROPPED_TEXT = "Your claim ended when the connection dropped: claim it again to keep it";

/**
 * `claim` and `release` messages sent and not yet answered: seq -> {action, control, client, holder}
 * (`holder`: whose claim a release let go, for "Broke Ann's claim").
 */
export class ClaimTracker extends PendingRequests {
  sent(seq, action, control, client, holder = null) {
    this.track(seq, { action, control, client, holder });
  }

  /** True while a claim or release of the control awaits its answer. */
  isPending(control) {
    for (const request of this.pending.values()) if (request.control === control) return true;
    return false;
  }
}

/**
 * The controls I claimed before an update and nobody claims after it, which I did not release
 * myself: `before` and `after` are Maps control id -> holder; `released` the ids of my releases
 * the same update answers.
 */
export function endedClaims(before, after, me, released = new Set()) {
  const ended = [];
  for (const [id, holder] of before) {
    if (holder === me && me != null && (after.get(id) ?? null) !== me && !released.has(id)) ended.push(id);
  }
  return ended;
}

/** Who claims what, for the presence list: client id -> [labels], in the room's order. */
export function claimsByPerson(controls) {
  const out = new Map();
  for (const c of controls.values()) {
    if (c.claim == null) continue;
    const list = out.get(c.claim) ?? [];
    list.push(c.schema?.label ?? c.schema?.id ?? "?");
    out.set(c.claim, list);
  }
  return out;
}

/** The presence list's words for what someone claims: "Cutoff", "Cutoff, Gain", "3 controls" (the tooltip names them all). */
export function claimsText(labels) {
  if (!labels?.length) return "";
  if (labels.length <= 2) return labels.join(", ");
  return `${labels.length} controls`;
}
