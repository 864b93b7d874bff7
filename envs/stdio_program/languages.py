"""Languages as data: ``languages.yaml`` holds one entry per language, nothing else does."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from codegym.error import DependencyNotInstalled, TaskFormatError
from codegym.grade import Diagnostic

TABLE = Path(__file__).with_name("languages.yaml")
FIELDS = {
    "file",
    "compile",
    "run",
    "version",
    "artifacts",
    "diagnostics",
    "processes",
    "env",
    "sockets",
    "memory_slack_mib",
}


@dataclass(frozen=True)
class Language:
    """How to build and run a program in one language (see ``languages.yaml``)."""

    name: str
    file: str
    run: tuple[str, ...]
    version: tuple[str, ...]
    compile: tuple[str, ...] | None = None
    artifacts: tuple[str, ...] = ()
    diagnostics: str = ""
    processes: int | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    sockets: Literal["kill", "errno"] = "kill"
    memory_slack_mib: int = 0  # see `Step.memory_slack_bytes`

    def parse_diagnostics(self, output: str) -> tuple[Diagnostic, ...]:
        """Compiler output -> structured diagnostics (file, line, column, severity, code)."""
        found = []
        for match in re.finditer(self.diagnostics, output):
            groups = match.groupdict()
            severity = (groups.get("severity") or "error").lower()
            found.append(
                Diagnostic(
                    message=(groups.get("message") or "").strip(),
                    file=self.file,
                    line=int(groups["line"]),
                    column=int(groups["column"]) if groups.get("column") else None,
                    severity=severity if severity in ("error", "warning", "note") else "error",
                    code=groups.get("code"),
                )
            )
        return tuple(found)


def _language(name: str, entry: Mapping[str, Any]) -> Language:
    unknown = set(entry) - FIELDS
    missing = {"file", "run", "version"} - set(entry)
    if unknown or missing:
        raise TaskFormatError(
            f"{TABLE.name}: language {name!r}: unknown fields {sorted(unknown)}, missing {sorted(missing)}"
        )
    pattern = entry.get("diagnostics", "")
    if pattern and "line" not in re.compile(pattern).groupindex:
        raise TaskFormatError(f"{TABLE.name}: language {name!r}: the diagnostics pattern needs a (?P<line>...) group")
    return Language(
        name=name,
        file=entry["file"],
        run=tuple(entry["run"]),
        version=tuple(entry["version"]),
        compile=tuple(entry["compile"]) if entry.get("compile") else None,
        artifacts=tuple(entry.get("artifacts", ())),
        diagnostics=pattern,
        processes=entry.get("processes"),
        env={str(k): str(v) for k, v in entry.get("env", {}).items()},
        sockets=entry.get("sockets", "kill"),
        memory_slack_mib=int(entry.get("memory_slack_mib", 0)),
    )


@functools.cache
def languages() -> dict[str, Language]:
    """Every configured language, by name."""
    try:
        import yaml
    except ModuleNotFoundError as e:
        raise DependencyNotInstalled(
            "the StdioProgram family reads languages.yaml with PyYAML: pip install pyyaml"
        ) from e
    table = yaml.safe_load(TABLE.read_text())
    return {name: _language(name, entry) for name, entry in table.items()}


def language(name: str) -> Language:
    table = languages()
    if name not in table:
        raise ValueError(f"unknown language {name!r}; configured: {', '.join(sorted(table))} (add one in {TABLE.name})")
    return table[name]
