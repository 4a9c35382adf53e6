"""`solvelens bot ...` commands (being written)."""

import typer

app = typer.Typer(help="bot commands", no_args_is_help=True)
