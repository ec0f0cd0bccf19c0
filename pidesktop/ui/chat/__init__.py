"""chat."""
