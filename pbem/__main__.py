"""`python -m pbem`: the `pbem` command."""

from pbem.host.cli import main

main()
