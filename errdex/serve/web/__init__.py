"""The web layer: server-rendered pages and the JSON API over one store (`create_app`),
rendered from the data functions of `errdex.serve.web.pages`."""

from errdex.serve.web.app import create_app

__all__ = ["create_app"]
