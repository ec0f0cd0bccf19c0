"""`make bench`: every benchmark, each printing its figures next to a baseline from the same run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHES = ["transcripts.py", "delete_message.py", "migrate.py", "turn_start.py", "ui.py"]
OPTIONAL = ["relocate.py", "workflows.py"]


def main() -> int:
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    failed = 0
    for name in BENCHES + [n for n in OPTIONAL if (HERE / n).exists()]:
        print(f"\n=== bench/{name} ===", flush=True)
        failed |= subprocess.call([sys.executable, str(HERE / name)], env=env) != 0
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
