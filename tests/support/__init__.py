"""What the tests share: hosts, loopback servers, message builders, waits, windows.

Fixtures stay in ``tests/conftest.py`` (pytest finds them by name); the plain
helpers live here, one concept a module, and tests import them from here.
"""
