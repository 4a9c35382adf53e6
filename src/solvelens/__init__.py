"""solvelens: API client, sandbox platform and analytics pipeline for a bot problem-solving platform."""

__version__ = "0.1.0"
