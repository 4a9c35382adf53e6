"""Canonical forms that record version keys are computed from, so a tie order change is no new version.

The platform orders solutions with equal scores differently on each call (real-platform-notes §13), and a
problem's ``topSolution`` (``GET /problems``: ``{text, btScore, botName}``) and ``topSolutions``
(``GET /problems/{id}``: up to 3 solution records; ``GET /bots/{id}``: a bot's best 5) switch between tied
solutions from one call to the next: on the real server an unchanged re-snapshot stored 3 new problem
versions that way.

**The rule.** The version key (:func:`solvelens.store.staging.version_key`) of a problem or a bot profile
is computed over its raw JSON with ``topSolution`` reduced to ``{"btScore": score}`` and each item of
``topSolutions`` to ``{"btScore": score}``: *which* of several equally scored solutions is on top (or
fills the last place of a short list) is not part of the record's version, the scores are. Everything
else (title, status, counts, flags, any field we do not know) stays in the key, so a new score at the
top, a new solution or a vote is still a new version. The stored ``raw`` stays exactly as
fetched: a snapshot that saw only a tie switch links the version first stored, whose ``topSolution`` names
one of the tied solutions (the platform's own answer then). Which solutions tie, and their ranks, are in
the problem's solution list (:mod:`solvelens.flows.ranks`).

A summary without a numeric ``btScore`` (a shape we do not know) is kept whole in the key: a tie cannot be
recognised there, so any change of it stays a new version. The price of the rule: a top solution replaced
by another one with exactly the same score while nothing else of the record changed (no count, no vote)
is not recorded as a new version; the solution lists record it. Other resources (solutions, leaderboard
entries, categories, ``/stats``) are keyed over their raw JSON as fetched.
"""

from __future__ import annotations

from typing import Any

import orjson


def _score_only(solution: Any) -> Any:
    """``{"btScore": score}`` of a solution summary with a numeric score, else the summary unchanged."""
    if isinstance(solution, dict):
        score = solution.get("btScore")
        if isinstance(score, int | float) and not isinstance(score, bool):
            return {"btScore": score}
    return solution


def tie_free_form(raw: bytes) -> bytes:
    """The bytes a problem's or bot profile's version key is computed over (see the module docstring):
    ``raw`` itself when the record has neither ``topSolution`` nor ``topSolutions`` or is not a JSON object.
    Raises ``orjson.JSONDecodeError`` for bytes that are not JSON (never staged: raw comes from a parsed
    answer)."""
    if b'"topSolution' not in raw:
        return raw
    record = orjson.loads(raw)
    if not isinstance(record, dict):
        return raw
    if "topSolution" in record:
        record["topSolution"] = _score_only(record["topSolution"])
    tops = record.get("topSolutions")
    if isinstance(tops, list):
        record["topSolutions"] = [_score_only(t) for t in tops]
    return orjson.dumps(record)


#: Staged tables whose version key is computed over a canonical form: table -> function of the raw bytes
#: (:class:`solvelens.store.staging.TableWriter` looks its table up here).
KEY_FORMS = {"problems": tie_free_form, "bots": tie_free_form}
