"""gunicorn's logger, with a person's id masked in the paths the access log writes."""

from typing import Any

from gunicorn.glogging import Logger

from dewee.logs import masked_path


class MaskingLogger(Logger):
    def atoms(self, resp: Any, req: Any, environ: dict, request_time: Any) -> dict:
        atoms = super().atoms(resp, req, environ, request_time)
        for name in ("U", "r"):
            if isinstance(atoms.get(name), str):
                atoms[name] = masked_path(atoms[name])
        return atoms
