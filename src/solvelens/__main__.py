"""``python -m solvelens`` runs the command line."""

from solvelens.cli import main

main()
