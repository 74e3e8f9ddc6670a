"""What axe does not measure, measured in Chromium from the page's computed
styles and geometry, in light and dark mode:

- every kind of focusable element shows a focus ring of at least 3:1 against
  what is around it, at least 2 px wide (WCAG 1.4.11: the soft 28 % rings of
  old were 1.5:1);
- tabbing upwards (Shift+Tab) never leaves the focused element under the
  sticky header, at desktop and phone width (2.4.11, focus not obscured), and
  the page's scroll-padding follows the header's height;
- "Back to live" and "Restore this moment" leave the focus on the timeline's
  slider rather than on the page's body;
- every visible target is at least 24 × 24 px (2.5.8), and at least 44 × 44 px
  on a touch screen (`(pointer: coarse)`, DevTools touch emulation), on the
  demo and synth rooms (with the gauge's chart open), their Share dialog and
  room menu, the lobby and the name prompt.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from . import axe

ROOT = Path(__file__).resolve().parents[2]
SYNTH = json.loads((ROOT / "examples" / "synth.json").read_text())
SCHEMES = ["light", "dark"]

# The page's focus indicator of an element, from its computed styles focused and not: the outline
# and the box-shadow rings (offset 0, spread > 0) of the element, of its ::before (the thumbs draw
# their knob there) and, for a pad's two sliders, of the knob's ::before. Each ring that the focus
# adds is measured against the colour behind the element (its ancestors' backgrounds composited):
# the best one is returned with its width.
INDICATOR_JS = r"""
const el = arguments[0];
const parseColor = (text) => {
  let m = /rgba?\(([^)]+)\)/.exec(text);
  if (m) {
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  }
  m = /color\(srgb ([^)]+)\)/.exec(text);
  if (m) {
    const p = m[1].split(/[\s\/]+/).filter(Boolean).map(Number);
    return [p[0] * 255, p[1] * 255, p[2] * 255, p.length > 3 ? p[3] : 1];
  }
  return null;
};
const over = (top, under) => {
  const a = top[3];
  return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat([1]);
};
const lum = (c) => {
  const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
};
const contrast = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
const behind = (node) => {
  const chain = [];
  for (let n = node.parentElement; n; n = n.parentElement) chain.unshift(n);
  let color = [255, 255, 255, 1];
  for (const n of chain) {
    const c = parseColor(getComputedStyle(n).backgroundColor);
    if (c && c[3] > 0) color = over(c, color);
  }
  return color;
};
const splitList = (text) => text === "none" ? [] : text.split(/,(?![^(]*\))/).map((s) => s.trim());
const rings = (node, pseudo) => {
  const cs = getComputedStyle(node, pseudo);
  const parts = [];
  if (cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) > 0) {
    parts.push({kind: `outline${pseudo || ""}`, color: cs.outlineColor, width: parseFloat(cs.outlineWidth), inset: false});
  }
  let above = 0;
  for (const shadow of splitList(cs.boxShadow)) {
    const color = /^(rgba?\([^)]*\)|color\([^)]*\))/.exec(shadow)?.[0] ?? "";
    const nums = shadow.replace(color, "").replace("inset", "").trim().split(/\s+/).map(parseFloat);
    const [x, y, blur, spread] = [nums[0] || 0, nums[1] || 0, nums[2] || 0, nums[3] || 0];
    if (x === 0 && y === 0 && spread > 0) {
      const width = spread - above;
      if (width > 0) parts.push({kind: `box-shadow${pseudo || ""}`, color, width, inset: shadow.includes("inset"), blur});
      above = Math.max(above, spread);
    }
  }
  return parts;
};
const hosts = [[el, null], [el, "::before"]];
// A radio or checkbox in a label: the label draws the ring.
if ((el.type === "radio" || el.type === "checkbox") && el.closest("label")) hosts.push([el.closest("label"), null]);
const knob = el.classList.contains("xy-slider") ? el.closest(".xy-knob") : null;
if (knob) hosts.push([knob, "::before"]);
const all = () => hosts.flatMap(([n, p]) => rings(n, p).map((r) => ({...r, key: JSON.stringify(r)})));
el.blur();
for (const animation of document.getAnimations()) if (animation instanceof CSSTransition) animation.finish();
const resting = new Set(all().map((r) => r.key));
el.focus({focusVisible: true});
// The rings' transitions to their end: what a person sees once the focus has settled.
for (const animation of document.getAnimations()) if (animation instanceof CSSTransition) animation.finish();
const visible = el.matches(":focus-visible");
const label = (el.type === "radio" || el.type === "checkbox") ? el.closest("label") : null;
const bg = behind(knob ?? label ?? el);
const own = parseColor(getComputedStyle(el).backgroundColor) ?? [0, 0, 0, 0];
const added = all().filter((r) => !resting.has(r.key)).map((r) => {
  const c = parseColor(r.color);
  const base = r.inset && own[3] > 0 ? over(own, bg) : bg;
  const ratio = c ? contrast(over(c, base), base) : 0;
  return {kind: r.kind, color: r.color, width: r.width, ratio: Math.round(ratio * 100) / 100, blur: r.blur || 0};
});
const best = added.filter((r) => r.width >= 2 && !r.blur).sort((a, b) => b.ratio - a.ratio)[0] ?? null;
return {visible, best, added, focused: document.activeElement === el};
"""

DEMO_FOCUSABLES = [
    ('[data-control="gain"] [role="slider"]', "a slider's thumb"),
    ('[data-control="blanks"] [role="slider"][data-thumb="upper"]', "a range's thumb"),
    ('[data-control="size"] [role="slider"]', "a snap's thumb"),
    ('.channel-track [role="slider"]', "a colour channel's thumb"),
    ("input.hex", "the hex field"),
    ("input.level", "a colour level field"),
    ('[data-control="gain"] .value-field', "a value field"),
    (".step-button", "a snap's Smaller button"),
    ('[data-control="gain"] .menu-button', "a card's menu button"),
    ("#share", "Share"),
    (".layout-toggle", "Compact"),
    (".room-menu-button", "the room's menu"),
    (".peer-rename", "the rename pencil"),
    ("#timeline-slider", "the timeline"),
    (".preset-input", "the preset name field"),
    (".skip-link", "the skip link"),
]
SYNTH_FOCUSABLES = [
    ('.xy-slider[data-axis="x"]', "the pad's x slider"),
    (".toggle-switch", "a toggle"),
    (".press-button", "a momentary button"),
    (".group-toggle", "a group heading"),
    ('[data-control="cutoff"] [role="slider"]', "a log slider's thumb"),
    ('[data-control="level"] .chart-open', "a gauge's Chart button"),
]
CHART_FOCUSABLES = [
    (".chart-zoom-button", "the chart's span buttons"),
    (".chart-svg", "the chart's plot"),
    (".chart-change", "a change listed under the chart"),
    (".chart-close", "the chart's close button"),
]
LOBBY_FOCUSABLES = [
    (".room-link", "a room's link"),
    ("#room-id-input", "the room id field"),
    ("#room-title-input", "the title field"),
    ('input[name="layout"]', "a layout choice"),
    (".mode-button", "Form | JSON"),
    ('.control-editor [data-key="type"]', "a control's kind"),
    ('.control-editor [data-key="min"]', "a control's field"),
    (".ce-preview-box [role=\"slider\"]", "a preview's thumb"),
    (".ce-remove", "Remove"),
    (".ce-add", "Add a control"),
    ('#new-room-form button[type="submit"]', "Create room"),
]


def keyboard_modality(page) -> None:
    """A key press first, as a person tabbing would (focus rings are for keyboard focus)."""
    ActionChains(page.driver).send_keys(Keys.SHIFT).perform()


def weak_rings(page, focusables) -> list[str]:
    keyboard_modality(page)
    problems = []
    for css, what in focusables:
        element = page.find(css)
        page.scroll_to(element)
        found = page.driver.execute_script(INDICATOR_JS, element)
        best = found["best"]
        if not found["focused"] or not found["visible"]:
            problems.append(f"{what} ({css}): not focused with :focus-visible ({found})")
        elif best is None or best["ratio"] < 3:
            problems.append(f"{what} ({css}): focus ring {best or 'none'} (everything the focus adds: {found['added']})")
    return problems


def synth_with_history(server) -> None:
    """The synth room, its gauge and cutoff changed a few times (a chart with a curve and marks)."""
    status, body = server.request("POST", "/api/rooms", SYNTH)
    assert status == 201, (status, body)
    for level, cutoff in ((-20, 440), (-6, 880)):
        server.put("level", level, room="synth")
        server.put("cutoff", cutoff, room="synth")


def open_chart(page) -> None:
    """Opens the Output level gauge's chart (and waits for its list of changes)."""
    if page.driver.execute_script("return !!document.querySelector('.chart-panel:not([hidden])');"):
        return
    button = page.find('[data-control="level"] .chart-open')
    page.scroll_to(button).click()
    page.wait(lambda: page.find(".chart-panel").is_displayed(), what="the chart")
    page.wait(lambda: page.exists(".chart-change"), what="the changes under the chart")


