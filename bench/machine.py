"""The machine's load, printed beside every figure: on a shared machine absolute times are inflated, and
the load says by how much to distrust them (ratios to a baseline of the same run are what count)."""

from __future__ import annotations

import os


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"
