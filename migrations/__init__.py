"""The alembic environment and revisions of orch-apiserver's schema, shipped in the package so an
installed server finds them (app/storage/schema.py); admins run them with `flask db upgrade`."""
