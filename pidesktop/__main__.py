from pidesktop.cli import main

raise SystemExit(main())
