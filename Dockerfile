# orch-apiserver container: configure with ORCH_* variables (see README.md). tests/e2e/test_packaging.py
# builds and starts it where a Docker engine answers.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml setup.cfg README.md ./
COPY app ./app
COPY config ./config
COPY migrations ./migrations
RUN pip wheel --no-cache-dir --no-deps -w /dist .

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    ORCH_DATA_DIR=/var/lib/orch \
    ORCH_BIND_ADDRESS=0.0.0.0 \
    FLASK_APP=orch_apiserver
COPY --from=build /dist /dist
# the wheel carries the migrations; FLASK_APP above lets `flask db upgrade` find the app from any directory
RUN pip install --no-cache-dir /dist/*.whl \
 && rm -rf /dist \
 && useradd --system --home-dir /var/lib/orch orch \
 && mkdir -p /var/lib/orch \
 && chown orch /var/lib/orch
WORKDIR /var/lib/orch
USER orch
VOLUME /var/lib/orch
EXPOSE 6443
# /readyz over TLS, checked against the cluster CA the server made in its data directory
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["python", "-c", "import os, ssl, urllib.request as u; d = os.environ.get('ORCH_DATA_DIR', '/var/lib/orch'); u.urlopen('https://127.0.0.1:' + os.environ.get('ORCH_SECURE_PORT', '6443') + '/readyz', context=ssl.create_default_context(cafile=d + '/pki/ca.crt'), timeout=4)"]
# Migrate first (a no-op when current), then hand PID 1 to orch-apiserver so SIGTERM starts the
# --shutdown-delay-duration sequence (readiness fails at once, serving continues, then drain).
ENTRYPOINT ["/bin/sh", "-c", "flask db upgrade && exec orch-apiserver"]
