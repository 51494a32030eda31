"""The engine as the browser's worker runs it, under Pyodide.

The page's script talks to one :class:`Engine` through :func:`handle`: a
request and its answer are JSON text, and every answer has the shape the
server's route for the same thing gives (a game's state, a hint, an
analysis), so the page draws either without knowing which answered.

The worker holds the games the page has opened: a game the server keeps is
mirrored here action by action (the page plays each action the server
accepted here too), and a game dealt on the device while the server could
not be reached lives here and in the page's IndexedDB until the server has
replayed it.  No position leaves the device from here.
"""

from __future__ import annotations

import datetime as dt
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field

from jielong.engine.catalogue import (
    CATALOGUE_SIZE,
    daily_deal,
    is_unsolvable,
    klondike_winnable,
    random_deal,
)
from jielong.engine.rules.registry import Position, rules_for
from jielong.engine.solve.api import thoughtful
from jielong.engine.solve.hints import compute_hint
from jielong.engine.solve.result import Hint
from jielong.play.actions import play_action
from jielong.play.answers import analyse, hint_json
from jielong.play.view import session_record, state_json
from jielong.session import ActionError, Session, Step

HINT_SECONDS = {"klondike": 0.8, "freecell": 4.0}
"""A hint's search on the device, by family.  A Klondike hint weighs sampled
deals for all of it, so it is what the player waits; a FreeCell hint stops
at the solver's first line (most go on with the last one's in a
millisecond), and only a hard position takes longer: cut short, it would be
a guess that can lose a won game."""
ANALYSIS_SECONDS = 4.0
"""The solver's budget for a position's verdict, as on the server."""
DEVICE_PREFIX = "device-"
"""The id of a game dealt on the device, until the server has it."""
WINNABLE_TRIES = 40
"""Random Klondike deals tried for a winnable one before giving up."""


class Refused(Exception):
    """A request the engine refuses: an HTTP-like status and a code."""

    def __init__(self, status: int, code: str, **params: object) -> None:
        super().__init__(code)
        self.status, self.code, self.params = status, code, params


@dataclass
class Game:
    """A game the worker holds: its session and version, and the last hint
    given on it (a Klondike hint goes on with the deals that one weighed)."""

    id: str
    version: int
    session: Session
    winnable: bool = False
    last_hint: tuple[Position, Hint] | None = field(default=None, repr=False)


def _known_winnable(session: Session) -> bool:
    deal = session.deal
    if deal is None:
        return False
    if session.variant.family == "freecell":
        return deal <= CATALOGUE_SIZE and not is_unsolvable(session.variant.id, deal)
    return session.daily is not None


def game_state(game: Game) -> dict[str, object]:
    """The game as the server's game routes answer it."""
    s = game.session
    return {
        "id": game.id,
        "version": game.version,
        **state_json(s),
        "unsolvable": s.deal is not None and is_unsolvable(s.variant.id, s.deal),
        "winnable": game.winnable,
    }


def record(game: Game) -> dict[str, object]:
    """What the page keeps of a game on the device (IndexedDB) to open it again."""
    return session_record(game.id, game.version, game.session, game.winnable)


def _date(text: object) -> dt.date:
    try:
        return dt.date.fromisoformat(str(text))
    except ValueError:
        raise Refused(422, "invalid_request", detail="date") from None


