"""inbox."""
