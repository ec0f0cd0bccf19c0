"""Run mypy and hold the packages not yet clean to a recorded baseline that may only shrink.

    python tools/mypy_baseline.py            # fails on any error the baseline does not list
    python tools/mypy_baseline.py --update   # re-record tools/mypy-baseline.txt

Every other package must have no error at all. An error is recorded as its file, error code and
message, without its line, so an edit elsewhere in the file does not change the baseline. A file
may hold the same error several times: the baseline repeats it as often as it is allowed.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "tools" / "mypy-baseline.txt"
# Folders whose errors may stand while they are listed in the baseline; everywhere else mypy must be clean.
BASELINED = ("pidesktop/ui/",)
# mypy names other lines of the same file in some messages ("defined on line 12"): not part of the error.
_LINE_MENTION = re.compile(r"\bon line \d+\b")


def run_mypy() -> list[dict[str, object]]:
    """mypy's errors (notes dropped), with the configuration in pyproject.toml."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--output", "json", "--no-error-summary"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if done.returncode not in (0, 1):  # 2: mypy itself failed (bad configuration, a crash)
        sys.stderr.write(done.stderr or done.stdout)
        raise SystemExit(done.returncode)
    errors = []
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            if record.get("severity") == "error":
                errors.append(record)
    return errors


def normalise(error: dict[str, object]) -> str:
    """``file: [code] message`` with the line numbers taken out."""
    message = _LINE_MENTION.sub("on line N", str(error["message"]))
    return f"{error['file']}: [{error.get('code') or 'misc'}] {message}"


def read_baseline(path: Path = BASELINE) -> Counter[str]:
    if not path.exists():
        return Counter()
    return Counter(line for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def write_baseline(entries: Iterable[str], path: Path = BASELINE) -> None:
    path.write_text("".join(f"{entry}\n" for entry in sorted(entries)), encoding="utf-8")


def compare(current: Counter[str], baseline: Counter[str]) -> tuple[list[str], list[str]]:
    """(errors beyond what the baseline allows, baselined errors that are gone), one entry per error."""
    new = sorted((current - baseline).elements())
    fixed = sorted((baseline - current).elements())
    return new, fixed


def split(errors: Iterable[str]) -> tuple[Counter[str], Counter[str]]:
    """(errors a baseline may hold, errors that must not exist)."""
    baselined: Counter[str] = Counter()
    strict: Counter[str] = Counter()
    for entry in errors:
        (baselined if entry.startswith(BASELINED) else strict)[entry] += 1
    return baselined, strict


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="record the current errors as the new baseline")
    args = parser.parse_args(argv)
    baselined, strict = split(normalise(error) for error in run_mypy())
    if strict:
        print(f"mypy: {sum(strict.values())} error(s) where none are allowed:")
        print("".join(f"  {entry}\n" for entry in sorted(strict.elements())), end="")
    if args.update:
        write_baseline(baselined.elements())
        print(f"mypy: recorded {sum(baselined.values())} baselined error(s) in {BASELINE.relative_to(ROOT)}")
        return 1 if strict else 0
    new, fixed = compare(baselined, read_baseline())
    if new:
        print(f"mypy: {len(new)} new error(s) the baseline does not allow (fix them; the baseline only shrinks):")
        print("".join(f"  {entry}\n" for entry in new), end="")
    if fixed:
        print(
            f"mypy: {len(fixed)} baselined error(s) are fixed; "
            f"record that with `python tools/mypy_baseline.py --update` so they cannot come back."
        )
    if not new and not strict:
        print(f"mypy: no new errors ({sum(baselined.values())} baselined)")
    return 1 if new or strict else 0


if __name__ == "__main__":
    raise SystemExit(main())
