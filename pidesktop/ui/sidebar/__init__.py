"""sidebar."""
