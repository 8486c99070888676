from django.contrib import admin

from campaign.models import ModuleRecord


@admin.register(ModuleRecord)
class ModuleRecordAdmin(admin.ModelAdmin):
    list_display = ["id", "title", "checksum", "loaded_at"]
    readonly_fields = ["checksum", "loaded_at"]
