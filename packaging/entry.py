"""The bundle's one program: ``pidesktop``, or ``pi-workflows`` when started under that name (a link to it)."""

import sys
from pathlib import Path

if __name__ == "__main__":
    if Path(sys.argv[0]).name == "pi-workflows":
        from pidesktop.workflows.cli import main
    else:
        from pidesktop.commands.cli import main
    sys.exit(main())
