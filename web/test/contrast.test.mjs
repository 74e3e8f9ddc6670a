// The page's colours, read from tandem.css: every text colour 4.5:1 on every
// surface it is drawn on, text on the accent 4.5:1, the focus rings 3:1
// against every surface (WCAG 1.4.3 and 1.4.11), in light and in dark mode;
// and a ghost's name 4.5:1 on each colour of the server's palette (dom.js
// inkOn). The e2e suites measure the same in Chromium (test_axe.py,
// test_a11y.py); this is the fast check.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { inkOn } from "../js/dom.js";

const text = readFileSync(new URL("../css/tandem.css", import.meta.url), "utf8");

function themes(css) {
  const dark = /@media \(prefers-color-scheme: dark\)\s*\{\s*:root\s*\{([^}]*)\}/.exec(css)?.[1] ?? "";
  const light = /^:root\s*\{([^}]*)\}/m.exec(css)?.[1] ?? "";
  const vars = (block) => Object.fromEntries([...block.matchAll(/(--[\w-]+):\s*([^;]+);/g)].map((m) => [m[1], m[2].trim()]));
  return { light: vars(light), dark: { ...vars(light), ...vars(dark) } };
}

function luminance(colour) {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(colour);
  assert.ok(m, `a #RGB or #RRGGBB colour: ${colour}`);
  const hex = m[1].length === 3 ? [...m[1]].map((c) => c + c).join("") : m[1];
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

const SURFACES = ["--surface", "--surface-2", "--bg"];
const TEXTS = ["--text", "--muted", "--faint-text", "--accent-strong"];

for (const [mode, v] of Object.entries(themes(text))) {
  test(`${mode} mode: text is 4.5:1 on every surface`, () => {
    for (const fg of TEXTS) {
      for (const bg of SURFACES) {
        const ratio = contrast(v[fg], v[bg]);
        assert.ok(ratio >= 4.5, `${fg} ${v[fg]} on ${bg} ${v[bg]}: ${ratio.toFixed(2)}:1`);
      }
    }
    for (const [fg, bg] of [["--accent-strong", "--accent-soft"], ["--warn-text", "--warn-bg"], ["--ok-text", "--ok-bg"], ["--bad-text", "--bad-bg"]]) {
      const ratio = contrast(v[fg], v[bg]);
      assert.ok(ratio >= 4.5, `${fg} on ${bg}: ${ratio.toFixed(2)}:1`);
    }
  });

  test(`${mode} mode: text on the accent (Share, Create room, Join) is 4.5:1`, () => {
    for (const bg of ["--accent", "--accent-strong"]) {
      const ratio = contrast(v["--on-accent"], v[bg]);
      assert.ok(ratio >= 4.5, `--on-accent on ${bg}: ${ratio.toFixed(2)}:1`);
    }
  });

  test(`${mode} mode: focus rings are solid and 3:1 against every surface`, () => {
    for (const ring of ["--focus", "--focus-ring"]) {
      for (const bg of SURFACES) {
        const ratio = contrast(v[ring], v[bg]);
        assert.ok(ratio >= 3, `${ring} ${v[ring]} on ${bg}: ${ratio.toFixed(2)}:1`);
      }
    }
  });
}

test("a ghost's name reads 4.5:1 on every colour of the server's palette", () => {
  // Sources/TandemCore/Room/ClientID.swift
  const palette = ["#E91E63", "#2196F3", "#4CAF50", "#FF9800", "#9C27B0", "#00BCD4", "#F44336", "#3F51B5",
    "#8BC34A", "#FFC107", "#795548", "#607D8B", "#009688", "#F06292", "#673AB7", "#CDDC39", "#1565C0",
    "#FF5722", "#2E7D32", "#BA68C8", "#AD1457", "#4DD0E1", "#8D6E63", "#9E9D24"];
  for (const colour of palette) {
    const ratio = contrast(inkOn(colour), colour);
    assert.ok(ratio >= 4.5, `${inkOn(colour)} on ${colour}: ${ratio.toFixed(2)}:1`);
  }
});
