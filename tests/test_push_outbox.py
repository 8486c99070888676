"""A push made by a view under an ASGI server goes through its event loop's outbox:
the view does not wait for the channel layer, the pushes arrive in the order they
were made, and a failed one is logged without stopping those after it."""

import asyncio
import logging

import pytest
from asgiref.sync import sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.test import override_settings

from campaign.services import push


async def _listening(group: str) -> str:
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(group, channel)
    return channel


async def test_a_sync_view_knows_the_loop_that_serves_it():
    # asgiref records the loop in the thread-local that async_to_sync reads: if an
    # upgrade stops doing so, this fails (and pushes would go back to waiting).
    assert await sync_to_async(push._serving_loop)() is asyncio.get_running_loop()
    assert await asyncio.to_thread(push._serving_loop) is None  # no loop handed it work


async def test_pushes_from_a_view_thread_arrive_in_order_without_waiting():
    layer = get_channel_layer()
    channel = await _listening("outbox-order")

    def view() -> None:
        for n in range(5):
            push.send("outbox-order", {"type": "bench.echo", "text": str(n)})

    await sync_to_async(view)()
    got = [await asyncio.wait_for(layer.receive(channel), 5) for _ in range(5)]
    assert [m["text"] for m in got] == ["0", "1", "2", "3", "4"]


async def test_a_failed_push_is_logged_and_the_next_one_still_goes(caplog):
    layer = get_channel_layer()
    channel = await _listening("outbox-after-failure")

    def view() -> None:
        push.send("not a valid group name!", {"type": "bench.echo", "text": "lost"})
        push.send("outbox-after-failure", {"type": "bench.echo", "text": "sent"})

    with caplog.at_level(logging.WARNING, logger="campaign.services.push"):
        await sync_to_async(view)()
        message = await asyncio.wait_for(layer.receive(channel), 5)
    assert message["text"] == "sent"
    assert any("push to not a valid group name! failed" in r.message for r in caplog.records)


@pytest.mark.django_db  # its teardown closes the connections earlier tests' view threads left
def test_without_a_serving_loop_the_push_is_sent_before_returning():
    # A command or a plain test client: nothing would run an outbox, so the send is
    # made at once (the group has nobody in it; it must simply not fail or hang).
    push.send("outbox-nobody", {"type": "bench.echo", "text": "x"})


class HangingLayer(InMemoryChannelLayer):
    """The in-memory layer, with a group send that never ends for one group."""

    async def group_send(self, group, message):
        if group == "outbox-hangs":
            await asyncio.Event().wait()
        await super().group_send(group, message)


async def test_a_send_that_hangs_is_given_up_and_the_next_one_still_goes(monkeypatch, caplog):
    monkeypatch.setattr(push._Outbox, "TIMEOUT", 0.2)
    hanging = {"default": {"BACKEND": "tests.test_push_outbox.HangingLayer"}}
    with override_settings(CHANNEL_LAYERS=hanging), caplog.at_level(logging.WARNING):
        channel = await _listening("outbox-after-hang")

        def view() -> None:
            push.send("outbox-hangs", {"type": "bench.echo", "text": "held"})
            push.send("outbox-after-hang", {"type": "bench.echo", "text": "sent"})

        await sync_to_async(view)()
        message = await asyncio.wait_for(get_channel_layer().receive(channel), 5)
    assert message["text"] == "sent"
    assert any("push to outbox-hangs failed (TimeoutError" in r.message for r in caplog.records)


async def test_an_outbox_stops_at_the_first_cancel_whenever_it_comes():
    # A loop shutting down cancels the outbox's task once and waits for it: a cancel
    # that lands as a send has just finished must stop it too (``asyncio.wait_for``
    # swallowed that one on Python 3.11, and the loop's shutdown hung).
    await _listening("outbox-cancel")
    for ticks in range(12):
        outbox = push._Outbox()
        outbox.post("outbox-cancel", {"type": "bench.echo", "text": str(ticks)})
        for _ in range(ticks):
            await asyncio.sleep(0)
        outbox.task.cancel()
        done, _ = await asyncio.wait({outbox.task}, timeout=1)
        assert outbox.task in done, f"the outbox ran on after a cancel {ticks} ticks in"