@pytest.mark.tandem_data("file")
@pytest.mark.parametrize("scheme", SCHEMES)
def test_focus_rings_have_3_to_1_contrast(browser, server, scheme):
    server.put("gain", 0.25)
    synth_with_history(server)
    page = browser("Ann")
    page.wait(lambda: page.find("section.timeline").is_displayed(), what="the timeline")
    axe.color_scheme(page, scheme)
    problems = weak_rings(page, DEMO_FOCUSABLES)
    page.driver.get(f"{server.http}/?room=synth&name=Ann")
    page.wait_open()
    axe.color_scheme(page, scheme)
    problems += weak_rings(page, SYNTH_FOCUSABLES)
    open_chart(page)
    problems += weak_rings(page, CHART_FOCUSABLES)
    page.driver.get(f"{server.http}/")
    page.wait(lambda: page.find("#new-room").is_displayed(), what="the New room form")
    axe.color_scheme(page, scheme)
    problems += weak_rings(page, LOBBY_FOCUSABLES)
    assert not problems, f"focus rings under 3:1 ({scheme}):\n" + "\n".join(problems)


# -- focus not obscured by the sticky header

FOCUS_RECTS_JS = """
const header = document.querySelector(".topbar").getBoundingClientRect();
const focused = document.activeElement.getBoundingClientRect();
return {header: header.bottom, top: focused.top, bottom: focused.bottom, height: innerHeight,
        padding: getComputedStyle(document.documentElement).scrollPaddingTop};
"""


