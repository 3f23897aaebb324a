"""Each file's settings come from the closest pyproject.toml with a [tool.hyblint] table above it
(as ruff does), so that `hyblint check a b` checks each file as `hyblint check b a` does; --config
names one configuration for every file instead."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Dict, Optional, Tuple

from hyblint.config import has_table, load_settings
from hyblint.settings import Settings

Project = Tuple[Settings, Path]  # the settings, and the root their patterns are relative to


class Projects:
    def __init__(self, overridden: Callable[[Settings], Settings], config: Optional[Path] = None):
        """`overridden`: the command line's flags applied to a configuration's settings."""
        self.overridden = overridden
        self.config = config
        self._by_config: Dict[Optional[Path], Project] = {}
        self._by_folder: Dict[str, Project] = {}
        self._nearest_of: Dict[str, Optional[Path]] = {}

    def of_config(self, config: Optional[Path]) -> Project:
        found = self._by_config.get(config)
        if found is None:
            root = config.parent.resolve() if config else Path.cwd().resolve()
            found = self._by_config[config] = (self.overridden(load_settings(config)), root)
        return found

    def of_path(self, path: str) -> Project:
        """The project of a file or directory (ConfigError when its configuration is bad)."""
        if self.config is not None:
            return self.of_config(self.config)
        folder = path if os.path.isdir(path) else os.path.dirname(path) or "."
        found = self._by_folder.get(folder)
        if found is None:
            found = self._by_folder[folder] = self.of_config(self._nearest(os.path.realpath(folder)))
        return found

    def config_of(self, path: str) -> Optional[Path]:
        """The configuration file a file or directory's settings come from (None: the defaults)."""
        if self.config is not None:
            return self.config
        folder = path if os.path.isdir(path) else os.path.dirname(path) or "."
        return self._nearest(os.path.realpath(folder))

    def _nearest(self, folder: str) -> Optional[Path]:
        """The closest configuration at or above a resolved folder; each folder is looked at once
        a run (the files of a tree share their parents)."""
        if folder in self._nearest_of:
            return self._nearest_of[folder]
        candidate = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(candidate) and has_table(Path(candidate)):
            found: Optional[Path] = Path(candidate)
        else:
            parent = os.path.dirname(folder)
            found = None if parent == folder else self._nearest(parent)
        self._nearest_of[folder] = found
        return found
