"""The JSON schema of `[tool.hyblint]`, for editors that validate pyproject.toml."""
