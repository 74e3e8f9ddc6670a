"""Per-kind state invariants of Tandem's controls, for the robustness checker.

A control's schema is a dict as `GET /api/rooms/ID` (or a welcome) describes
it: `id`, `type`, the type's fields (`min`, `max`, `step`, `scale`, `digits`,
`values`, `layout`, `scale: [lo, hi]`, `operable`, `minGap`, `x`, `y`), and
`state`. The rules are TandemCore's `Control.isValid` (Control+Math.swift,
SliderMath.isValid, RangeMath.isValid) with a numeric tolerance.

Pure functions, no I/O.
"""

from __future__ import annotations

import math
from typing import Any

TOL = 1e-9
MAX_PRESSES = 9_007_199_254_740_992  # 2^53, ButtonMath.maxPresses

# The keys of each kind's state, as JSONWriter+Tandem.swift writes them.
STATE_KEYS: dict[str, tuple[str, ...]] = {
    "slider": ("value",),
    "snap": ("index", "value"),
    "range": ("lower", "upper"),
    "color": ("red", "green", "blue", "hex"),
    "gauge": ("value", "fraction"),
    "toggle": ("on",),
    "xy": ("x", "y"),
    "button": ("presses",),
}


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _is_integer(x: Any) -> bool:
    return _is_number(x) and float(x) == math.floor(float(x))


def _round_half_away(x: float) -> float:
    return math.copysign(math.floor(abs(x) + 0.5), x)


def _close(a: float, b: float, scale: float = 1.0) -> bool:
    return abs(a - b) <= TOL * max(1.0, abs(scale), abs(a), abs(b))


def slider_problem(spec: dict, value: Any, name: str = "value") -> str | None:
    """What is wrong with `value` on a slider (or an xy axis) `spec`, or None.

    SliderMath.isValid: finite, inside [min, max]; with a step, on the grid
    (to 1e-9 of the span); with digits and no step, min, max or a number that
    rounding to `digits` significant digits keeps.
    """
    if not _is_number(value):
        return f"{name} {value!r} is not a finite number"
    lo, hi = spec.get("min"), spec.get("max")
    if not (_is_number(lo) and _is_number(hi)):
        return None  # schema without bounds: nothing to check
    span = hi - lo
    if value < lo - TOL * max(1.0, abs(span)) or value > hi + TOL * max(1.0, abs(span)):
        return f"{name} {value} outside [{lo}, {hi}]"
    step = spec.get("step")
    digits = spec.get("digits")
    if step:
        n = int(_round_half_away(span / step))
        if n > 0:
            k = min(max(int(_round_half_away((value - lo) / span * n)), 0), n)
            grid = hi if k == n else lo + span * (k / n)
            if abs(grid - value) > TOL * max(1.0, abs(span)):
                return f"{name} {value} is off the grid {lo} + k*{step}"
    elif digits:
        if not (_close(value, lo) or _close(value, hi)):
            rounded = float(f"{value:.{int(digits)}g}")
            if not _close(rounded, value):
                return f"{name} {value} has more than {digits} significant digits"
    return None


def unit_problem(value: Any, name: str, step: Any = None) -> str | None:
    return slider_problem({"min": 0, "max": 1, "step": step}, value, name)


def _hex(rgb: tuple[float, float, float]) -> str:
    out = "#"
    for c in rgb:
        byte = int(_round_half_away(min(max(c, 0.0), 1.0) * 255))
        out += f"{byte:02X}"
    return out