def tab_upwards_through(page, count: int) -> list[str]:
    """From the page's last focusable element, Shift+Tab `count` times; each time the focused
    element must stand clear of the header (entirely below its bottom edge)."""
    page.driver.execute_script("""
        const all = [...document.querySelectorAll('#controls [tabindex="0"], #controls button, #controls input')]
          .filter((e) => e.getClientRects().length && !e.disabled);
        all[all.length - 1].focus();""")
    keyboard_modality(page)
    hidden = []
    for _ in range(count):
        ActionChains(page.driver).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
        page.frames(1)
        r = page.driver.execute_script(FOCUS_RECTS_JS)
        name = page.driver.execute_script(
            "const a = document.activeElement; return a.getAttribute('aria-label') || a.textContent.trim().slice(0, 30) || a.tagName;")
        if page.driver.execute_script("return !document.activeElement.closest('#controls, .timeline');"):
            break  # out of the controls and the timeline: into the header, or the skip link over it
        if r["top"] < r["header"] - 0.5:
            hidden.append(f"{name!r}: top {r['top']:.0f} px is under the header (bottom {r['header']:.0f} px)")
    return hidden


@pytest.mark.parametrize("size", [(1280, 900, False), (390, 844, True)], ids=["desktop", "phone"])
def test_tabbing_upwards_never_leaves_the_focus_under_the_sticky_header(browser, server, size):
    status, body = server.request("POST", "/api/rooms", SYNTH)
    assert status == 201, (status, body)
    page = browser("Ann", room="synth")
    page.set_viewport(*size)
    header = page.driver.execute_script("return document.querySelector('.topbar').getBoundingClientRect().height;")
    padding = page.wait(lambda: page.driver.execute_script(FOCUS_RECTS_JS)["padding"], what="scroll-padding-top")
    assert padding.endswith("px") and float(padding.removesuffix("px")) >= header, \
        f"scroll-padding-top {padding}: less than the header's {header} px"
    hidden = tab_upwards_through(page, 40)
    assert not hidden, "focus hidden by the sticky header:\n" + "\n".join(hidden)


# -- the focus after Back to live and Restore

def view_the_past(page) -> None:
    slider = page.find("#timeline-slider")
    page.focus(slider)
    page.keys(Keys.ARROW_LEFT)
    page.wait(lambda: page.find(".timeline-banner").is_displayed(), what="the banner of the past")
    page.wait(lambda: "revision" in page.find(".timeline-detail").text, what="the moment loaded")


def focus_after(page, button_css: str) -> str:
    button = page.find(button_css)
    page.focus(button)
    page.keys(Keys.ENTER)
    page.wait(lambda: not page.find(".timeline-banner").is_displayed(), what="the banner gone")
    page.frames()
    return page.driver.execute_script("const a = document.activeElement; return a.id || a.tagName.toLowerCase();")


