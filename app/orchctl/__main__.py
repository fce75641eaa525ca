from .main import entry_point

entry_point()
