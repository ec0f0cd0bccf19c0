from pidesktop.commands.cli import main

raise SystemExit(main())
