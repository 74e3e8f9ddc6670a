"""axe-core 4 in the e2e browsers: the engine's JavaScript from the PyPI wheel
axe-playwright-python (only its `axe.min.js` is used; Playwright itself is not),
injected into a Selenium page with `execute_script` and run with
`execute_async_script`; light and dark mode through the DevTools protocol's
`Emulation.setEmulatedMedia`.

`violations(page)` runs axe on the page as it is now and returns its
violations; `report(found)` writes them as a person reads them: the rule, its
impact, the elements (CSS selectors) and what is wrong with each.
"""

from __future__ import annotations

import functools
from pathlib import Path

import axe_playwright_python

AXE_JS = Path(axe_playwright_python.__file__).resolve().parent / "axe.min.js"

# WCAG 2.0, 2.1 and 2.2 at levels A and AA, and Deque's best practices.
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa", "best-practice"]


@functools.lru_cache(maxsize=1)
def axe_source() -> str:
    return AXE_JS.read_text(encoding="utf-8")


def axe_version(page) -> str:
    inject(page)
    return page.driver.execute_script("return window.axe.version;")


def inject(page) -> None:
    """Puts axe on the page once (a reload needs it again)."""
    if not page.driver.execute_script("return typeof window.axe === 'object';"):
        page.driver.execute_script(axe_source())  # it sets window.axe


def color_scheme(page, scheme: str) -> None:
    """prefers-color-scheme: `light` or `dark` (the page's CSS follows at once)."""
    page.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "media": "", "features": [{"name": "prefers-color-scheme", "value": scheme}]})
    page.wait(lambda: page.driver.execute_script(
        "return matchMedia(arguments[0]).matches;", f"(prefers-color-scheme: {scheme})"),
        what=f"prefers-color-scheme: {scheme}")


def violations(page, tags: list[str] | None = None, context: str | None = None) -> list[dict]:
    """axe.run() over the document (or the `context` selector): its violations, every impact."""
    inject(page)
    page.frames()  # whatever the page had scheduled to draw is drawn
    result = page.driver.execute_async_script("""
        const [context, tags, done] = arguments;
        window.axe.run(context ?? document, {
          runOnly: {type: "tag", values: tags},
          resultTypes: ["violations"],
        }).then((r) => done({ok: true, violations: r.violations}),
                (e) => done({ok: false, error: String(e && e.stack || e)}));""", context, tags or TAGS)
    assert result["ok"], f"axe.run failed: {result['error']}"
    return result["violations"]


def report(found: list[dict]) -> str:
    """The violations as lines a person can act on."""
    lines = []
    for v in found:
        lines.append(f"- {v['id']} ({v.get('impact') or '?'}): {v['help']}  [{v.get('helpUrl', '')}]")
        for node in v.get("nodes", []):
            target = " ".join(" >> ".join(t) if isinstance(t, list) else t for t in node.get("target", []))
            summary = (node.get("failureSummary") or "").replace("\n", " / ")
            lines.append(f"    {target}: {summary}")
    return "\n".join(lines)
