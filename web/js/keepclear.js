// Keeps the focus clear of what is fixed to the screen (WCAG 2.4.11, focus not
// obscured): the sticky header and the timeline's banner. How much of the
// window each covers goes into a custom property on <html> (`--header-height`,
// `--banner-height`) that a11y.css turns into the page's scroll-padding, so a
// focused element scrolled into view — by Tab, Shift+Tab or a script's
// focus() — stops below the header and above the banner, whatever their size
// (the header wraps on a phone, a warning strip makes it taller, the banner
// shows only while the past is viewed).

/**
 * Follows how much of the window `element` covers into the custom property
 * `name`: from the top of the window to its bottom edge (`edge` "top", a
 * header) or from its top edge to the bottom of the window ("bottom", a
 * banner); 0 while it is hidden.
 */
export function reserve(element, name, edge = "top") {
  if (!element) return;
  const root = document.documentElement;
  const update = () => {
    const rect = element.getBoundingClientRect();
    const covered = rect.height === 0 ? 0 : edge === "top" ? rect.bottom : window.innerHeight - rect.top;
    root.style.setProperty(name, `${Math.max(0, Math.ceil(covered))}px`);
  };
  update();
  if (typeof ResizeObserver === "function") new ResizeObserver(update).observe(element);
  window.addEventListener("resize", update);
}

/** The page's sticky header, and the timeline's banner when there is one. */
export function keepFocusClear(banner = null) {
  reserve(document.querySelector(".topbar"), "--header-height", "top");
  reserve(banner, "--banner-height", "bottom");
}
