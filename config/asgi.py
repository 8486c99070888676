"""ASGI entry point: HTTP through Django, websockets through Channels.

Websockets are authenticated by the Django session (AuthMiddlewareStack) and only
accepted from Refit's own pages: the same scheme, host and port (campaign.origin).
"""

import gc
import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup(set_prefix=False)  # as django.core.asgi.get_asgi_application does

from config.handler import OneHopASGIHandler  # noqa: E402

django_asgi_app = OneHopASGIHandler()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from campaign.origin import SameOriginValidator  # noqa: E402
from campaign.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": SameOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)

# What is loaded by now (Django, the apps, the templates' tags) lives as long as the
# worker: moved out of the cyclic garbage collector's reach, an occasional full
# collection scans only what requests made since.  Measured in-process on the bench's
# lock, buy and roster paths: the longest collection pause fell from 50-63 ms to
# 6-12 ms (every request on the worker waits it out).
gc.collect()
gc.freeze()
