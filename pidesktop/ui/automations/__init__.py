"""automations."""
