// Copying text: the Clipboard API where the page may use it (a secure
// context: https or this machine), else a hidden textarea and
// execCommand("copy"), which still works from a click on plain http. The
// focus goes back where it was.

/** Copies `text`; resolves true when it was copied. */
export async function copyText(text) {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Refused (no permission, an insecure page): try the old way.
  }
  const before = document.activeElement;
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.setAttribute("aria-hidden", "true");
  Object.assign(area.style, { position: "fixed", top: "0", left: "-9999px", opacity: "0" });
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  area.remove();
  if (before instanceof HTMLElement) before.focus({ preventScroll: true });
  return ok;
}
