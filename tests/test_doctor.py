"""`jielong doctor`, the start-up notes of `jielong serve`, and the clear
refusal of a feature whose extra is not installed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jielong import cli, optional
from jielong.cli import doctor
from jielong.engine.solve import fcsolve


def hide_modules(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Make ``jielong.optional`` see these modules as not installed."""
    real = optional.find_spec

    def find_spec(name: str) -> object:
        return None if name in names else real(name)

    monkeypatch.setattr(optional, "find_spec", find_spec)


def test_doctor_lists_every_part_as_it_is(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["doctor", "--json"]) == 0
    parts = {p["name"]: p for p in json.loads(capsys.readouterr().out)}
    assert parts["Freecell Solver"]["present"] is fcsolve.available()
    assert parts["PostgreSQL driver (psycopg)"]["present"] is optional.installed("postgres")
    assert parts["Dask (distributed)"]["present"] is optional.installed("survey")
    for part in parts.values():
        assert part["cost"] and part["fix"] and part["detail"]

    assert cli.main(["doctor"]) == 0
    text = capsys.readouterr().out
    assert "optional parts installed" in text
    assert ("ok  Freecell Solver" in text) is fcsolve.available()


def test_doctor_says_what_a_missing_part_costs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hide_modules(monkeypatch, "psycopg", "distributed")
    monkeypatch.setattr(fcsolve, "available", lambda: False)
    assert cli.main(["doctor"]) == 0
    text = capsys.readouterr().out
    assert "--  PostgreSQL driver (psycopg): not installed" in text
    assert "to install: pip install 'jielong[postgres]'" in text
    assert "--  Dask (distributed): not installed" in text
    assert "--  Freecell Solver:" in text
    assert "FreeCell hints use the built-in solver" in text
    notes = doctor.startup_notes()
    assert notes[0].startswith(
        "FreeCell hints use the built-in solver; install libfreecell-solver0"
    )


def test_startup_notes_are_quiet_when_all_is_there(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fcsolve, "available", lambda: True)
    monkeypatch.setenv("JIELONG_PURE_PYTHON", "1")  # asked for: not a missing part
    assert doctor.startup_notes() == []


def test_postgres_without_its_driver_is_one_clear_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hide_modules(monkeypatch, "psycopg")
    code = cli.main(["serve", "--database", "postgresql://nobody@127.0.0.1:1/none"])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "jielong: PostgreSQL databases (--database postgresql://...) need the psycopg "
        "package, which is not installed: pip install 'jielong[postgres]'"
    )


def test_dask_survey_without_dask_is_one_clear_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    hide_modules(monkeypatch, "distributed")
    out = tmp_path / "survey.txt"
    argv = ["survey", "freecell", "1", "2", "--dask", "tcp://127.0.0.1:1", "--out", str(out)]
    assert cli.main([*argv, "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(
        "need the distributed package, which is not installed: pip install 'jielong[survey]'"
    )
    assert not out.exists() or out.read_text() == ""


def test_a_missing_browser_engine_is_named_with_its_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JIELONG_RUNTIME_DIR", str(tmp_path / "none"))
    part = doctor.browser_engine()
    assert not part.present and "offline" in part.cost
    assert any("browser engine" in note for note in doctor.startup_notes())
