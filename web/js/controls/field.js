// Text fields that edit a value: every control's value field (the exact
// value, typed) and the colour's level and hex fields.
//
// A field follows the shown value until the person types in it; Enter or
// leaving the field commits, Escape puts the shown value back (a second
// Escape, with nothing typed, returns to the control's thumb). What it says
// goes to a note tied to it by aria-describedby: an error ("'abc' is not a
// number…": nothing was sent, the text stays to be fixed, `aria-invalid`),
// or the reason the committed value is not the one typed ("clamped to
// 20,000 Hz (the maximum)"), shown until the value changes again or the
// person types.

import { h, setText } from "../dom.js";

let notes = 0;

/** The note line of a field (`p.field-note`), tied to it by aria-describedby. */
export function noteFor(input) {
  notes += 1;
  const note = h("p", { class: "field-note", id: `field-note-${notes}`, hidden: true });
  input.setAttribute("aria-describedby", note.id);
  return note;
}

/**
 * A value field of a control: `input.value-field`, labelled, sized to its text.
 * `negative`: the values may be below zero (a phone's decimal keypad has no minus: a full keyboard then).
 */
export function valueInput({ label, which, numeric = true, negative = false, title = "Type a value, then Enter (Escape puts it back)" }) {
  return h("input", {
    type: "text",
    class: "value-field",
    "data-field": which,
    "aria-label": label,
    title,
    autocomplete: "off",
    autocapitalize: "off",
    spellcheck: "false",
    enterkeyhint: "done",
    inputmode: numeric && !negative ? "decimal" : "text",
  });
}

/**
 * Makes `input` an editable field. `commit(text)` says what became of the text:
 * null or {} (taken), {error} (not taken), or {text, reason} (taken; the field
 * shows `text` and, when given, the `reason` it is not what was typed).
 * Options: `thumb` (Escape with nothing typed focuses it), `keys(event)`
 * (keys pressed while nothing is typed, such as arrows that step; true when handled),
 * `autosize` (the field's width follows its text, in characters).
 */
export function editableField(input, note, commit, { thumb = null, keys = null, autosize = false } = {}) {
  let dirty = false;
  let shownText = "";
  let exactText = "";
  let reasonFor = null;
  let justFocused = false;

  const size = () => {
    if (autosize) input.style.setProperty("--chars", String(Math.max(2, input.value.length)));
  };
  const put = (text) => {
    if (input.value !== text) {
      // A focused field with nothing typed in it has its text selected, ready to be typed over:
      // a new value (someone else's drag) keeps it so, rather than leave the caret after it.
      const selected = focused() && input.selectionStart === 0 && input.selectionEnd === input.value.length;
      input.value = text;
      if (selected) input.select();
    }
    size();
  };
  const say = (kind, text) => {
    setText(note, text ?? "");
    note.hidden = text == null;
    note.dataset.kind = kind ?? "";
    if (kind === "error") input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
    reasonFor = null;
  };
  // Inside a shadow root (web/embed.js) the document's activeElement is the host: ask the field's own root.
  const focused = () => (input.getRootNode?.() ?? input.ownerDocument)?.activeElement === input;
  const restore = () => {
    dirty = false;
    say(null);
    put(focused() ? exactText : shownText);
  };
  /** Commits what was typed; true when it was taken. */
  const finish = () => {
    if (!dirty) return true;
    const out = commit(input.value) ?? {};
    if (out.error) {
      say("error", out.error);
      return false;
    }
    dirty = false;
    if (out.text != null) {
      shownText = out.text;
      exactText = out.exact ?? out.text;
      put(focused() ? exactText : shownText);
    }
    if (out.reason) {
      say("reason", out.reason);
      reasonFor = out.text ?? shownText;
    } else {
      say(null);
    }
    return true;
  };

  input.addEventListener("input", () => {
    dirty = true;
    if (note.dataset.kind === "reason") say(null);
    size();
  });
  input.addEventListener("focus", () => {
    if (!dirty) put(exactText);
    input.select();
    justFocused = true;
  });
  // A click that focused the field would put the caret where it landed, undoing the select().
  input.addEventListener("mouseup", (event) => {
    if (justFocused) event.preventDefault();
    justFocused = false;
  });
  input.addEventListener("keydown", (event) => {
    justFocused = false;
    if (event.key === "Enter") {
      event.preventDefault();
      if (finish()) input.select();
    } else if (event.key === "Escape") {
      event.preventDefault();
      if (dirty || note.dataset.kind === "error") restore();
      else if (note.dataset.kind === "reason") say(null);
      else thumb?.focus();
    } else if (!dirty && keys?.(event)) {
      event.preventDefault();
    }
  });
  input.addEventListener("blur", () => {
    justFocused = false;
    finish();
    if (!dirty) put(shownText);
  });

  return {
    input,
    note,
    /** The shown value's text (and its full-precision text for editing); ignored while the person types. */
    show(text, exact = text) {
      shownText = text;
      exactText = exact;
      if (reasonFor != null && text !== reasonFor) say(null);
      if (!dirty) put(focused() ? exactText : shownText);
    },
    /** Focuses the field with its text selected (Enter on the thumb). */
    edit() {
      input.focus();
      input.select();
    },
    get dirty() {
      return dirty;
    },
  };
}
