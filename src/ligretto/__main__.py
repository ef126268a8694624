from ligretto.cli import main

raise SystemExit(main())
