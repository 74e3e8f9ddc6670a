import assert from "node:assert/strict";
import { test } from "node:test";

import { fitOnOneLine, unlistedCount } from "../js/presence.js";

test("everyone shows when they all fit and nobody is unlisted", () => {
  assert.deepEqual(fitOnOneLine([50, 60, 70], 200, { gap: 6, chip: 40 }), [0, 1, 2]);
});

test("past the line, a chip takes the end and as many as fit beside it are shown", () => {
  // 300 px: chip 40 leaves 260; each entry takes its width plus a 6 px gap.
  assert.deepEqual(fitOnOneLine([100, 100, 100, 100], 300, { gap: 6, chip: 40 }), [0, 1]);
});

test("my own entry is always shown, even far down the list", () => {
  assert.deepEqual(fitOnOneLine([100, 100, 100, 100, 80], 300, { gap: 6, chip: 40, mustShow: 4 }), [0, 4]);
});

test("people the server does not list bring the chip even when the listed ones fit", () => {
  assert.deepEqual(fitOnOneLine([50, 50], 400, { gap: 6, chip: 40, unlisted: 3 }), [0, 1]);
});

test("with no room at all, nobody but the chip, and me", () => {
  assert.deepEqual(fitOnOneLine([100, 100], 60, { gap: 6, chip: 40 }), []);
  assert.deepEqual(fitOnOneLine([100, 100], 60, { gap: 6, chip: 40, mustShow: 1 }), [1]);
});

test("the shown entries never overflow the line, for every width and count", () => {
  for (let n = 0; n <= 41; n++) {
    const widths = Array.from({ length: n }, (_, i) => 60 + ((i * 37) % 90));
    for (let available = 0; available <= 1200; available += 7) {
      const shown = fitOnOneLine(widths, available, { gap: 6, chip: 46, mustShow: n ? n - 1 : -1 });
      const all = shown.length === n;
      const used = shown.reduce((s, i) => s + widths[i] + 6, 0) + (all ? -6 : 46);
      const meAlone = shown.length === 1 && shown[0] === n - 1;
      if (shown.length && !meAlone) assert.ok(used <= available, `n=${n} available=${available} used=${used}`);
      if (n) assert.ok(shown.includes(n - 1), "me always shown");
      assert.deepEqual(shown, [...shown].sort((a, b) => a - b));
    }
  }
});

test("unlisted people are those present beyond the listed, away ones aside", () => {
  assert.equal(unlistedCount([{ away: false }, { away: true }], 3), 2);
  assert.equal(unlistedCount([{ away: false }], null), 0);
});
