"""The messages search reads: what the person and the model said (tool rows and system notes are not searched)."""

SPOKEN = "m.role IN ('user', 'assistant')"  # a condition on ``messages m``
