"""`solvelens sandbox ...` commands (being written)."""

import typer

app = typer.Typer(help="sandbox commands", no_args_is_help=True)