def problems(schema: dict, state: Any) -> list[str]:
    """Every invariant `state` breaks on the control `schema` (empty: valid).

    An unknown type is not checked (returns []).
    """
    kind = schema.get("type")
    if kind not in STATE_KEYS:
        return []
    if not isinstance(state, dict):
        return [f"state {state!r} is not an object"]
    out: list[str] = []
    missing = [k for k in STATE_KEYS[kind] if k not in state]
    extra = [k for k in state if k not in STATE_KEYS[kind]]
    if missing:
        out.append(f"{kind} state lacks {', '.join(missing)}")
    if extra:
        out.append(f"{kind} state has foreign field(s) {', '.join(extra)}")
    if missing:
        return out

    if kind == "slider":
        p = slider_problem(schema, state["value"])
        if p:
            out.append(p)
    elif kind == "snap":
        values = schema.get("values") or []
        index = state["index"]
        if not _is_integer(index):
            out.append(f"snap index {index!r} is not a whole number")
        elif values and not (0 <= int(index) < len(values)):
            out.append(f"snap index {index} outside 0..{len(values) - 1}")
        elif values:
            expected = values[int(index)]
            if not (_is_number(state["value"]) and _close(float(state["value"]), float(expected))):
                out.append(f"snap value {state['value']!r} is not values[{index}] = {expected}")
    elif kind == "range":
        lower, upper = state["lower"], state["upper"]
        if not (_is_integer(lower) and _is_integer(upper)):
            out.append(f"range thumbs {lower!r}, {upper!r} are not whole numbers")
            return out
        scale = schema.get("scale") if isinstance(schema.get("scale"), list) else None
        operable = schema.get("operable") or scale
        gap = schema.get("minGap", 1)
        if operable:
            lo, hi = operable
            if not (lo <= lower <= hi):
                out.append(f"range lower {lower} outside operable [{lo}, {hi}]")
            if not (lo <= upper <= hi):
                out.append(f"range upper {upper} outside operable [{lo}, {hi}]")
        if lower > upper:
            out.append(f"range lower {lower} > upper {upper}")
        elif lower + gap > upper:
            out.append(f"range lower {lower} + minGap {gap} > upper {upper}")
    elif kind == "color":
        step = schema.get("step")
        channels = []
        for c in ("red", "green", "blue"):
            p = unit_problem(state[c], c, step)
            if p:
                out.append(p)
            channels.append(state[c] if _is_number(state[c]) else 0.0)
        if not out and str(state["hex"]).upper() != _hex(tuple(channels)):
            out.append(f"hex {state['hex']!r} is not {_hex(tuple(channels))} of the channels")
    elif kind == "gauge":
        value, fraction = state["value"], state["fraction"]
        if not _is_number(value):
            out.append(f"gauge value {value!r} is not a finite number")
        elif _is_number(schema.get("min")) and _is_number(schema.get("max")):
            lo, hi = schema["min"], schema["max"]
            expected = min(max((value - lo) / (hi - lo), 0.0), 1.0)
            if not _is_number(fraction) or not _close(fraction, expected):
                out.append(f"gauge fraction {fraction!r} is not {expected} for value {value}")
    elif kind == "toggle":
        if not isinstance(state["on"], bool):
            out.append(f"toggle on {state['on']!r} is not a boolean")
    elif kind == "xy":
        for axis in ("x", "y"):
            spec = schema.get(axis) or {}
            p = slider_problem(spec, state[axis], axis)
            if p:
                out.append(p)
    elif kind == "button":
        presses = state["presses"]
        if not _is_integer(presses) or not (0 <= presses <= MAX_PRESSES):
            out.append(f"button presses {presses!r} is not a whole number 0..2^53")
    return out


def initial_state(schema: dict) -> dict | None:
    """The state of a control never committed to.

    The schema's own `initial` or `state` when it has one (GET /api/rooms/ID
    gives the current `state` and its `rev`; a control whose `rev` is 0 was
    never changed, so its `state` is the initial one); else the defaults of
    protocol.md ("Schemas"): a slider and a gauge at min, a snap at index 0,
    a range at operable lo / lo + minGap, a colour #000000, a toggle off, a
    pad at both minimums, a button at 0 presses.
    """
    if isinstance(schema.get("initial"), dict):
        return schema["initial"]
    if isinstance(schema.get("state"), dict) and not schema.get("rev"):
        return schema["state"]
    kind = schema.get("type")
    if kind == "slider":
        return {"value": schema.get("min", 0)}
    if kind == "gauge":
        return {"value": schema.get("min", 0), "fraction": 0}
    if kind == "snap":
        values = schema.get("values") or [0]
        return {"index": 0, "value": values[0]}
    if kind == "range":
        scale = schema.get("scale") if isinstance(schema.get("scale"), list) else [0, 1]
        lo = (schema.get("operable") or scale)[0]
        return {"lower": lo, "upper": lo + schema.get("minGap", 1)}
    if kind == "color":
        return {"red": 0, "green": 0, "blue": 0, "hex": "#000000"}
    if kind == "toggle":
        return {"on": False}
    if kind == "xy":
        return {"x": (schema.get("x") or {}).get("min", 0), "y": (schema.get("y") or {}).get("min", 0)}
    if kind == "button":
        return {"presses": 0}
    if isinstance(schema.get("state"), dict):
        return schema["state"]
    return None