@pytest.mark.tandem_data("file")
def test_back_to_live_and_restore_leave_the_focus_on_the_timeline(browser, server):
    server.put("gain", 0.25)
    server.put("gain", 0.75)
    page = browser("Ann")
    page.wait(lambda: page.find("section.timeline").is_displayed(), what="the timeline")
    view_the_past(page)
    assert focus_after(page, ".timeline-banner .timeline-button:not(.timeline-restore)") == "timeline-slider"
    view_the_past(page)
    assert focus_after(page, ".timeline-restore") == "timeline-slider"
    server.wait_state("gain", lambda s: abs(s["value"] - 0.25) < 1e-9, what="the restored 0.25")


# -- target sizes

TARGETS_JS = r"""
const [least, within] = arguments;
const sel = 'a[href], button, input, select, textarea, summary, [role="slider"], [role="switch"], [tabindex="0"]';
const small = [];
for (const el of document.querySelector(within).querySelectorAll(sel)) {
  if (el.disabled || el.closest("[hidden], [inert]") || el.getClientRects().length === 0) continue;
  const style = getComputedStyle(el);
  if (style.visibility === "hidden" || el.classList.contains("sr-only") || el.classList.contains("skip-link")) continue;
  const dialog = el.closest("dialog");
  if (dialog && !dialog.open) continue;
  if (document.querySelector("dialog[open]") && !dialog) continue;  // inert behind a modal dialog
  // A control inside a label: the label is the target (a checkbox and its words).
  const host = el.type === "checkbox" || el.type === "radio" ? (el.closest("label") ?? el) : el;
  const r = host.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) continue;
  if (Math.round(r.width) < least || Math.round(r.height) < least) {
    const name = el.getAttribute("aria-label") || el.id || el.className || el.tagName;
    small.push(`${el.tagName.toLowerCase()} ${JSON.stringify(String(name).slice(0, 40))}: ${Math.round(r.width)}×${Math.round(r.height)}`);
  }
}
return small;
"""


def small_targets(page, least: int, within: str = "body") -> list[str]:
    page.frames()
    return page.driver.execute_script(TARGETS_JS, least, within)


def touch(page) -> None:
    page.driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    page.wait(lambda: page.driver.execute_script("return matchMedia('(pointer: coarse)').matches;"),
              what="(pointer: coarse)")


@pytest.mark.tandem_data("file")
@pytest.mark.parametrize("pointer", ["fine", "coarse"])
def test_targets_are_24_px_and_44_px_on_a_touch_screen(browser, server, ws_client, pointer):
    least = 44 if pointer == "coarse" else 24
    server.put("gain", 0.25)
    synth_with_history(server)
    ws_client("Bob")
    page = browser("Ann")
    if pointer == "coarse":
        touch(page)
    problems = []
    for room in ("demo", "synth"):
        if room != "demo":
            page.driver.get(f"{server.http}/?room={room}&name=Ann")
            page.wait_open()
        page.wait(lambda: page.find("section.timeline").is_displayed(), what="the timeline")
        if room == "synth":
            open_chart(page)
        for width, height, mobile, size in ((1280, 900, False, "desktop"), (390, 844, True, "phone")):
            page.set_viewport(width, height, mobile)
            problems += [f"{room}, {size}: {t}" for t in small_targets(page, least)]
            page.find("#share").click()
            page.wait(lambda: page.exists("dialog.share-dialog[open]"), what="the Share dialog")
            problems += [f"{room}, {size}, Share: {t}" for t in small_targets(page, least)]
            page.keys(Keys.ESCAPE)
            page.wait(lambda: not page.exists("dialog.share-dialog[open]"), what="the Share dialog closed")
            page.find(".room-menu-button").click()
            page.wait(lambda: page.find(".room-menu-button").get_attribute("aria-expanded") == "true", what="the menu")
            problems += [f"{room}, {size}, room menu: {t}" for t in small_targets(page, least, within=".topbar")]
            page.keys(Keys.ESCAPE)
    page.driver.get(f"{server.http}/")
    page.wait(lambda: page.find("#new-room").is_displayed(), what="the New room form")
    for width, height, mobile, size in ((1280, 900, False, "desktop"), (390, 844, True, "phone")):
        page.set_viewport(width, height, mobile)
        problems += [f"lobby, {size}: {t}" for t in small_targets(page, least)]
    page.driver.get(f"{server.http}/?room=demo&name=")
    page.wait(lambda: page.exists("dialog.name-dialog[open]"), what="the name prompt")
    problems += [f"name prompt: {t}" for t in small_targets(page, least)]
    assert not problems, f"targets under {least} px ({pointer} pointer):\n" + "\n".join(sorted(set(problems)))
