"""Rewrites that rules attach to their diagnostics (pure functions over libcst nodes)."""
