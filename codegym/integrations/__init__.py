"""Adapters for RL trainers: TRL (`codegym.integrations.trl`), verl (`codegym.integrations.verl`)
and PrimeIntellect verifiers (`codegym.integrations.verifiers_env`)."""
