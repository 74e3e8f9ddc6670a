// Which pointer drags which thumb (web/js/controls/pointers.js): one thumb per
// finger, one finger per thumb, and a press on the track takes the nearest free thumb.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PointerBook, nearestFreeThumb } from "../js/controls/pointers.js";

test("two fingers drag a range's two thumbs, each its own", () => {
  const book = new PointerBook();
  assert.ok(book.start(1, { thumb: "lower" }));
  assert.ok(book.canStart(2, "upper"));
  assert.ok(book.start(2, { thumb: "upper" }));
  assert.deepEqual([...book.taken()].sort(), ["lower", "upper"]);
  assert.equal(book.get(1).thumb, "lower");
  assert.equal(book.get(2).thumb, "upper");
  // Lifting one finger leaves the other's drag alone.
  assert.equal(book.end(1).thumb, "lower");
  assert.equal(book.get(1), undefined);
  assert.equal(book.get(2).thumb, "upper");
  assert.equal(book.size, 1);
});

test("a second finger on a thumb another finger drags is ignored, and one finger drags one thumb", () => {
  const book = new PointerBook();
  book.start(7, { thumb: "lower" });
  assert.equal(book.canStart(8, "lower"), false);
  assert.equal(book.start(8, { thumb: "lower" }), false);
  assert.equal(book.canStart(7, "upper"), false, "the finger already drags a thumb");
  assert.equal(book.canStart(9, null), false, "no thumb to drag");
  assert.equal(book.end(8), undefined);
  assert.equal(book.get(7).thumb, "lower");
});

test("drags that ended elsewhere free their finger and thumb", () => {
  const book = new PointerBook();
  const live = { thumb: "upper", alive: true };
  const gone = { thumb: "lower", alive: false };
  book.start(1, gone);
  book.start(2, live);
  book.prune((entry) => entry.alive);
  assert.equal(book.get(1), undefined);
  assert.ok(book.canStart(3, "lower"));
  assert.equal(book.canStart(3, "upper"), false);
});

test("a press on the track takes the nearest thumb no other finger has", () => {
  const at = [["lower", 0.25], ["upper", 0.75]];
  assert.equal(nearestFreeThumb(0.1, at), "lower");
  assert.equal(nearestFreeThumb(0.625, at), "upper");
  assert.equal(nearestFreeThumb(0.5, at), "lower", "half-way: the lower one");
  assert.equal(nearestFreeThumb(0.1, at, new Set(["lower"])), "upper");
  assert.equal(nearestFreeThumb(0.9, at, new Set(["upper"])), "lower");
  assert.equal(nearestFreeThumb(0.5, at, new Set(["lower", "upper"])), null);
  // Both thumbs at one place: past them the upper, before them the lower.
  const together = [["lower", 0.5], ["upper", 0.5]];
  assert.equal(nearestFreeThumb(0.7, together), "upper");
  assert.equal(nearestFreeThumb(0.3, together), "lower");
  assert.equal(nearestFreeThumb(0.5, together), "lower");
});
