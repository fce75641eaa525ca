from app.orchctl.main import entry_point

entry_point()
