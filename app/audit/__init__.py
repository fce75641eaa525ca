"""Audit logging: a Policy decides the level of each request; events go to a rotated JSON-lines file."""
