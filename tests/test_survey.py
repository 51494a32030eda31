"""Surveys: local processes, a local Dask cluster, and resuming."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jielong.cli import main
from jielong.cli.survey import (
    Budget,
    SurveyError,
    SurveySummary,
    read_results,
    solve_deal,
    survey,
)
from jielong.engine.rules.registry import rules_for
from jielong.engine.solve import fcsolve, klondike


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_local_processes(tmp_path: Path) -> None:
    out = tmp_path / "r.txt"
    summary = survey("freecell", 1, 6, out, workers=2, progress=False)
    assert summary.done == 6 and summary.statuses["solved"] == 6
    results = read_results(out)
    assert sorted(results) == [1, 2, 3, 4, 5, 6]
    for number, status, moves, nodes, seconds, solver in results.values():
        assert 1 <= number <= 6
        assert status == "solved" and moves > 0 and nodes >= 0 and seconds >= 0
        assert solver == "own"


def test_klondike_survey_agrees_with_the_solver(tmp_path: Path) -> None:
    out = tmp_path / "k.txt"
    summary = survey(
        "klondike-3", 1, 8, out, workers=1, budget=Budget(max_seconds=10), progress=False
    )
    assert summary.done == 8
    results = read_results(out)
    rules = rules_for("klondike-3")
    for number in range(1, 9):
        _, status, moves, _, _, solver = results[number]
        assert solver == "own"
        assert status == klondike.solve(rules, rules.deal(number), max_seconds=10).status
        assert (moves > 0) == (status == "solved")
    assert results[7][1] == "unsolvable"  # lost from the start
    # the command line, resuming the same file
    code = main(["survey", "klondike-3", "1", "10", "--out", str(out), "--workers", "1", "--quiet"])
    assert code == 0 and sorted(read_results(out)) == list(range(1, 11))
    assert len(_lines(out)) == 10  # deals 1..8 were not solved again


def test_resume_skips_done_deals_and_a_torn_line(tmp_path: Path) -> None:
    out = tmp_path / "r.txt"
    survey("kongdang", 10, 13, out, workers=1, progress=False)
    kept = _lines(out)[:2]
    # an interruption in the middle of writing leaves half a line
    out.write_text("\n".join(kept) + "\n" + kept[0][:3], encoding="utf-8")
    summary = survey("kongdang", 10, 15, out, workers=1, progress=False)
    assert summary.skipped == 2 and summary.done == 4
    lines = _lines(out)
    assert len(lines) == 6
    assert sorted(read_results(out)) == list(range(10, 16))
    # the figures cover the deals done before too; a deal outside the range does not count
    assert summary.statuses["solved"] == 6 and len(summary.deal_seconds) == 6
    again = survey("kongdang", 11, 14, out, workers=1, progress=False)
    assert again.done == 0 and again.skipped == 4
    assert again.statuses["solved"] == 4 and len(again.deal_seconds) == 4


def test_interrupted_run_resumes(tmp_path: Path) -> None:
    """Kill a real survey process part-way, then finish the range."""
    out = tmp_path / "r.txt"
    cmd = [sys.executable, "-m", "jielong.cli", "survey", "freecell", "1", "400"]
    cmd += ["--out", str(out), "--workers", "1", "--quiet"]
    # A session of its own, so the kill reaches the pool's worker too (as a
    # terminal's interrupt reaches the whole process group).
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(read_results(out)) < 10:
            time.sleep(0.2)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    first = read_results(out)
    assert 10 <= len(first) < 400
    # finish only a few more deals beyond what was done, to keep the test short
    end = max(first) + 3
    summary = survey("freecell", 1, end, out, workers=1, progress=False)
    assert summary.skipped == len([n for n in first if n <= end])
    assert sorted(read_results(out)) == sorted(set(range(1, end + 1)) | set(first))


def test_dask_cluster(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    out = tmp_path / "r.txt"
    dask = pytest.importorskip("dask")
    with (
        # its scratch files in the test's directory, not in /tmp/dask-scratch-space
        dask.config.set({"temporary-directory": str(tmp_path)}),
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
    ):
        summary = survey(
            "freecell", 20, 24, out, dask_address=cluster.scheduler_address, progress=False
        )
    assert summary.done == 5
    assert sorted(read_results(out)) == [20, 21, 22, 23, 24]


def test_the_command_starts_a_dask_cluster_of_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dask = pytest.importorskip("dask")
    pytest.importorskip("distributed")
    out = tmp_path / "r.txt"
    argv = ["survey", "klondike-3", "5", "8", "--out", str(out), "--dask", "local"]
    with dask.config.set({"temporary-directory": str(tmp_path)}):
        code = main([*argv, "--workers", "2", "--seconds", "5", "--quiet"])
    assert code == 0
    results = read_results(out)
    assert sorted(results) == [5, 6, 7, 8]
    solved = sum(line[1] == "solved" for line in results.values())
    unknown = sum(line[1] == "unknown" for line in results.values())
    printed = capsys.readouterr().out
    assert "deals 5..8: 4 done now" in printed
    # the share solved, with an interval whose high end counts the unknown deals
    assert f"solvable: {100 * solved / 4:.2f}% " in printed
    assert results[7][1] == "unsolvable" and unknown == 0
    assert "CPU seconds per deal: median " in printed


def test_the_solvable_share_has_an_interval() -> None:
    summary = SurveySummary(total=1000, skipped=0, done=1000)
    summary.statuses.update(solved=803, unsolvable=181, unknown=16)
    summary.unknown = list(range(16))
    share, low, high = summary.solvable()
    assert share == 0.803
    summary.deal_seconds = [0.01] * 950 + [3.0] * 40 + [10.0] * 10
    assert summary.percentile(0.5) == 0.01 and summary.percentile(0.95) == 3.0
    # 803 of 1000: 77.7..82.6%; 819 of 1000 at most: up to 84.2%
    assert round(low, 3) == 0.777 and round(high, 3) == 0.842


@pytest.mark.skipif(not fcsolve.available(), reason="Freecell Solver not installed")
def test_fcsolve_survey_with_proofs(tmp_path: Path) -> None:
    out = tmp_path / "r.txt"
    summary = survey(
        "freecell", 11980, 11984, out, workers=1, solver="fcsolve", proofs=True, progress=False
    )
    assert summary.unsolvable == [11982]
    assert read_results(out)[11982][5] == "fcsolve-cn"
    assert summary.statuses["solved"] == 4


def test_without_proofs_a_budget_gives_unknown() -> None:
    line = solve_deal("freecell", 11982, "own", Budget(max_nodes=20))
    assert line[1] == "unknown"


def test_own_proof_settles_what_the_budget_left(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fcsolve, "available", lambda: False)
    line = solve_deal("freecell", 11982, "own", Budget(max_nodes=20), proofs=True)
    assert line[1] == "unsolvable" and line[5] == "own-proof"


def test_bad_range(tmp_path: Path) -> None:
    with pytest.raises(SurveyError):
        survey("freecell", 5, 4, tmp_path / "r.txt", progress=False)


def test_a_klondike_deal_s_seconds_are_counted_on_the_cpu_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ticks = iter(range(0, 10**9, 100))
    # a CPU clock that runs a hundred seconds a reading: the budget is spent
    # at the first look, however little wall time passed
    monkeypatch.setattr(time, "process_time", lambda: float(next(ticks)))
    number, status, _, nodes, seconds, _ = solve_deal("klondike-3", 14, "own", Budget(None, 10))
    assert (number, status) == (14, "unknown") and nodes < 2_000 and seconds >= 100
