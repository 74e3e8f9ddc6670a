import assert from "node:assert/strict";
import { test } from "node:test";

import { parseColorText } from "../js/colortext.js";

test("#RGB shorthand doubles each digit", () => {
  assert.deepEqual(parseColorText("#fff"), { hex: "#FFFFFF" });
  assert.deepEqual(parseColorText("#09c"), { hex: "#0099CC" });
});

test("#RRGGBB in any case, with spaces around, comes back upper-case", () => {
  assert.deepEqual(parseColorText("  #00ff7F "), { hex: "#00FF7F" });
});

test("rgb(r, g, b) takes commas or spaces and rounds fractions", () => {
  assert.deepEqual(parseColorText("rgb(255, 0, 10)"), { hex: "#FF000A" });
  assert.deepEqual(parseColorText("RGB(1 2 3)"), { hex: "#010203" });
  assert.deepEqual(parseColorText("rgb(0.4,127.5,0)"), { hex: "#008000" });
});

test("text that is not a colour gets a message saying what is", () => {
  for (const bad of ["abc", "#GGG", "red", "", "#ffff", "#12", "rgb(1,2)", "rgb(300,0,0)", "rgb(-1,0,0)", "12345g"]) {
    const answer = parseColorText(bad);
    assert.equal(answer.hex, undefined, bad);
    assert.match(answer.error, /./, bad);
  }
  assert.match(parseColorText("abc").error, /needs a # in front: #abc/);
  assert.match(parseColorText("#GGG").error, /0–9 and A–F/);
  assert.match(parseColorText("red").error, /colour names are not taken/);
  assert.match(parseColorText("rgb(300,0,0)").error, /0 to 255/);
});
