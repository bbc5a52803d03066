"""Surfaces over the service: each one parses a request, calls `errdex.service.Explainer`,
and renders what it returns, with no logic of its own."""
