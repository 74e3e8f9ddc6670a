// Claims in the page (web/js/claims.js): what a card and its menu show for
// nobody's, my own and someone else's claim, per role; what the answers say.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ClaimTracker, claimDoneText, claimRefusal, claimView, claimable, claimedText, claimsByPerson, claimsText,
  endedClaims, holderName,
} from "../js/claims.js";

const cutoff = { id: "cutoff", type: "slider", label: "Cutoff" };

test("nobody claims it: no badge, the menu offers a claim to editors and admins, not to viewers", () => {
  const v = claimView({ claim: null, me: "c1", role: "editor", label: "Cutoff", schema: cutoff });
  assert.equal(v.kind, "none");
  assert.equal(v.locked, false);
  assert.equal(v.badge, null);
  assert.deepEqual(v.item, { text: "Claim (only I move it)", action: "claim", hidden: false, disabled: false });
  assert.equal(claimView({ claim: null, me: "c1", role: "viewer", label: "Cutoff", schema: cutoff }).item.hidden, true);
  assert.equal(claimView({ claim: null, me: "c1", role: null, label: "Cutoff", schema: cutoff }).item.hidden, false,
    "a server without auth says nothing of roles: everyone edits");
  assert.equal(claimView({ claim: null, me: "c1", role: "admin", label: "Level", schema: { type: "gauge" } }).item.hidden, true,
    "a gauge is set by its source");
  assert.equal(claimView({ claim: null, me: "c1", label: "Go", schema: { type: "button" } }).item.text, "Claim (only I press it)");
});

test("my claim: 'You have this', the control stays mine to move, the menu releases it", () => {
  const v = claimView({ claim: "c1", me: "c1", role: "editor", label: "Cutoff", schema: cutoff });
  assert.equal(v.kind, "mine");
  assert.equal(v.locked, false);
  assert.equal(v.badge, "You have this");
  assert.equal(v.who + v.rest, "You have this");
  assert.match(v.title, /only you move it/);
  assert.match(v.title, /5 minutes/);
  assert.deepEqual(v.item, { text: "Release claim", action: "release", hidden: false, disabled: false });
});

test("someone else's claim: 'Ann has this', read only for me; only an admin may break it", () => {
  const editor = claimView({ claim: "c2", me: "c1", role: "editor", name: "Ann", label: "Cutoff", schema: cutoff });
  assert.equal(editor.kind, "other");
  assert.equal(editor.locked, true);
  assert.equal(editor.badge, "Ann has this");
  assert.equal(editor.who, "Ann");
  assert.equal(editor.title, "Ann claimed Cutoff: only Ann moves it until they let go");
  assert.equal(editor.item.hidden, true);
  const admin = claimView({ claim: "c2", me: "c1", role: "admin", name: "Ann", label: "Cutoff", schema: cutoff });
  assert.equal(admin.locked, true, "an admin's writes are refused too: breaking the claim comes first");
  assert.deepEqual(admin.item, { text: "Break Ann’s claim", action: "release", hidden: false, disabled: false });
  assert.equal(claimView({ claim: "c9", me: "c1", role: "editor", name: null, label: "Cutoff" }).badge, "Someone has this");
});

test("the menu item waits while a claim or release is answered, and while the page cannot act", () => {
  assert.equal(claimView({ claim: null, me: "c1", label: "Cutoff", pending: true }).item.disabled, true);
  assert.equal(claimView({ claim: "c1", me: "c1", label: "Cutoff", canAct: false }).item.disabled, true);
});

test("words for refusals and answers", () => {
  assert.equal(claimedText("Ann"), "Ann has this: only Ann can move it");
  assert.equal(claimedText(null), "Someone has this: only they can move it");
  assert.equal(claimRefusal("claim", { code: "busy" }, "Ben"), "Not claimed: Ben is moving it");
  assert.equal(claimRefusal("claim", { code: "claimed" }, "Ann"), "Not claimed: Ann has it");
  assert.equal(claimRefusal("release", { code: "claimed" }, "Ann"), "Not released: only Ann or an admin can let it go");
  assert.equal(claimRefusal("claim", { code: "forbidden" }), "Not claimed: your link does not allow changes");
  assert.equal(claimRefusal("claim", { code: "read_only" }), "Not claimed: this control is read only");
  assert.match(claimRefusal("claim", { code: "bad_message", message: "unknown type" }), /does not take claims \(unknown type\)/);
  assert.equal(claimDoneText({ action: "claim" }), "Claimed: only you move it now");
  assert.equal(claimDoneText({ action: "release" }), "Released: everyone can move it again");
  assert.equal(claimDoneText({ action: "release" }, "Ann"), "Broke Ann’s claim");
});

test("the tracker pairs answers with requests, per connection", () => {
  const t = new ClaimTracker();
  t.sent(4, "claim", "cutoff", "c1");
  t.sent(5, "release", "gain", "c1", "c2");
  assert.ok(t.isPending("cutoff"));
  assert.deepEqual(t.rejected({ seq: 5, code: "claimed" }), { action: "release", control: "gain", client: "c1", holder: "c2", seq: 5 });
  assert.equal(t.rejected({ seq: 99 }), null);
  assert.deepEqual(t.acked(4, "c1").map((r) => r.control), ["cutoff"]);
  assert.equal(t.isPending("cutoff"), false);
  t.sent(6, "claim", "cutoff", "c1");
  assert.deepEqual(t.acked(10, "c7"), [], "sent on a connection since lost: nobody knows");
  assert.equal(t.isPending("cutoff"), false);
});

test("a claim of mine that ended without my release is noticed", () => {
  const before = new Map([["cutoff", "c1"], ["gain", "c1"], ["size", "c2"]]);
  const after = new Map([["cutoff", null], ["gain", null], ["size", null]]);
  assert.deepEqual(endedClaims(before, after, "c1", new Set(["gain"])), ["cutoff"]);
  assert.deepEqual(endedClaims(before, new Map(before), "c1"), []);
});

test("who claims what, for the presence list", () => {
  const controls = new Map([
    ["cutoff", { schema: { id: "cutoff", label: "Cutoff" }, claim: "c2" }],
    ["gain", { schema: { id: "gain", label: "Gain" }, claim: null }],
    ["size", { schema: { id: "size", label: "Size" }, claim: "c2" }],
    ["pan", { schema: { id: "pan" }, claim: "c3" }],
  ]);
  const by = claimsByPerson(controls);
  assert.deepEqual(by.get("c2"), ["Cutoff", "Size"]);
  assert.deepEqual(by.get("c3"), ["pan"]);
  assert.equal(claimsText(["Cutoff"]), "Cutoff");
  assert.equal(claimsText(["Cutoff", "Size"]), "Cutoff, Size");
  assert.equal(claimsText(["Cutoff", "Size", "Gain"]), "3 controls");
  assert.equal(claimsText([]), "");
  assert.equal(claimable({ type: "gauge" }), false);
  assert.equal(claimable({ type: "button" }), true);
  const model = { peers: new Map([["c2", { name: "Ann" }]]) };
  assert.equal(holderName(model, "c2"), "Ann");
  assert.equal(holderName(model, "c9"), "Someone");
  assert.equal(holderName(model, null), null);
});
