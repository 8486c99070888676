from django.db import models


class ModuleRecord(models.Model):
    """A CG module as loaded from its file (and overrides): campaigns are pinned to
    the exact data they were created with, identified by its checksum."""

    id = models.SlugField(primary_key=True, max_length=64)
    title = models.CharField(max_length=200)
    data = models.JSONField()
    checksum = models.CharField(max_length=64)
    loaded_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["title"]

    def __str__(self) -> str:
        return self.title
