"""Surveys: solve every deal of a range, in parallel, resumable.

The work is cut into batches of deal numbers and handed to any
``concurrent.futures`` executor: local processes by default, or a Dask
cluster's executor given a scheduler address.  Each finished deal is appended
to the results file as one line::

    deal<TAB>status<TAB>moves<TAB>nodes<TAB>seconds<TAB>solver

An interrupted survey resumes by skipping the deals already in the file.
The seconds are the CPU seconds the worker spent on the deal: a fair figure
on a shared machine, and the same as wall time on an idle one.  The Klondike
solver's budget of seconds is counted in CPU seconds too.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

from jielong.engine.rules.freecell import FreeCellPosition
from jielong.engine.rules.registry import rules_for
from jielong.engine.rules.variants import get_variant
from jielong.engine.solve import api, fcsolve
from jielong.engine.solve import freecell as own
from jielong.engine.solve.chance import wilson
from jielong.optional import require

Line = tuple[int, str, int, int, float, str]


class SurveyError(ValueError):
    """A bad range or an unreadable results file."""


@dataclass(frozen=True)
class Budget:
    """What one deal may cost: nodes and/or seconds per solver run."""

    max_nodes: int | None = None
    max_seconds: float | None = None


@dataclass
class SurveySummary:
    """A survey's deals: ``done`` in this run, ``skipped`` as already in the
    results file; the rest covers every deal of the range in the file, both
    kinds, so that a resumed survey ends with the figures of the whole."""

    total: int
    skipped: int
    done: int = 0
    seconds: float = 0.0
    statuses: Counter[str] = field(default_factory=Counter)
    deal_seconds: list[float] = field(default_factory=list)
    """The CPU seconds of each deal."""
    unsolvable: list[int] = field(default_factory=list)
    unknown: list[int] = field(default_factory=list)

    def count(self, line: Line) -> None:
        """Take one deal's line into the figures."""
        self.statuses[line[1]] += 1
        self.deal_seconds.append(line[4])
        if line[1] == "unsolvable":
            self.unsolvable.append(line[0])
        elif line[1] == "unknown":
            self.unknown.append(line[0])

    def solvable(self) -> tuple[float, float, float]:
        """The share solved, the low end of its 95% interval, and the high
        end of the interval of the share that would be solved if every
        unknown deal were winnable."""
        n = sum(self.statuses.values())
        solved = self.statuses["solved"]
        low, _ = wilson(solved, n)
        _, high = wilson(solved + len(self.unknown), n)
        return (solved / n if n else 0.0), low, high

    def percentile(self, q: float) -> float:
        """The CPU seconds a share ``q`` of the deals took at most."""
        times = sorted(self.deal_seconds)
        return times[min(len(times) - 1, int(q * len(times)))] if times else 0.0


def _prove(
    variant_id: str, position: FreeCellPosition, budget: Budget
) -> tuple[str, int, int, str]:
    """An exhaustive verdict: Freecell Solver's ``cn`` where installed, else the
    own depth-first proof.  (status, solution length or 0, nodes, prover)."""
    if fcsolve.available():
        status, length, nodes, _ = fcsolve.verdict(
            position, max_nodes=None, max_seconds=budget.max_seconds, proof=True
        )
        return status, length, nodes, "fcsolve-cn"
    verdict, nodes = own.prove(position, max_seconds=budget.max_seconds)
    # the proof keeps no path, so a solvable verdict comes without a length
    return ("solved" if verdict == "solvable" else verdict), 0, nodes, "own-proof"


def solve_deal(
    variant_id: str, number: int, solver: str, budget: Budget, proofs: bool = False
) -> Line:
    """Solve one deal from its start; the survey's unit of work."""
    start = time.process_time()
    rules = rules_for(variant_id)
    position = rules.deal(number)
    family = get_variant(variant_id).family
    if family == "freecell" and solver == "fcsolve":
        # the survey needs only verdicts: skip translating every line
        status, length, nodes, _ = fcsolve.verdict(
            position, max_nodes=budget.max_nodes, max_seconds=budget.max_seconds, proof=False
        )
        used = "fcsolve"
    else:
        result = api.solve(
            variant_id,
            position,
            max_nodes=budget.max_nodes,
            max_seconds=budget.max_seconds,
            solver="fcsolve" if solver == "fcsolve" else "own",
            # the budget in CPU seconds, as the line reports them: a busy
            # machine then gives every deal the same search
            clock=time.process_time,
        )
        status, nodes, used = result.status, result.nodes, result.solver
        length = len(result.moves)
    # the fast preset is no proof: its failures are "unknown" until proven
    if proofs and family == "freecell" and status == "unknown":
        status, length, more, used = _prove(variant_id, position, Budget())
        nodes += more
    return number, status, length, nodes, time.process_time() - start, used


