"""ASGI entry point: HTTP through Django, websockets through Channels.

Websockets are authenticated by the Django session (AuthMiddlewareStack) and only
accepted from Refit's own pages: the same scheme, host and port (campaign.origin).
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

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
