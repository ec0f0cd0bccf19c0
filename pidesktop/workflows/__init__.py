"""Pi Workflows state store (its own ``state.sqlite``) and its command line."""
