from django.urls import path

from campaign import consumers

websocket_urlpatterns = [
    path("ws/live/", consumers.LiveConsumer.as_asgi()),
    path("ws/campaigns/<uuid:campaign_id>/", consumers.CampaignConsumer.as_asgi()),
]