def _int(value: object, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise Refused(422, "invalid_request", detail=name)
    return value


def from_record(data: dict[str, object]) -> Game:
    """A game as :func:`record` kept it (or as the server's record route
    gives it)."""
    try:
        deal = data.get("deal")
        daily = data.get("daily")
        text = data.get("start_text")
        raw_steps = data.get("steps") or []
        assert isinstance(raw_steps, list)
        session: Session = Session(
            str(data["variant"]),
            deal=None if deal is None else _int(deal, "deal"),
            start_text=None if text is None else str(text),
            daily=None if daily is None else _date(daily),
            steps=[Step.from_json(s) for s in raw_steps],
            elapsed_ms=_int(data.get("elapsed_ms", 0), "elapsed_ms"),
        )
    except (KeyError, ValueError, TypeError, AssertionError) as e:
        raise Refused(422, "bad_record", detail=str(e)) from None
    won_ms, won_moves = data.get("won_ms"), data.get("won_moves")
    session.won_ms = None if won_ms is None else _int(won_ms, "won_ms")
    session.won_moves = None if won_moves is None else _int(won_moves, "won_moves")
    return Game(
        str(data["id"]),
        _int(data.get("version", 1), "version"),
        session,
        winnable=bool(data.get("winnable")),
    )


Words = Callable[..., str]
"""How a refusal is worded: ``words(code, lang, **params)``."""


class Engine:
    """The games the worker holds, and what the page may ask of them.
    ``words`` words a refusal in the player's language (the worker gives it
    the site's message catalogue)."""

    def __init__(self, words: Words | None = None) -> None:
        self.games: dict[str, Game] = {}
        self.words = words

    def _game(self, body: dict[str, object], version: bool = True) -> Game:
        game = self.games.get(str(body.get("id")))
        if game is None:
            raise Refused(404, "game_not_found")
        if version and body.get("version") != game.version:
            raise Refused(409, "stale_version", state=game_state(game))
        return game

    def open(self, body: dict[str, object]) -> dict[str, object]:
        """Hold the game ``body`` carries (a record) in place of any older copy."""
        game = from_record(body)
        held = self.games.get(game.id)
        if held is not None and held.version == game.version:
            game.last_hint = held.last_hint
        self.games[game.id] = game
        return game_state(game)

    def new(self, body: dict[str, object]) -> dict[str, object]:
        """A game dealt on the device: a numbered, daily, winnable or random deal."""
        variant = str(body.get("variant"))
        try:
            rules_for(variant)
            if body.get("daily"):
                date = _date(body.get("date") or dt.datetime.now(dt.UTC).date().isoformat())
                session: Session = Session(variant, deal=daily_deal(variant, date), daily=date)
            elif body.get("deal") is not None:
                session = Session(variant, deal=_int(body.get("deal"), "deal"))
            else:
                session = Session(variant, deal=self._random(variant, bool(body.get("winnable"))))
        except (KeyError, ValueError) as e:
            raise Refused(422, "invalid_request", detail=str(e)) from None
        session.set_clock(True)
        game = Game(DEVICE_PREFIX + secrets.token_urlsafe(12), 1, session)
        game.winnable = _known_winnable(session) or bool(body.get("winnable"))
        self.games[game.id] = game
        return {"state": game_state(game), "record": record(game)}

    @staticmethod
    def _random(variant: str, winnable: bool) -> int:
        deal = random_deal(variant)
        if not winnable or variant.startswith("freecell") or variant == "kongdang":
            return deal
        for _ in range(WINNABLE_TRIES):
            if klondike_winnable(variant, deal):
                return deal
            deal = random_deal(variant)
        raise Refused(503, "winnable_unavailable")

    def act(self, body: dict[str, object]) -> dict[str, object]:
        game = self._game(body)
        try:
            play_action(game.session, body.get("action"))
        except ActionError as e:
            raise Refused(422, e.code, **e.params) from None
        game.version += 1
        return {"state": game_state(game), "record": record(game)}

    def clock(self, body: dict[str, object]) -> dict[str, object]:
        game = self._game(body, version=False)
        game.session.set_clock(bool(body.get("running")))
        return game_state(game)

    def hint(self, body: dict[str, object]) -> dict[str, object]:
        game = self._game(body)
        s = game.session
        previous = game.last_hint
        hint = compute_hint(
            s.variant.id,
            s.position,
            deadline_seconds=HINT_SECONDS[s.variant.family],
            seen=tuple(s.visited),
            previous=previous,
            known_lost=s.deal is not None and is_unsolvable(s.variant.id, s.deal),
        )
        game.last_hint = (s.position, hint)
        return {"version": game.version, **hint_json(hint), "computed": "device"}

    def analysis(self, body: dict[str, object]) -> dict[str, object]:
        game = self._game(body)
        s = game.session
        pos = s.position
        head = {
            "version": game.version,
            "thoughtful": thoughtful(pos),
            "seconds": ANALYSIS_SECONDS,
            "computed": "device",
        }
        if s.rules.is_won(pos):
            empty = {"status": "solved", "length": 0, "moves": [], "solver": None, "solvers": []}
            return {**head, **empty}
        return {**head, **analyse(s.variant.id, pos, ANALYSIS_SECONDS)}

    def record(self, body: dict[str, object]) -> dict[str, object]:
        return record(self._game(body, version=False))

    def forget(self, body: dict[str, object]) -> dict[str, object]:
        self.games.pop(str(body.get("id")), None)
        return {}


OPS = ("open", "new", "act", "clock", "hint", "analysis", "record", "forget")
ENGINE = Engine()


def handle(op: str, text: str, engine: Engine = ENGINE) -> str:
    """Answer one request of the page: ``{"status": 200, "body": ...}``, or
    a refusal in the server's error shape (``lang`` in the request picks the
    language of its message)."""
    lang = "en"
    try:
        body = json.loads(text)
        if op not in OPS or not isinstance(body, dict):
            raise Refused(400, "invalid_request", detail="op")
        lang = str(body.get("lang") or lang)
        answer = getattr(engine, op)(body)
        return json.dumps({"status": 200, "body": answer}, separators=(",", ":"))
    except Refused as e:
        return json.dumps({"status": e.status, "body": _refusal(e, engine, lang)})


def _refusal(e: Refused, engine: Engine, lang: str) -> dict[str, object]:
    params = dict(e.params)
    state = params.pop("state", None)
    error: dict[str, object] = {"code": e.code}
    if engine.words is not None:
        error["message"] = engine.words(e.code, lang, **params)
    # the details a program reads, as the server gives them
    error.update({k: v for k, v in params.items() if k in ("reason", "count", "limit")})
    return {"error": error} if state is None else {"error": error, "state": state}
