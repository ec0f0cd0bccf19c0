"""The example budget of the fuzz tests (tests/test_fuzz_*.py).

By default every fuzz test runs a fixed number of examples, derandomized (the
examples are derived from the test itself, not from a random seed) and with no
example database, so `make test` explores the same inputs on every machine and
a failure in CI reproduces locally. ``FUZZ_EXAMPLES=<n>`` raises the examples
of every fuzz test to ``n`` and draws them at random, for a long local run;
hypothesis prints the seed of any failure it finds.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_LONG_RUN = os.environ.get("FUZZ_EXAMPLES", "").strip()


def fuzz_settings(examples: int, **extra) -> settings:
    long_run = int(_LONG_RUN) if _LONG_RUN else 0
    return settings(
        max_examples=max(examples, long_run),
        deadline=None,
        derandomize=not long_run,
        database=None,
        print_blob=True,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.large_base_example,
            HealthCheck.function_scoped_fixture,
            HealthCheck.filter_too_much,
        ],
        **extra,
    )


def load_suite_profile() -> None:
    """Every property test of the suite, also those without ``fuzz_settings``: no deadline and no too-slow
    check (a loaded CI machine is slow, not wrong), the same examples on every run, no example database."""
    settings.register_profile(
        "suite",
        deadline=None,
        derandomize=True,
        database=None,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
    )
    settings.load_profile("suite")
