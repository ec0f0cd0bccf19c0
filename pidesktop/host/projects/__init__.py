"""projects."""
