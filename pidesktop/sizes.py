"""Byte counts for a person to read."""

from __future__ import annotations


def human_size(size: int) -> str:
    """``0 B``, ``812 KB``, ``1.4 GB`` (decimal units, like file managers)."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if value < 1000 or unit == "TB":
            if unit == "B":
                return f"{int(value)} B"
            return f"{value:.1f} {unit}" if value < 10 else f"{value:.0f} {unit}"
        value /= 1000
    return f"{size} B"
