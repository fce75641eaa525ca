"""What a database failure means to a client, without its internals (host, port, SQL, parameters)."""

from __future__ import annotations

from sqlalchemy.exc import DBAPIError, DisconnectionError, OperationalError, SQLAlchemyError, TimeoutError

from .encryption import UnreadableValue
from .store import StoreWentBack


def is_database_error(error: BaseException) -> bool:
    return isinstance(error, SQLAlchemyError)


def went_back(error: BaseException) -> bool:
    """The store was found behind the revisions handed out, and the counter moved on (logged there): retry."""
    return isinstance(error, StoreWentBack)


def is_unavailable(error: BaseException) -> bool:
    """The database cannot be reached now (down, restarting, out of connections), or was found gone back in time
    and is being moved on: worth a retry."""
    if isinstance(error, (OperationalError, DisconnectionError, TimeoutError, StoreWentBack)):
        return True
    return isinstance(error, DBAPIError) and bool(error.connection_invalidated)


def is_unreadable(error: BaseException) -> bool:
    return isinstance(error, UnreadableValue)
