"""One click, one action: a form posted twice from the same page state is one action.

The page names each of its posts with a token of its own (``static/js/refit.js``: one
token per page, renewed when an answer arrives, sent as ``X-Refit-Once``).  The key of
a submission is that token with the form's address and fields; the first post of a key
acts and remembers its answer (the kinds of the changes it committed,
``campaign.changes``, in ``ActionAnswer.parts``) in the same transaction
(``ActionAnswer``, unique per player and campaign).  A second post of the same key —
a double-click whose second click got through, a retry — is answered with the first's
changes and does nothing: whether it comes after the first committed, or races it (the
unique index makes it wait for the first's commit, and it is rolled back whole), or
is refused by the rules because the first has already acted (a limit reached).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from uuid import UUID

from django.db import IntegrityError, transaction

from campaign.changes import KINDS, Change
from campaign.models import ActionAnswer
from campaign.services import writes
from rules.errors import Refused

TOKEN_LIMIT = 64
IGNORED_FIELDS = frozenset({"csrfmiddlewaretoken"})


def submission_key(token: str, path: str, fields: Iterable[tuple[str, str]]) -> str:
    """The key of one submission: the page's token, the form's address and its fields
    (in their order, the CSRF token left out: it is the session's, not the form's)."""
    digest = hashlib.sha256()
    for chunk in (token[:TOKEN_LIMIT], path):
        digest.update(chunk.encode())
        digest.update(b"\0")
    for name, value in fields:
        if name in IGNORED_FIELDS:
            continue
        digest.update(name.encode())
        digest.update(b"=")
        digest.update(value.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def earlier_answer(*, campaign_id: UUID, user_id: int, key: str) -> list[Change] | None:
    """The changes the first post of ``key`` committed, or None when there was none
    (a kind no longer known is left out)."""
    kinds = (
        ActionAnswer.objects.filter(campaign_id=campaign_id, user_id=user_id, key=key)
        .values_list("parts", flat=True)
        .first()
    )
    return None if kinds is None else [KINDS[k]() for k in kinds if k in KINDS]


def act_once(
    *, campaign_id: UUID, user_id: int, key: str | None, run: Callable[[], object]
) -> tuple[list[Change], bool]:
    """Run one player action, once per submission ``key`` (None: a post without a
    page token, acted on every time).  Returns the changes to answer with, and whether
    they are an earlier post's answer.  A refusal is raised, unless the same
    submission was acted on before (then its answer is given)."""
    try:
        with transaction.atomic(), writes.collecting() as changes:
            run()
            if key is not None:
                ActionAnswer.objects.create(
                    campaign_id=campaign_id,
                    user_id=user_id,
                    key=key,
                    parts=sorted({c.kind for c in changes}),
                )
        return changes, False
    except (Refused, IntegrityError):
        earlier = (
            earlier_answer(campaign_id=campaign_id, user_id=user_id, key=key)
            if key is not None
            else None
        )
        if earlier is None:
            raise
        return earlier, True
