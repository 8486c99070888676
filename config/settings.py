"""Refit settings, read from the environment.

Embedded default (no environment at all): SQLite file in ``var/`` and Channels'
in-memory layer — one process, for ``make run``.  Hosted: ``DATABASE_URL``
(PostgreSQL) and ``REDIS_URL`` (channels-redis), see README "Configuration".
"""

import os
import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("REFIT_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def _secret_key() -> str:
    key = os.environ.get("SECRET_KEY")
    if key:
        return key
    if env_bool("REFIT_HTTPS", False):
        raise ImproperlyConfigured("SECRET_KEY must be set when REFIT_HTTPS is on.")
    # Embedded default: a random key kept beside the SQLite file, so sessions survive
    # restarts without a key ever living in the repository.
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    path = VAR_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "axes",
    "campaign",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, so its refusal knows an htmx request; it still runs before any view (and
    # before the CSRF check, which runs as the view is called).
    "campaign.middleware.PlainInputMiddleware",
    "axes.middleware.AxesMiddleware",  # sign-in throttling (see "auth" below)
]
# No form of Refit's comes near this; a larger body is refused with a sentence.
DATA_UPLOAD_MAX_MEMORY_SIZE = 256 * 1024

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
    {
        # The hot parts (issue 49): campaign.fragments renders them with this engine.
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "NAME": "jinja2",
        "DIRS": [BASE_DIR / "templates" / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {"environment": "campaign.templatetags.jinja.environment"},
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

# --- database -------------------------------------------------------------------
_default_db = f"sqlite:///{VAR_DIR / 'refit.sqlite3'}"
DATABASES = {"default": dj_database_url.parse(os.environ.get("DATABASE_URL") or _default_db)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    # A file (not :memory:) so a test server in another process sees the test data.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}
    # Two players clicking at once: WAL lets readers run beside the writer, IMMEDIATE
    # transactions take the write lock at BEGIN (a second writer waits its turn instead
    # of failing halfway with "database is locked"), and the busy timeout bounds the wait.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )

elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # PostgreSQL plans a statement at every execution unless it is prepared, and the
    # reads every page and action repeat spent more time being planned than run (the
    # seats read: 0.7 ms planning, 0.15 ms running): parameters are bound by the
    # server and a statement is prepared at its second use on a connection (it then
    # stays with the connection, pooled or not).  A pooler that cannot keep prepared
    # statements (PgBouncer in transaction mode, before 1.21) needs
    # DB_PREPARE_THRESHOLD=off.
    _prepare = os.environ.get("DB_PREPARE_THRESHOLD", "2").strip().lower()
    if _prepare != "off":
        if not _prepare.isdigit():
            raise ImproperlyConfigured("DB_PREPARE_THRESHOLD: a whole number of uses, or off.")
        DATABASES["default"].setdefault("OPTIONS", {}).update(
            {"server_side_binding": True, "prepare_threshold": int(_prepare)}
        )
    if os.environ.get("DB_POOL_MAX"):
        # Many websockets and requests at once open a thread (and a connection) each:
        # a hosted worker borrows from a bounded psycopg pool instead (Django 5.1+).
        DATABASES["default"]["CONN_MAX_AGE"] = 0
        # A pooled connection PostgreSQL dropped (a restart) is found before use and
        # replaced (the pool's check), so the first request after a restart does not
        # fail.  The check polls the connection's socket: only one with something to
        # read (a dropped connection's end) costs a round trip, where psycopg's own
        # sends an empty statement at every loan (config.pool, config.postgresql).
        DATABASES["default"]["ENGINE"] = "config.postgresql"
        DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": 1,
            "max_size": int(os.environ["DB_POOL_MAX"]),
            "timeout": float(os.environ.get("DB_POOL_TIMEOUT", 10)),
        }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- channels -------------------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    from redis.asyncio.retry import Retry
    from redis.backoff import ExponentialBackoff
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    CHANNEL_LAYERS = {
        "default": {
            # channels-redis's layer, outage-proof in one background task.
            "BACKEND": "campaign.layers.RedisChannelLayer",
            "CONFIG": {
                "hosts": [
                    {
                        "address": REDIS_URL,
                        # A pooled connection Redis dropped (a restart) is found by a
                        # PING before use and replaced; a command that still meets a
                        # dead connection is retried on a fresh one.
                        "health_check_interval": 5,
                        "retry": Retry(ExponentialBackoff(cap=1.0, base=0.1), retries=3),
                        "retry_on_error": [RedisConnectionError, RedisTimeoutError],
                        "socket_connect_timeout": 2,
                        "socket_timeout": 15,  # above channels-redis's 5 s blocking receive
                        "socket_keepalive": True,
                        # Per worker: a command waits up to `timeout` s for one of
                        # these connections (campaign.layers) instead of failing.
                        "max_connections": 100,
                        "timeout": 10,
                    }
                ]
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# Presence (campaign.services.presence): each open campaign socket beats every
# HEARTBEAT seconds; a seat is online while one of its sockets beat within TTL.
PRESENCE_HEARTBEAT = float(os.environ.get("REFIT_PRESENCE_HEARTBEAT", 10))
PRESENCE_TTL = float(os.environ.get("REFIT_PRESENCE_TTL", 30))
# ... and every so many beats, if its seat's revision moved since its page was last
# drawn in full, re-renders the page and sends what differs (a push lost unseen: one
# query when nothing moved).
PRESENCE_RESYNC_BEATS = int(os.environ.get("REFIT_PRESENCE_RESYNC_BEATS", 3))

# The benchmark's bare group-send echo endpoint (never on in production).
BENCH_ECHO = env_bool("REFIT_BENCH_ECHO", False)

# --- auth -----------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Tests only: a cheap password hash (the default PBKDF2 costs ~0.3 s a user on purpose;
# the suite creates a thousand users).  Refused with REFIT_HTTPS on.
if env_bool("REFIT_TEST_FAST_PASSWORDS", False):
    if env_bool("REFIT_HTTPS", False):
        raise ImproperlyConfigured("REFIT_TEST_FAST_PASSWORDS is for tests, not with REFIT_HTTPS.")
    PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.MD5PasswordHasher",
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    ]
# Sign-in throttling (django-axes): 5 failed sign-ins in a row for one name from one
# address pause that name from that address for 15 minutes (a sentence says so, 429).
# Locking the pair, not the name alone, keeps a stranger from locking a player out.
# Behind the proxy, daphne's --proxy-headers makes the client's address REMOTE_ADDR.
# Django's ModelBackend with its per-request user read compiled once; Django's own stays
# listed for sessions signed in before it (a session names its backend).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "campaign.auth.ModelBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("REFIT_LOGIN_FAILURE_LIMIT", 5))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("REFIT_LOGIN_COOLOFF_MINUTES", 15)))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "campaign.throttle.lockout"
AXES_USERNAME_CALLABLE = "campaign.throttle.username"
AXES_VERBOSE = False
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "dashboard"
LOGOUT_REDIRECT_URL = "login"

# --- i18n, static ---------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", VAR_DIR / "staticfiles"))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# WhiteNoise serves straight from the app and project static dirs (no collectstatic
# step needed for `make run`); a host may still collectstatic into STATIC_ROOT.
WHITENOISE_USE_FINDERS = True

# --- security -------------------------------------------------------------------
# Behind HTTPS (REFIT_HTTPS=1) every cookie is secure, HTTP redirects to HTTPS and HSTS
# is sent; this is what `manage.py check --deploy` asks of a production host.
HTTPS = env_bool("REFIT_HTTPS", False)
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_SSL_REDIRECT = HTTPS and env_bool("SECURE_SSL_REDIRECT", True)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if HTTPS else None
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", 31536000 if HTTPS else 0))
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
# Django's database sessions, their per-request read compiled once (campaign.prepared).
SESSION_ENGINE = "campaign.sessions"

# --- e-mail (notices to players) ---------------------------------------------------
# The console backend by default (`make run` prints the e-mails it would send); a host
# sets EMAIL_BACKEND=django.core.mail.backends.smtp.EmailBackend and the SMTP server.
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = int(os.environ.get("EMAIL_TIMEOUT", "10"))  # seconds; a send never hangs
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Refit <refit@localhost>")
# Links in e-mails point here (the address players open Refit at).
REFIT_BASE_URL = os.environ.get("REFIT_BASE_URL", "http://127.0.0.1:8000").rstrip("/")
# After commit, notices are e-mailed from a background thread ("thread"), or at once in
# the committing thread ("inline": tests).
REFIT_NOTIFY_DELIVERY = os.environ.get("REFIT_NOTIFY_DELIVERY", "thread")
# Seconds a notice waits before it is e-mailed: a player who acts meanwhile (both at
# their pages, playing live) gets no e-mail about a move already made.
REFIT_NOTIFY_DELAY = int(os.environ.get("REFIT_NOTIFY_DELAY", "120"))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"one_line_outages": {"()": "campaign.outage.OneLineOutages"}},
    # On the handler too: django.security logs from child loggers (one per exception
    # class), which a parent logger's filter never sees.
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["one_line_outages"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    "loggers": {
        "django.request": {"filters": ["one_line_outages"]},
    },
}
