"""Deals the site keeps: the daily deal chosen for each date and the deals
dealt as winnable, so that every server process agrees on them."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from jielong.store.tables import daily_deals, winnable_deals


def insert_once(engine: Engine, table: sa.Table, **values: str) -> None:
    """Insert a row unless a row with its key is there already (then that
    one stands, whoever wrote it)."""
    try:
        with engine.begin() as conn:
            conn.execute(table.insert().values(**values))
    except sa.exc.IntegrityError:
        pass


def kept_daily_deal(engine: Engine, variant: str, date: dt.date) -> int | None:
    """The daily deal of ``variant`` kept for ``date``, if one was kept."""
    query = sa.select(daily_deals.c.deal).where(
        daily_deals.c.variant == variant, daily_deals.c.date == date.isoformat()
    )
    with engine.connect() as conn:
        value = conn.execute(query).scalar_one_or_none()
    return None if value is None else int(value)


def keep_daily_deal(engine: Engine, variant: str, date: dt.date, deal: int) -> None:
    """Keep ``deal`` as the daily deal of ``variant`` for ``date``, unless
    another one was kept first (that one stands)."""
    insert_once(engine, daily_deals, variant=variant, date=date.isoformat(), deal=str(deal))


def record_winnable_deal(engine: Engine, variant: str, deal: int) -> None:
    """Remember that ``deal`` of ``variant`` was dealt as winnable."""
    insert_once(engine, winnable_deals, variant=variant, deal=str(deal))


def winnable_deal_known(engine: Engine, variant: str, deal: int) -> bool:
    """Whether ``deal`` of ``variant`` was ever dealt as winnable."""
    query = sa.select(winnable_deals.c.deal).where(
        winnable_deals.c.variant == variant, winnable_deals.c.deal == str(deal)
    )
    with engine.connect() as conn:
        return conn.execute(query).first() is not None
