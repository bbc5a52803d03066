"""`errdex.hook`, the import path sitecustomize recipes use (`import errdex.hook;
errdex.hook.install()`); the hook itself is `errdex.serve.hook`."""

from errdex.serve.hook import (
    explain_exception,
    explanation_text,
    install,
    install_from_env,
    run_script,
    uninstall,
)

__all__ = [
    "explain_exception",
    "explanation_text",
    "install",
    "install_from_env",
    "run_script",
    "uninstall",
]
