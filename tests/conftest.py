"""Shared pytest configuration."""

pytest_plugins = ["models_fixtures"]
