"""Django's PostgreSQL backend, its pooled connections checked by a poll (``base``)."""
