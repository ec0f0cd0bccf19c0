"""The agent runtime: providers and the turn runner. Reaches the host only through the bus."""
