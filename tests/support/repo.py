"""Where the checkout and its recorded fixtures are; nothing a test reads lies outside them."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent  # this package sits in tests/, and tests/ in the checkout
REPO = TESTS.parent
FIXTURES = TESTS / "fixtures"  # recorded third-party data and the spec text (README there)
