"""What the routes that answer with plain data send back, as the OpenAPI
document describes it: a hint, the solvers' verdict, a position to share,
the variants, the deal catalogue, a daily deal and the player's statistics.

The routes build their answers as dictionaries; these models only describe
them (``answer(...)`` in a route's ``responses=``).  They forbid fields they
do not name, so that a test validating real answers against them fails when
an answer gains a field the document does not show.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

from jielong.engine.solve.result import HintKind, Status


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class MoveJson(_Answer):
    """A move: ``count`` cards from the end of pile ``from`` onto pile ``to``
    (a Klondike draw: the cards turned; a recycle: the whole waste)."""

    from_: str = Field(alias="from", description="a pile: tableau:N, cell:N, foundation:N, ...")
    to: str
    count: int = Field(ge=1)


Computed = Literal["server", "device"]
COMPUTED = "where it was computed: the server, or the engine on the player's device"


class OtherMove(_Answer):
    """Another move a sampled hint weighed, and how it did."""

    move: MoveJson
    won: int = Field(ge=0, description="sampled deals won after the move")
    of: int = Field(ge=0, description="sampled deals solved after the move")


class HintAnswer(_Answer):
    """A hint for the version asked about."""

    version: int
    computed: Computed = Field(default="server", description=COMPUTED)
    kind: HintKind = Field(
        description="solver: a line to a win from here; likely: the move that won the most "
        "deals of the unseen cards (Klondike); heuristic: a plausible move; unsolvable and "
        "no_progress: proofs, no move; exhausted: every move leads back to a position seen "
        "twice; none: no legal move"
    )
    move: MoveJson | None
    line: list[MoveJson] = Field(description="the start of the line the move begins")
    steps: list[MoveJson] = Field(description="the single-card moves that carry a run move")
    source: str = Field(description="which solver or rule gave the hint")
    win_chance: float | None = Field(
        ge=0,
        le=1,
        description="the chance to win from here: 1 or 0 only with a solver's line or a "
        "proof, else the share of the sampled deals won; null when unknown",
    )
    samples: int = Field(ge=0, description="deals of the unseen cards sampled (0: exact)")
    decided: int = Field(
        default=0,
        ge=0,
        description="of the deals sampled, those won or proven lost within their budget "
        "(the others count as lost for every move)",
    )
    others: list[OtherMove] = Field(
        default_factory=list,
        description="likely: the next best moves the sampling weighed, best first, for a "
        "second press of the hint",
    )


class SolverVerdict(_Answer):
    solver: str
    status: Status
    length: int = Field(ge=0, description="moves in the line found")
    seconds: float = Field(ge=0)


class AnalysisAnswer(_Answer):
    """Every installed solver's verdict on the current position."""

    version: int
    thoughtful: bool = Field(description="Klondike: face-down cards known to the solver")
    seconds: float = Field(description="each solver's time limit")
    status: Status
    length: int = Field(ge=0)
    moves: list[MoveJson] = Field(description="the shortest line found")
    solver: str | None = Field(description="the solver that found it")
    solvers: list[SolverVerdict]
    computed: Computed = Field(default="server", description=COMPUTED)


class PositionAnswer(_Answer):
    """The current position to copy or share."""

    version: int
    variant: str
    text: str = Field(description="what POST /api/games takes back as position")
    pysol: str = Field(description="the board as PySolFC writes it")
    code: str = Field(description="the short code of a shared link")
    link: str


class VariantOptions(_Answer):
    finishing: Literal["autocomplete", "autocollect"]
    foundations_by_suit: bool
    numbered_deals: bool
    hint_plays_on_second_click: bool
    draw: int | None = Field(None, description="Klondike: cards turned at a time")
    run_limit: Literal["freecell", "doubling"] | None = Field(
        None, description="FreeCell: how long a run may move"
    )
    run_limit_formula: str | None = Field(None, description="FreeCell: f free cells, e empty")


class VariantInfo(_Answer):
    id: str
    family: Literal["freecell", "klondike"]
    names: dict[str, str] = Field(description="the name in each language")
    options: VariantOptions


class VariantsAnswer(_Answer):
    variants: list[VariantInfo]


class DealEntry(_Answer):
    deal: int = Field(ge=1)
    deal_id: str
    unsolvable: bool = Field(description="proven lost")


class DealsAnswer(_Answer):
    variant: str
    deals: list[DealEntry]
    total: int = Field(description="deal numbers in the catalogue")


class DailyAnswer(_Answer):
    variant: str
    date: str = Field(description="YYYY-MM-DD (UTC)")
    deal: int = Field(ge=1)
    deal_id: str


class RecentResult(_Answer):
    date: str = Field(description="the day it was dealt, YYYY-MM-DD (UTC)")
    deal: str = Field(description="the deal id")
    result: Literal["won", "demo", "lost", "playing"] = Field(
        description="demo: won, and the demo played in it (not the player's win)"
    )
    time_ms: int | None = Field(description="the win's time, or the clock as it was left")
    moves: int | None


class VariantFigures(_Answer):
    games: int = Field(ge=0)
    wins: int = Field(ge=0)
    best_time_ms: int | None
    best_moves: int | None
    streak: int = Field(ge=0)
    best_streak: int = Field(ge=0)
    recent: list[RecentResult] = Field(description="the latest games, oldest first")


class StatsAnswer(RootModel[dict[str, VariantFigures]]):
    """The player's figures per variant id."""


def answer(model: type[BaseModel], description: str) -> dict[int | str, dict[str, object]]:
    """The 200 answer of a route, for its ``responses=``."""
    return {200: {"model": model, "description": description}}
