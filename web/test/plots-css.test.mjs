// The plots' colours, read from the style sheets: the curve, the markers and
// the timeline's cursor stand out from the card and the chart by at least
// 3:1, and the chart's words by 4.5:1, in light and in dark mode (WCAG 2.1,
// 1.4.11 and 1.4.3).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const css = (name) => readFileSync(new URL(`../css/${name}`, import.meta.url), "utf8");

/** The custom properties of `:root`, outside and inside the dark-mode block. */
function themes(text) {
  const dark = /@media \(prefers-color-scheme: dark\)\s*\{\s*:root\s*\{([^}]*)\}/.exec(text)?.[1] ?? "";
  const light = /^:root\s*\{([^}]*)\}/m.exec(text)?.[1] ?? "";
  const vars = (block) => Object.fromEntries([...block.matchAll(/(--[\w-]+):\s*([^;]+);/g)].map((m) => [m[1], m[2].trim()]));
  return { light: vars(light), dark: vars(dark) };
}

function rgb(colour) {
  const hex = /^#([0-9a-f]{6})$/i.exec(colour);
  assert.ok(hex, `a #RRGGBB colour: ${colour}`);
  return [0, 2, 4].map((i) => parseInt(hex[1].slice(i, i + 2), 16) / 255);
}

function luminance(colour) {
  const [r, g, b] = rgb(colour).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

const page = themes(css("tandem.css"));
const plots = themes(css("plots.css"));

for (const mode of ["light", "dark"]) {
  const colours = { ...page.light, ...(mode === "dark" ? page.dark : {}), ...plots.light, ...(mode === "dark" ? plots.dark : {}) };
  test(`${mode} mode: the line, markers and cursor are at least 3:1 against the card and the chart`, () => {
    for (const graphic of ["--plot-line", "--plot-marker", "--plot-cursor"]) {
      for (const background of ["--surface", "--surface-2"]) {
        const ratio = contrast(colours[graphic], colours[background]);
        assert.ok(ratio >= 3, `${graphic} ${colours[graphic]} on ${background} ${colours[background]}: ${ratio.toFixed(2)}:1`);
      }
    }
    // The markers differ from the line by hue and by their dashes, not by lightness.
    assert.notEqual(colours["--plot-marker"], colours["--plot-line"]);
  });
  test(`${mode} mode: the chart's words are at least 4.5:1`, () => {
    for (const [fg, bg] of [["--text", "--surface"], ["--muted", "--surface"], ["--muted", "--surface-2"], ["--text", "--surface-2"], ["--warn-text", "--warn-bg"]]) {
      const ratio = contrast(colours[fg], colours[bg]);
      assert.ok(ratio >= 4.5, `${fg} on ${bg}: ${ratio.toFixed(2)}:1`);
    }
    // The pressed zoom button: white on the light accent, near-black on the dark one.
    const ink = mode === "dark" ? "#111827" : "#ffffff";
    assert.ok(contrast(ink, colours["--accent"]) >= 4.5, `the pressed zoom button's text: ${contrast(ink, colours["--accent"]).toFixed(2)}:1`);
  });
}
