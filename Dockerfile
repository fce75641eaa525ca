# orch-apiserver container: configure with ORCH_* variables (see README.md); not built in CI (no Docker engine).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    FLASK_APP=wsgi.py \
    ORCH_DATA_DIR=/var/lib/orch \
    ORCH_BIND_ADDRESS=0.0.0.0 \
    ORCH_MIGRATIONS_DIR=/srv/orch/migrations

WORKDIR /srv/orch
COPY pyproject.toml setup.cfg README.md ./
COPY app ./app
COPY config ./config
RUN pip install --no-cache-dir . \
 && useradd --system --home-dir /var/lib/orch orch \
 && mkdir -p /var/lib/orch \
 && chown orch /var/lib/orch
COPY migrations ./migrations
COPY wsgi.py ./

USER orch
VOLUME /var/lib/orch
EXPOSE 6443
# Migrate first (a no-op when current), then hand PID 1 to orch-apiserver so SIGTERM starts the
# --shutdown-delay-duration sequence (readiness fails at once, serving continues, then drain).
ENTRYPOINT ["/bin/sh", "-c", "flask db upgrade && exec orch-apiserver"]
