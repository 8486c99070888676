from django.contrib import admin

from campaign.models import ModuleRecord, Notification


@admin.register(ModuleRecord)
class ModuleRecordAdmin(admin.ModelAdmin):
    list_display = ["id", "title", "owner", "public", "checksum", "loaded_at"]
    list_filter = ["public"]
    readonly_fields = ["checksum", "loaded_at", "owner"]
    actions = ["publish"]

    @admin.action(description="Publish to every player")
    def publish(self, request, queryset):
        published = queryset.filter(public=False).update(public=True)
        self.message_user(request, f"{published} module(s) published.")


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    """For the operator: what was e-mailed, what failed and why (resend: set the status
    back to pending; ``manage.py sendnotifications`` or the next action sends it)."""

    list_display = ["created_at", "user", "kind", "subject", "status", "attempts", "sent_at"]
    list_filter = ["status", "kind"]
    search_fields = ["subject", "user__username"]
    readonly_fields = ["user", "campaign", "seat", "subject", "body", "link", "created_at"]
