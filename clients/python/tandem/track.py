"""Values to track fractions, with the server's math (docs/math.md), so that a
gesture's `move_to(value)` sends the pointer position that lands on `value`.

The server snaps, rounds and clamps; this side only has to find the position.
"""

from __future__ import annotations

import math
from typing import Any


def _clamp(f: float) -> float:
    return min(1.0, max(0.0, f))


def axis_position(axis: dict[str, Any], value: float) -> float:
    """A slider's (or an xy axis's) fraction for `value`: linear or log."""
    lo, hi = float(axis["min"]), float(axis["max"])
    if hi == lo:
        return 0.0
    if axis.get("scale") == "log":
        value = max(value, lo)
        return _clamp(math.log(value / lo) / math.log(hi / lo))
    return _clamp((value - lo) / (hi - lo))


def snap_position(control: dict[str, Any], value: float) -> float:
    """The position of the value of `values` nearest to `value` (ties to the higher index)."""
    values = [float(v) for v in control["values"]]
    best = 0
    for i, v in enumerate(values):
        if abs(v - value) <= abs(values[best] - value):
            best = i
    if len(values) == 1:
        return 0.5
    if control.get("layout") == "proportional":
        return _clamp((values[best] - values[0]) / (values[-1] - values[0]))
    return best / (len(values) - 1)


def position(control: dict[str, Any], thumb: str, value: Any) -> float | list[float]:
    """The `at` a drag of `thumb` sends to put it at `value`."""
    kind = control["type"]
    if kind == "slider":
        return axis_position(control, float(value))
    if kind == "snap":
        return snap_position(control, float(value))
    if kind == "range":
        lo, hi = control["scale"]
        return _clamp((float(value) - lo) / (hi - lo)) if hi != lo else 0.0
    if kind == "color":
        return _clamp(float(value))
    if kind == "xy":
        x, y = value
        return [axis_position(control["x"], float(x)), axis_position(control["y"], float(y))]
    raise TypeError(f"a {kind} takes no drags; use set or step")


def thumbs(control: dict[str, Any]) -> list[str]:
    """The thumb names of a control, in the wire's order."""
    return {
        "slider": ["value"], "snap": ["index"], "range": ["lower", "upper"],
        "color": ["red", "green", "blue"], "gauge": ["value"], "toggle": ["on"],
        "xy": ["xy"], "button": ["press"],
    }.get(control["type"], [])


def value_of(control: dict[str, Any]) -> Any:
    """The one value a program usually wants from a control's state."""
    state = control.get("state") or {}
    kind = control.get("type")
    if kind in ("slider", "gauge", "snap"):
        return state.get("value")
    if kind == "range":
        return (state.get("lower"), state.get("upper"))
    if kind == "color":
        return state.get("hex")
    if kind == "toggle":
        return state.get("on")
    if kind == "xy":
        return (state.get("x"), state.get("y"))
    if kind == "button":
        return state.get("presses")
    return state.get("value", state)
