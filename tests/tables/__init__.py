"""Tests of the server-side Table printers (pure functions, no HTTP)."""
