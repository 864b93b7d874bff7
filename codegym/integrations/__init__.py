"""Adapters for RL trainers: TRL (`codegym.integrations.trl`) and verl (`codegym.integrations.verl`)."""
