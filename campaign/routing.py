from django.conf import settings
from django.urls import path, re_path

from campaign import consumers

websocket_urlpatterns = [
    path("ws/live/", consumers.LiveConsumer.as_asgi()),
    path("ws/campaigns/<uuid:campaign_id>/", consumers.CampaignConsumer.as_asgi()),
]
if settings.BENCH_ECHO:  # the benchmark's bare Channels floor (bench/run.py)
    websocket_urlpatterns.append(path("ws/bench-echo/<int:n>/", consumers.EchoConsumer.as_asgi()))
# Any other path: refused cleanly (HTTP 403 at the handshake), never a routing error.
websocket_urlpatterns.append(re_path(r"", consumers.NoSuchSocket.as_asgi()))
