"""`solvelens db ...` commands (being written)."""

import typer

app = typer.Typer(help="db commands", no_args_is_help=True)
