from hyblint.cli import entry

entry()
