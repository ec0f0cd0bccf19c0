"""turns."""
