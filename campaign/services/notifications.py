"""Notices to players who are not looking: "your move", "the campaign waits only for
you", and what the opponent revealed or finished.

A notice is built in the transaction that makes it due (``queue_notices``, called by
``waiting.update_waiting``) from public facts only: the campaign's name, date and
step, whom it waits for, and the log lines of this transaction *as the recipient's
seat may read them* (``Event.objects.visible_to(side)``, the gate the pages use).  It
is stored as a ``Notification`` row and e-mailed after commit (``deliver_due``, run in
a background thread), so sending never blocks or fails the action.  It waits a short
grace period first (``REFIT_NOTIFY_DELAY``): a "your move" notice whose player has
acted before it goes out is dropped (``obsolete``), so two players at their pages get
no e-mail.  A failed send is logged and retried with a growing delay — by the running
server when it falls due (a timer; a restarted server looks at its first action), or
by ``manage.py sendnotifications`` — until ``MAX_ATTEMPTS``.

Per-user settings: e-mail immediately, at most one per hour (notices that arrive within
the hour wait and go out together in one summary), or off.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User as Player
from django.core.exceptions import ValidationError
from django.core.mail import EmailMessage
from django.core.validators import validate_email
from django.db import connections, transaction
from django.db.models import DateTimeField, F, IntegerField, Max, Min
from django.urls import reverse
from django.utils import timezone

from campaign.models import Event, EventKind, Notification, NotificationSettings, Seat
from campaign.prepared import Param, PreparedRead
from campaign.services import writes
from campaign.services.errors import ActionRefused
from campaign.services.events import recorded
from campaign.services.text import clean_text, max_length
from campaign.services.turns import Turn, User, signed_in
from campaign.visibility import event_shown

logger = logging.getLogger(__name__)

# Public events the opponent of the acting side hears of (their text as the
# recipient's seat may read it).  Steps finished are told by the "only you" notice.
NEWS_KINDS = frozenset(
    {
        EventKind.JOINED,
        EventKind.RESULT_ENTERED,
        EventKind.RESULT_DISPUTED,
        EventKind.INITIATIVE,
        EventKind.IDLE,
        EventKind.REVEAL,
        EventKind.SCENARIO,
        EventKind.SUPPLY,
        EventKind.END,
        EventKind.MESSAGE,
        EventKind.AMENDMENT,
        EventKind.NUDGE,
    }
)
WAITING_KINDS = (Notification.Kind.YOUR_MOVE, Notification.Kind.ONLY_YOU)
MAX_ATTEMPTS = 6
RETRY_AFTER = (
    timedelta(minutes=1),
    timedelta(minutes=5),
    timedelta(minutes=15),
    timedelta(hours=1),
    timedelta(hours=3),
)
DIGEST_EVERY = timedelta(hours=1)
STALE_CLAIM = timedelta(minutes=10)  # a sender that died mid-send: its notices are due again
BATCH = 200


# --------------------------------------------------------------------------- building


def site_url(path: str) -> str:
    return f"{settings.REFIT_BASE_URL}{path}"


def step_link(campaign_id: object) -> str:
    """The campaign page, scrolled to the current step."""
    return site_url(reverse("campaign", args=[campaign_id])) + "#campaign-step"


def queue_notices(turn: Turn, *, actor: str, due: Mapping[str, Notification.Kind]) -> None:
    """Store this transaction's notices, one per player but the actor: the waiting
    transition ``due`` names for their side, and the public events recorded in this
    transaction, read through the gate for their seat.  E-mailed after commit."""
    c, module = turn.campaign, turn.module
    news = [e for e in recorded(c) if e.kind in NEWS_KINDS]
    recorded(c).clear()
    rows = []
    for side, seat in turn.seats.items():
        if seat.user_id is None or side == actor:
            continue
        kind = due.get(side)
        if kind == Notification.Kind.ONLY_YOU and told_your_move(seat):
            kind = None  # already told it is their move, and they have not acted since
        lines = news_lines(side, news)
        if kind is None and not lines:
            continue
        kind = kind or Notification.Kind.NEWS
        step = turn.step
        where = f"{step.id} {step.title}"
        name = module.side(side).name
        head = f"{c.name} — {module.title}, {module.dates[c.date_index].label}."
        if kind == Notification.Kind.YOUR_MOVE:
            subject = f"Your move in {c.name}: {where}"
            say = f"Your move: the campaign waits for you ({name}) at {where}."
        elif kind == Notification.Kind.ONLY_YOU:
            subject = f"{c.name} waits for you: {where}"
            say = (
                f"{module.side(actor).name} is done with {where}; "
                f"the campaign waits only for you ({name})."
            )
        else:
            subject = f"{c.name}: {lines[0]}"
            say = ""
        body = [head]
        if say:
            body.append(say)
        if lines:
            body += ["", "What happened:"] + [f"- {line}" for line in lines]
        body += ["", f"Go straight to the step: {step_link(c.pk)}"]
        if c.in_play or step.kind in ("setup", "commence"):
            sheet = site_url(reverse("sheet", args=[c.pk]))
            body.append(f"Your scenario sheet (for VASL or paper): {sheet}")
        rows.append(
            Notification(
                user_id=seat.user_id,
                campaign=c,
                seat=seat,
                kind=kind,
                subject=_line(subject, 200),
                body="\n".join(body),
                link=step_link(c.pk)[:500],
                waiting_since=seat.waiting_since if kind in WAITING_KINDS else None,
                next_attempt_at=timezone.now() + timedelta(seconds=settings.REFIT_NOTIFY_DELAY),
            )
        )
    if rows:
        _mark_unsendable(rows, turn.seats.values())
        writes.insert(*rows)
        falls_due = rows[0].next_attempt_at  # the same for every row of this action
        transaction.on_commit(lambda: deliver_at(falls_due), robust=True)
    elif not _looked_since_start.is_set():
        transaction.on_commit(deliver_soon, robust=True)  # what a restart left due


_TOLD_YOUR_MOVE = PreparedRead(
    lambda: Notification.objects.filter(
        seat_id=Param("seat", IntegerField()),
        kind=Notification.Kind.YOUR_MOVE,
        waiting_since=Param("since", DateTimeField()),
    ).values_list("pk")[:1]
)


def told_your_move(seat: Seat) -> bool:
    """The player was told it is their move for the wait they are in now."""
    # Asked only of a seat still waited for: its ``waiting_since`` is set.  The seats'
    # locking read answers it for the wait it read (``campaign_seats``); a wait begun
    # in this transaction is asked of the database.
    told = getattr(seat, "told_your_move", None)
    if told is not None and getattr(seat, "told_since", None) == seat.waiting_since:
        return bool(told)
    return bool(_TOLD_YOUR_MOVE(seat=seat.pk, since=seat.waiting_since))


def news_lines(side: str, events: Sequence[Event]) -> list[str]:
    """The public events of this transaction as ``side``'s seat may read them: the
    gate's own rule for a log line (``visibility.event_shown``), applied to the events
    as this transaction recorded them (a deferred insert has no ``pk`` to read it by)."""
    return [shown for e in events if (shown := event_shown(e, side))]


def _line(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


_UNREAD = object()  # a seat not read by the locking read: no e-mail setting with it


def _mark_unsendable(rows: Iterable[Notification], seats: Iterable[Seat]) -> None:
    """Notices for players without an address, or with e-mail off, are kept as a
    record but never sent (switching e-mail on later does not send old notices).
    Each player's address and setting come with the seats' locking read
    (``campaign_seats``); a seat made in this transaction is read here."""
    rows = list(rows)
    users = {r.user_id for r in rows}
    reach = {}
    for seat in seats:
        frequency = getattr(seat, "notice_frequency", _UNREAD)
        if seat.user is not None and seat.user.pk in users and frequency is not _UNREAD:
            reach[seat.user.pk] = (seat.user.email, frequency)
    unread = users - reach.keys()
    if unread:
        reach |= {
            pk: (email, frequency)
            for pk, email, frequency in Player.objects.filter(pk__in=unread).values_list(
                "pk", "email", "notification_settings__frequency"
            )
        }
    for r in rows:
        email, frequency = reach.get(r.user_id, ("", None))
        if frequency == NotificationSettings.Frequency.OFF or not email:
            r.status = Notification.Status.SKIPPED


# --------------------------------------------------------------------------- delivery


@dataclass
class Delivery:
    """What one delivery run did, in notices (not e-mails: a summary holds several)."""

    sent: int = 0
    emails: int = 0
    held: int = 0
    retrying: int = 0
    failed: int = 0
    skipped: int = 0
    obsolete: int = 0


def deliver_due(*, now: datetime | None = None) -> Delivery:
    """Send every notice that is due, player by player.  Safe to run in several
    processes at once: each claims its rows with one UPDATE before sending."""
    now = now or timezone.now()
    report = Delivery()
    Notification.objects.filter(
        status=Notification.Status.SENDING, claimed_at__lt=now - STALE_CLAIM
    ).update(status=Notification.Status.PENDING, claim="")
    users = sorted(
        set(
            Notification.objects.filter(
                status=Notification.Status.PENDING, next_attempt_at__lte=now
            ).values_list("user_id", flat=True)[:BATCH]
        )
    )
    for user_id in users:
        _deliver_to(user_id, now, report)
    return report


def _deliver_to(user_id: int, now: datetime, report: Delivery) -> None:
    claim = uuid.uuid4().hex
    claimed = Notification.objects.filter(
        user_id=user_id, status=Notification.Status.PENDING, next_attempt_at__lte=now
    ).update(status=Notification.Status.SENDING, claim=claim, claimed_at=now)
    if not claimed:
        return
    rows = list(
        Notification.objects.filter(claim=claim, status=Notification.Status.SENDING)
        .select_related("user", "seat", "campaign")
        .order_by("id")
    )
    if not rows:
        return
    user = rows[0].user
    frequency = (
        NotificationSettings.objects.filter(user=user).values_list("frequency", flat=True).first()
        or NotificationSettings.Frequency.IMMEDIATELY
    )
    if frequency == NotificationSettings.Frequency.OFF or not user.email:
        _finish(rows, status=Notification.Status.SKIPPED)
        report.skipped += len(rows)
        return
    obsolete = [
        r for r in rows if r.kind in WAITING_KINDS and r.seat.waiting_since != r.waiting_since
    ]
    if obsolete:
        _finish(obsolete, status=Notification.Status.OBSOLETE)
        report.obsolete += len(obsolete)
    rows = [r for r in rows if r not in obsolete]
    if not rows:
        return
    if frequency == NotificationSettings.Frequency.HOURLY:
        last = Notification.objects.filter(user=user, status=Notification.Status.SENT).aggregate(
            last=Max("sent_at")
        )["last"]
        if last is not None and now < last + DIGEST_EVERY:
            Notification.objects.filter(pk__in=[r.pk for r in rows]).update(
                status=Notification.Status.PENDING, claim="", next_attempt_at=last + DIGEST_EVERY
            )
            report.held += len(rows)
            return
        batches = [rows]
    else:
        batches = [[r] for r in rows]
    for batch in batches:
        _send(user, batch, now, report)


def _send(user: Player, batch: list[Notification], now: datetime, report: Delivery) -> None:
    subject, body = compose(batch)
    try:
        EmailMessage(subject, body, settings.DEFAULT_FROM_EMAIL, [user.email]).send()
    except Exception as exc:  # noqa: BLE001 - any failure of the mail server: retry later
        attempts = batch[0].attempts + 1
        logger.warning(
            "notice e-mail to user %s failed (attempt %s of %s)",
            user.pk,
            attempts,
            MAX_ATTEMPTS,
            exc_info=True,
        )
        ids = [r.pk for r in batch]
        error = f"{type(exc).__name__}: {exc}"[:500]
        if attempts >= MAX_ATTEMPTS:
            Notification.objects.filter(pk__in=ids).update(
                status=Notification.Status.FAILED,
                attempts=F("attempts") + 1,
                last_error=error,
                claim="",
            )
            report.failed += len(batch)
        else:
            delay = RETRY_AFTER[min(attempts, len(RETRY_AFTER)) - 1]
            Notification.objects.filter(pk__in=ids).update(
                status=Notification.Status.PENDING,
                attempts=F("attempts") + 1,
                next_attempt_at=now + delay,
                last_error=error,
                claim="",
            )
            report.retrying += len(batch)
        return
    Notification.objects.filter(pk__in=[r.pk for r in batch]).update(
        status=Notification.Status.SENT,
        attempts=F("attempts") + 1,
        sent_at=now,
        claim="",
        last_error="",
    )
    report.sent += len(batch)
    report.emails += 1


def compose(batch: Sequence[Notification]) -> tuple[str, str]:
    """One e-mail for one notice, or the hourly summary of several."""
    footer = (
        "\n\n-- \nRefit e-mails you when a campaign of yours waits for you, or when your "
        "opponent reveals or finishes something.\nHow often, or not at all: "
        + site_url(reverse("settings"))
    )
    if len(batch) == 1:
        return batch[0].subject, batch[0].body + footer
    waiting = [r for r in batch if r.kind in WAITING_KINDS]
    subject = f"Refit: {len(batch)} notices"
    if waiting:
        subject += f" — {waiting[-1].subject}"
    parts = [f"{r.created_at:%Y-%m-%d %H:%M} UTC — {r.subject}\n{r.body}" for r in batch]
    return _line(subject, 200), "\n\n".join(parts) + footer


def _finish(rows: Sequence[Notification], *, status: str) -> None:
    Notification.objects.filter(pk__in=[r.pk for r in rows]).update(status=status, claim="")


# --------------------------------------------------------------------------- after commit

_running = threading.Lock()
_wanted = threading.Event()
_looked_since_start = threading.Event()  # this process has looked for due notices


def deliver_at(when: datetime) -> None:
    """After commit: have notices that fall due at ``when`` delivered then — now if
    they are due, if settings deliver inline, or if this process has not yet looked
    for what a restart left due (that run schedules the next itself); else by a
    timer, so an action whose notices wait out the grace period starts no thread and
    runs no query for them."""
    now_please = when <= timezone.now() or settings.REFIT_NOTIFY_DELIVERY == "inline"
    if now_please or not _looked_since_start.is_set():
        deliver_soon()
    else:
        _schedule(when)


def deliver_soon() -> None:
    """After commit: deliver what is due without holding up the action's answer — in
    a background thread (one at a time), or inline where settings ask for it (tests)."""
    if settings.REFIT_NOTIFY_DELIVERY == "inline":
        deliver_logged()
        return
    _wanted.set()
    if _running.acquire(blocking=False):
        threading.Thread(target=_work, name="refit-notices", daemon=True).start()


def _work() -> None:
    try:
        while _wanted.is_set():
            _wanted.clear()
            _looked_since_start.set()
            deliver_logged()
        _wake_for_next()
    finally:
        connections.close_all()  # this thread's connections
        _running.release()
    if _wanted.is_set():  # asked again while this thread was stopping
        deliver_soon()


_timer: threading.Timer | None = None
_timer_at: datetime | None = None
_timer_lock = threading.Lock()


def _wake_for_next() -> None:
    """Run again when the next notice falls due (a delay, a retry, an hourly summary),
    so a running server sends it without waiting for the next action.  A restarted
    server picks them up at its first action, or ``manage.py sendnotifications``."""
    try:
        when = (
            Notification.objects.filter(status=Notification.Status.PENDING)
            .aggregate(next=Min("next_attempt_at"))
            .get("next")
        )
    except Exception:  # noqa: BLE001 - the next action or the command will send it
        logger.warning("could not schedule the next notice delivery", exc_info=True)
        return
    if when is not None:
        _schedule(when)


def _schedule(when: datetime) -> None:
    """Run the delivery when ``when`` is due, unless it already runs by then."""
    global _timer, _timer_at
    with _timer_lock:
        if _timer is not None and _timer.is_alive() and _timer_at is not None:
            if _timer_at <= when:
                return
            _timer.cancel()
        delay = max(0.0, (when - timezone.now()).total_seconds()) + 1.0
        _timer = threading.Timer(delay, deliver_soon)
        _timer.daemon = True
        _timer.start()
        _timer_at = when


def deliver_logged() -> Delivery | None:
    """Deliver, never raising: a failure is logged and the notices stay due."""
    try:
        return deliver_due()
    except Exception:  # noqa: BLE001 - the action is committed; the notices stay due
        logger.exception("delivering notices failed; they stay due")
        return None


# --------------------------------------------------------------------------- settings


@transaction.atomic
def change_notification_settings(*, user: User, email: str, frequency: str) -> None:
    """The player's e-mail address (optional) and how often Refit may e-mail them."""
    player = signed_in(user)
    if frequency not in NotificationSettings.Frequency.values:
        raise ActionRefused("Choose how often Refit may e-mail you.")
    email = clean_text(email, what="E-mail address", limit=max_length(Player, "email"))
    if email:
        try:
            validate_email(email)
        except ValidationError:
            raise ActionRefused(
                "That is not an e-mail address; enter one like name@example.org, or "
                "leave the field empty."
            ) from None
    player.email = email
    player.save(update_fields=["email"])
    NotificationSettings.objects.update_or_create(user=player, defaults={"frequency": frequency})


def notification_settings(user: Player) -> tuple[str, str]:
    """(e-mail address, frequency) of a player."""
    frequency = (
        NotificationSettings.objects.filter(user=user).values_list("frequency", flat=True).first()
    )
    return user.email, frequency or NotificationSettings.Frequency.IMMEDIATELY
