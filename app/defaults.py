"""Every default of the server's settings, in one place (flags, ORCH_* variables, wsgi.py, gunicorn config)."""

from __future__ import annotations

from .naming import DEFAULT_API_DOMAIN

ENV_PREFIX = "ORCH_"

DATA_DIR = "./var"
BIND_ADDRESS = "127.0.0.1"
SECURE_PORT = 6443
WORKERS = 2
THREADS = 32
#: with priority and fairness on, a worker has this many threads more per --threads thread that only wait in APF
#: queues, unless --apf-waiting-threads says (a waiting request holds its thread; a blocked one costs a stack, no
#: CPU); 2 had a restart with 1,000 nodes connected turn ~3,300 requests away (docs/flowcontrol.md)
APF_WAITING_THREADS_PER_THREAD = 8
DATABASE_URL: str | None = None  # None: SQLite file `orch.db` inside the data directory
TLS_CERT_FILE: str | None = None  # None: a serving certificate signed by the cluster CA is generated
TLS_PRIVATE_KEY_FILE: str | None = None
CLIENT_CA_FILE: str | None = None  # extra client CAs; the cluster CA is always trusted
AUTHORIZATION_MODE = "Node,RBAC"
HISTORY_WINDOW = "5m"  # how far back watches and continue tokens may reach
API_DOMAIN = DEFAULT_API_DOMAIN  # the single source is app.naming

# Authentication (flag names as the spec spells them).
ANONYMOUS_AUTH = True  # a request without credentials is system:anonymous
TOKEN_AUTH_FILE: str | None = None
ENABLE_BOOTSTRAP_TOKEN_AUTH = False
SERVICE_ACCOUNT_KEY_FILE: tuple[str, ...] | None = None  # verification keys; the signing key always verifies
SERVICE_ACCOUNT_SIGNING_KEY_FILE: str | None = None  # None: pki/sa.key, generated when absent
SERVICE_ACCOUNT_ISSUER: tuple[str, ...] | None = None  # None: the server URL
SERVICE_ACCOUNT_LOOKUP = True  # tokens of deleted service accounts (or bound objects) stop working
OIDC_USERNAME_CLAIM = "sub"
OIDC_SIGNING_ALGS = "RS256"
AUTHENTICATION_TOKEN_WEBHOOK_VERSION = "v1beta1"
AUTHENTICATION_TOKEN_WEBHOOK_CACHE_TTL = "2m"
AUTHORIZATION_WEBHOOK_CACHE_AUTHORIZED_TTL = "5m"
AUTHORIZATION_WEBHOOK_CACHE_UNAUTHORIZED_TTL = "30s"

# Controllers run inside the server (app/controllers).
CONTROLLERS = "*"  # every default-on controller (tokencleaner is off unless named)
SIMULATE_NODES = 0  # a plain API server: nothing runs workloads (docs/simulation.md)
CLUSTER_SIGNING_CERT_FILE: str | None = None  # None: the generated cluster CA signs CSRs
CLUSTER_SIGNING_KEY_FILE: str | None = None
CLUSTER_SIGNING_DURATION = "8760h"  # one year

# Lifecycle (app/lifecycle.py, app/shutdown.py).
LIVEZ_GRACE_PERIOD = "0s"  # unfinished post-start hooks fail /livez at once, as the reference's default
SHUTDOWN_DELAY_DURATION = "0s"  # on SIGTERM, serve this long with /readyz failing before draining

# Audit (app/audit): the reference's defaults.
AUDIT_LOG_MAXAGE = 0  # days; 0 keeps rotated files regardless of age
AUDIT_LOG_MAXBACKUP = 0  # 0 keeps every rotated file
AUDIT_LOG_MAXSIZE = 0  # megabytes; 0 means lumberjack's 100
AUDIT_LOG_FORMAT = "json"

SQLITE_FILE = "orch.db"
ADMIN_KUBECONFIG = "admin.kubeconfig"
PKI_DIR = "pki"
# Files inside PKI_DIR.
CA_CERT = "ca.crt"
CA_KEY = "ca.key"
SERVING_CERT = "serving.crt"
SERVING_KEY = "serving.key"
CLIENT_CA_BUNDLE = "client-ca-bundle.crt"
FRONT_PROXY_CA_CERT = "front-proxy-ca.crt"  # issues the client certificate of the aggregation layer's proxy
FRONT_PROXY_CA_KEY = "front-proxy-ca.key"
FRONT_PROXY_CLIENT_CERT = "front-proxy-client.crt"
FRONT_PROXY_CLIENT_KEY = "front-proxy-client.key"
FRONT_PROXY_CLIENT_NAME = "front-proxy-client"
ADMIN_CERT = "admin.crt"
ADMIN_KEY = "admin.key"
SERVICE_ACCOUNT_KEY = "sa.key"  # generated signing key of service-account tokens
ENCRYPTION_CONFIG = "encryption-config.yaml"  # generated EncryptionConfiguration: Secrets encrypted at rest

# Process-level knobs that are not flags.
GRACEFUL_TIMEOUT = 5  # seconds; watches are cut, clients re-watch
WORKER_TIMEOUT = 120  # seconds; gthread heartbeats from its main loop, so long watches never trip it
REQUEST_LOG_BATCH_SECONDS = 0.1  # the server's request lines are written this much later at most, in batches
READ_HEADER_TIMEOUT = "32s"  # TLS handshake plus request head, as the reference's ReadHeaderTimeout
REQUEST_TIMEOUT = "60s"  # a non-long-running request, body included, then 504: the reference's --request-timeout
IDLE_TIMEOUT = "90s"  # an idle keep-alive connection, as the reference's IdleTimeout (client-go's too)
MAX_REQUESTS_INFLIGHT = 400  # the reference's defaults; each worker takes its share
MAX_MUTATING_REQUESTS_INFLIGHT = 200
DATABASE_POOL_SIZE = 16  # connections a worker keeps once opened (4 made a busy server open ~10 a second)
BACKGROUND_DATABASE_CONNECTIONS = 8  # a worker's most beyond --threads: hub, compactor, controllers, catalogs
MAX_REQUEST_BODY_BUFFER = "512Mi"  # request bodies the loops hold while they arrive, all workers together
MAX_LIST_MEMORY = "512Mi"  # list responses being built or sent, all workers together (each takes its share)
LIST_MEMORY_WAIT = 60.0  # seconds a list waits for --max-list-memory before 429 (the reference's request timeout)
ENABLE_PRIORITY_AND_FAIRNESS = True  # on by default, as in the reference since v1.20
WORKER_CONNECTIONS = 10000  # per worker: open watches and idle connections (a descriptor each, no thread)
OUTBOUND_TIMEOUT = 5.0  # seconds per call to an OIDC issuer or token webhook
OUTBOUND_DEADLINE = 10.0  # seconds, retries included, before a webhook review fails closed
