# The Refit web image: one uvicorn ASGI worker per container (uvloop, httptools); docker-compose runs
# several behind Caddy (deploy/Caddyfile): HTTPS, websockets passed through.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 REFIT_VAR_DIR=/var/lib/refit
WORKDIR /app
COPY pyproject.toml ./
COPY config ./config
COPY campaign ./campaign
COPY rules ./rules
COPY templates ./templates
COPY static ./static
COPY manage.py ./
RUN pip install --no-cache-dir . && mkdir -p /var/lib/refit \
 && SECRET_KEY=build-only python manage.py collectstatic --noinput -v0
EXPOSE 8000
CMD ["uvicorn", "config.asgi:application", "--host=0.0.0.0", "--port=8000", "--loop=uvloop", \
     "--http=httptools", "--ws=websockets-sansio", "--ws-per-message-deflate=false", \
     "--lifespan=off", "--no-access-log", "--proxy-headers", "--forwarded-allow-ips=*"]
