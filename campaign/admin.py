from django.contrib import admin

from campaign.models import ModuleRecord, Notification


@admin.register(ModuleRecord)
class ModuleRecordAdmin(admin.ModelAdmin):
    list_display = ["id", "title", "checksum", "loaded_at"]
    readonly_fields = ["checksum", "loaded_at"]


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    """For the operator: what was e-mailed, what failed and why (resend: set the status
    back to pending; ``manage.py sendnotifications`` or the next action sends it)."""

    list_display = ["created_at", "user", "kind", "subject", "status", "attempts", "sent_at"]
    list_filter = ["status", "kind"]
    search_fields = ["subject", "user__username"]
    readonly_fields = ["user", "campaign", "seat", "subject", "body", "link", "created_at"]
