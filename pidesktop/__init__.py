"""pidesktop: a local-first desktop chat application."""

__version__ = "0.1.0"
