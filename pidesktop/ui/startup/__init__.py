"""startup."""
