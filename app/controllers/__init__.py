"""Controllers that run inside the server: CSR signing, approval and cleanup, bootstrap-token cleanup and
cluster-info signing. Each runs in one process at a time (a Lease per controller); see docs/certificates.md.

Kept import-light: config parses `--controllers` through `app.controllers.names`.
"""