def solve_batch(
    variant_id: str, numbers: list[int], solver: str, budget: Budget, proofs: bool
) -> list[Line]:
    return [solve_deal(variant_id, n, solver, budget, proofs) for n in numbers]


def format_line(line: Line) -> str:
    number, status, moves, nodes, seconds, used = line
    return f"{number}\t{status}\t{moves}\t{nodes}\t{seconds:.4f}\t{used}\n"


def read_results(path: Path) -> dict[int, Line]:
    """The lines of a results file by deal; a torn last line is ignored."""
    found: dict[int, Line] = {}
    if not path.exists():
        return found
    for raw in path.read_text(encoding="utf-8").splitlines():
        parts = raw.split("\t")
        if len(parts) != 6 or not parts[0].isdigit():
            continue
        try:
            found[int(parts[0])] = (
                int(parts[0]),
                parts[1],
                int(parts[2]),
                int(parts[3]),
                float(parts[4]),
                parts[5],
            )
        except ValueError:
            continue
    return found


def _repair_tail(path: Path) -> None:
    """Drop a line cut short by an interruption so appends start clean."""
    if not path.exists() or path.stat().st_size == 0:
        return
    data = path.read_bytes()
    if not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])


def _batches(numbers: list[int], size: int) -> Iterator[list[int]]:
    for i in range(0, len(numbers), size):
        yield numbers[i : i + size]


LOCAL_CLUSTER = "local"
"""The ``dask_address`` that starts a scheduler and workers on this machine
for the survey and stops them after it."""


@contextmanager
def _dask_client(address: str, workers: int | None) -> Iterator[Any]:
    distributed = import_module("distributed")  # untyped library
    if address != LOCAL_CLUSTER:
        with distributed.Client(address) as client:
            yield client
        return
    # one single-threaded worker process per core: the solvers are CPU-bound
    # Python, which threads would only share
    with (
        distributed.LocalCluster(
            n_workers=workers or os.cpu_count() or 1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",  # its HTTP server on a free port, beside any other cluster
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


@contextmanager
def _executor(workers: int | None, dask_address: str | None) -> Iterator[Executor]:
    if dask_address:
        require("survey")
        with _dask_client(dask_address, workers) as client:
            yield client.get_executor()
    else:
        with ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
            yield pool


def survey(
    variant_id: str,
    start: int,
    end: int,
    results_path: str | os.PathLike[str],
    *,
    workers: int | None = None,
    dask_address: str | None = None,
    solver: str = "own",
    budget: Budget | None = None,
    proofs: bool = False,
    batch_size: int | None = None,
    progress: bool = True,
) -> SurveySummary:
    """Solve deals ``start``..``end`` of ``variant_id`` (both included), appending
    one line per deal to ``results_path`` and skipping deals already there."""
    get_variant(variant_id)
    if start < 1 or end < start:
        raise SurveyError(f"not a range of deals: {start}..{end}")
    budget = budget or Budget()
    path = Path(results_path)
    _repair_tail(path)
    have = read_results(path)
    todo = [n for n in range(start, end + 1) if n not in have]
    summary = SurveySummary(total=end - start + 1, skipped=end - start + 1 - len(todo))
    for number in sorted(have):
        if start <= number <= end:
            summary.count(have[number])
    if not todo:
        summary.unsolvable.sort()
        summary.unknown.sort()
        return summary
    n_workers = workers or os.cpu_count() or 1
    if batch_size is None:
        per = 400 if solver == "fcsolve" else 10
        batch_size = max(1, min(per, len(todo) // (n_workers * 4) or 1))
    began = time.monotonic()
    tqdm = import_module("tqdm")  # untyped library
    bar = tqdm.tqdm(
        total=len(todo), unit="deal", disable=not progress, file=sys.stderr, smoothing=0.1
    )
    with _executor(workers, dask_address) as pool, path.open("a", encoding="utf-8") as out:
        pending: Iterable[Future[list[Line]]] = [
            pool.submit(solve_batch, variant_id, batch, solver, budget, proofs)
            for batch in _batches(todo, batch_size)
        ]
        try:
            for fut in as_completed(pending):
                lines = fut.result()
                out.write("".join(format_line(line) for line in lines))
                out.flush()
                for line in lines:
                    summary.count(line)
                summary.done += len(lines)
                bar.update(len(lines))
        finally:
            for fut in pending:
                fut.cancel()
            bar.close()
    summary.unsolvable.sort()
    summary.unknown.sort()
    summary.seconds = time.monotonic() - began
    return summary
