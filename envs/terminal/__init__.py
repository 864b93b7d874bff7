"""Terminal tasks in the Harbor format (``codegym/Terminal-v0``): see `codegym.envs.terminal.env`."""
