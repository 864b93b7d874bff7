"""Python functions with hidden contracts, checked by hidden tests and CrossHair
(``codegym/PyContracts-v1``)."""

from __future__ import annotations

from gymnasium.envs.registration import register

register(
    id="codegym/PyContracts-v1",
    entry_point="codegym.envs.pycontracts.env:PyContractsEnv",
    kwargs={"tasks": "codegym-contracts"},
)
