"""The rooms the robustness workload creates (room files, docs/protocol.md).

Every room has the same five controls, with parameters varied a little per
room (a proportional snap, other gaps and spans), and splits them in two:

- **set controls** take only `set`s of exact states on the control's grid
  (`level`: a continuous slider, states k/10000; `mode`: a snap of 240
  values; `tint`: a colour, whole `#RRGGBB` states). Nothing else writes
  them, so a state a writer sends is exactly the state the server stores,
  and a writer that never sends a state it may have left stored makes one
  log entry per acknowledged `set` (pytests/robustness/HISTORY.md).
- **gesture controls** take `step`s and drags (`window`: a range with a
  gap; `trim`: a slider with a step). What they commit is computed by the
  server (a clamp, a drag's pointer), so they are never `set`.

All controls commit on release (the default): a drag commits once, at its
`end`, and a drag whose `end` was never sent commits nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SET_CONTROLS = ("level", "mode", "tint")
GESTURE_CONTROLS = ("window", "trim")

LEVEL_GRID = 10_000  # level's states are k / LEVEL_GRID, k in 0..LEVEL_GRID
MODE_VALUES = 240


def room_id(n: int) -> str:
    """The id of the n-th room, from 1: `rb1`, `rb2`, ..."""
    return f"rb{n}"


def schema(n: int) -> dict[str, Any]:
    """The room file of room n (1-based)."""
    variant = (n - 1) % 3
    step_mode = 5 if variant != 1 else 2
    mode_values = [i * step_mode for i in range(MODE_VALUES)]
    if variant == 2:
        # A non-uniform ladder (still strictly ascending), drawn proportionally.
        mode_values = [i * 4 + (i // 10) for i in range(MODE_VALUES)]
    scale_hi = (100, 60, 200)[variant]
    gap = (4, 1, 10)[variant]
    return {
        "id": room_id(n),
        "title": f"Robustness room {n}",
        "controls": [
            {"id": "level", "type": "slider", "label": "Level", "min": 0, "max": 1,
             "state": {"value": 0}},
            {"id": "mode", "type": "snap", "label": "Mode", "values": mode_values,
             "layout": "proportional" if variant == 2 else "ordinal"},
            {"id": "window", "type": "range", "label": "Window", "scale": [0, scale_hi],
             "operable": [5, scale_hi - 5], "minGap": gap},
            {"id": "tint", "type": "color", "label": "Tint", "step": 1 / 255},
            {"id": "trim", "type": "slider", "label": "Trim", "min": -12, "max": 12, "step": 0.5,
             "state": {"value": 0}},
        ],
    }


def schemas(count: int) -> list[dict[str, Any]]:
    return [schema(n) for n in range(1, count + 1)]


# --------------------------------------------------------------------------
# Exact states of the set controls
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Grid:
    """The exact states a `set` may send to one set control: index i of
    `size` maps to the wire value (`wire(i)`) and to the state the server
    stores for it (`state(i)`)."""

    control: str
    size: int
    values: tuple[float, ...] = ()  # the snap's values

    def wire(self, i: int) -> Any:
        if self.control == "level":
            return i / LEVEL_GRID
        if self.control == "mode":
            return self.values[i]
        if self.control == "tint":
            return "#%06X" % i
        raise KeyError(self.control)

    def state(self, i: int) -> dict[str, Any]:
        if self.control == "level":
            return {"value": i / LEVEL_GRID}
        if self.control == "mode":
            return {"index": i, "value": self.values[i]}
        if self.control == "tint":
            r, g, b = (i >> 16) & 0xFF, (i >> 8) & 0xFF, i & 0xFF
            return {"red": r / 255, "green": g / 255, "blue": b / 255, "hex": "#%06X" % i}
        raise KeyError(self.control)

    def index_of(self, state: dict[str, Any]) -> int | None:
        """The grid index of a stored state, or None when it is off the grid."""
        try:
            if self.control == "level":
                k = round(float(state["value"]) * LEVEL_GRID)
                return k if abs(k / LEVEL_GRID - float(state["value"])) < 1e-12 else None
            if self.control == "mode":
                return int(state["index"])
            if self.control == "tint":
                return int(str(state["hex"]).lstrip("#"), 16)
        except (KeyError, TypeError, ValueError):
            return None
        return None


def grids(room_schema: dict[str, Any]) -> dict[str, Grid]:
    """The set controls' grids of a room (from its room file or a GET of it)."""
    out: dict[str, Grid] = {}
    for control in room_schema["controls"]:
        cid = control["id"]
        if cid == "level":
            out[cid] = Grid(cid, LEVEL_GRID + 1)
        elif cid == "mode":
            out[cid] = Grid(cid, len(control["values"]), tuple(control["values"]))
        elif cid == "tint":
            out[cid] = Grid(cid, 1 << 24)
    return out


def initial_state(room_schema: dict[str, Any], control: str) -> dict[str, Any] | None:
    for c in room_schema["controls"]:
        if c["id"] == control:
            return c.get("state")
    return None


def thumbs(control: str) -> tuple[str, ...]:
    """The thumbs a step or drag of a gesture control names (None-free)."""
    return ("lower", "upper") if control == "window" else ("value",)
