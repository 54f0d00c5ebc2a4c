"""How long the campaign runs and with which seed: small by default, longer by environment.

``HOSTAWARE_FUZZ_SECONDS`` (seconds per input kind, default small enough that the whole
campaign stays under two minutes), ``HOSTAWARE_FUZZ_CASES`` (a number of cases per kind, which
then wins over time), ``HOSTAWARE_FUZZ_SEED`` (the campaign's base seed) and
``HOSTAWARE_FUZZ_REPLAY`` (``<kind>:<case seed>``: run that one case only).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass

BASE_SEED = 20241017


@dataclass
class Budget:
    """Case seeds for one kind, until the time or the number of cases is used up."""

    kind: str
    seconds: float
    cases: int | None
    seed: int
    replay: int | None

    def seeds(self) -> Iterator[int]:
        """Case seeds: deterministic from the base seed, so a case is replayed by its seed."""
        if self.replay is not None:
            yield self.replay
            return
        started = time.monotonic()
        number = 0
        while True:
            if self.cases is not None:
                if number >= self.cases:
                    return
            elif time.monotonic() - started >= self.seconds:
                return
            yield self.seed * 100_003 + number
            number += 1

    def replay_hint(self, case_seed: int, test: str) -> str:
        """The command that runs one case again."""
        return (
            f"HOSTAWARE_FUZZ_REPLAY={self.kind}:{case_seed} .venv/bin/python -m pytest -q "
            f"tests/ingest/test_fuzz_ingest.py -k {test}"
        )


def budget(kind: str, default_seconds: float) -> Budget:
    """The budget of one kind of input, read from the environment."""
    seconds = float(os.environ.get("HOSTAWARE_FUZZ_SECONDS", default_seconds))
    cases = os.environ.get("HOSTAWARE_FUZZ_CASES")
    replay = None
    wanted = os.environ.get("HOSTAWARE_FUZZ_REPLAY", "")
    if wanted:
        replay_kind, _, replay_seed = wanted.partition(":")
        replay = int(replay_seed) if replay_kind == kind else -1
    seed = int(os.environ.get("HOSTAWARE_FUZZ_SEED", BASE_SEED))
    budget = Budget(kind, seconds, int(cases) if cases else None, seed, replay)
    if replay == -1:  # another kind is replayed: run nothing here
        budget.cases, budget.replay = 0, None
    return budget
