"""`orchctl`: the command-line client built on app.client (console script `orchctl`, or `python -m app.orchctl`)."""
